package main

import "github.com/spf13/cobra"

// newMCPCmd is the parent of the MCP commands: the client's (list, tools)
// and the server's (serve).
func newMCPCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "mcp",
		Short: "Work with MCP: the servers a project configures, their tools, and skillkit as a server",
		Long: `mcp works with the MCP servers a project configures in .mcp.json (as Claude
Code reads it) and in the mcp block of a skill's skillkit.yaml. Steps call
their tools natively: mcp__server__tool(args) in JavaScript, or a Tool step.`,
		Example: `  skillkit mcp list
  skillkit mcp tools memory --save`,
		Args: cobra.NoArgs,
	}
	c.AddCommand(newMCPListCmd(), newMCPToolsCmd(), newMCPServeCmd())
	return c
}
