package main

import "github.com/spf13/cobra"

func newMCPCmd() *cobra.Command {
	c := &cobra.Command{Use: "mcp", Short: "skillkit and the Model Context Protocol"}
	c.AddCommand(newMCPServeCmd())
	return c
}
