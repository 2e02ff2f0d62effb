package main

import (
	"github.com/spf13/cobra"

	"github.com/skillkit/skillkit/internal/lsp"
)

func newLSPCmd(s Streams) *cobra.Command {
	var profile string
	c := &cobra.Command{
		Use:   "lsp",
		Short: "Run the language server: lint diagnostics, fixes and navigation in an editor",
		Long: `lsp is a Language Server Protocol server on stdin and stdout, for an editor
to start. It lints each skill as its files are opened, changed and saved
(the rules and positions of skillkit lint), offers the safe fixes of
skillkit lint --fix as code actions, goes to the definition of action ids,
links and state fields, and shows on hover whether a step runs natively
or goes to the agent, and why. Setup for VS Code, Neovim and Helix is in
docs/lsp.md.`,
		Example: "  skillkit lsp",
		Args:    cobra.NoArgs,
		RunE: runE(func(c *cobra.Command, _ []string) error {
			return lsp.Serve(s.In, s.Out, lsp.Options{Profile: profile, Version: version})
		}),
	}
	c.Flags().StringVar(&profile, "profile", "", "front matter profile, as for skillkit lint (default auto)")
	return c
}
