package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/spf13/cobra"

	"github.com/skillkit/skillkit/internal/agent"
)

func newDoctorCmd() *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "doctor [claude|codex]...",
		Short: "Check which agents are installed, their versions, and whether they can work",
		Long: `doctor checks the agents skillkit drives by name, Claude Code (claude) and
Codex (codex): whether each is on PATH, its version, and whether it is
logged in or has an API key, with the exact command that fixes it. It runs
only the CLIs' own status commands (--version, claude auth status, codex
login status), which cost nothing; it never sends a prompt.

run --agent claude (or codex) makes the same check before it starts and
stops with the fix when the agent cannot work.

Exit code: 0 when at least one agent can work (every one named, when named);
1 otherwise.`,
		Example: `  skillkit doctor
  skillkit doctor claude
  skillkit doctor --json`,
		ValidArgs: []string{agent.AdapterClaude, agent.AdapterCodex},
		Args:      cobra.OnlyValidArgs,
		RunE: runE(func(c *cobra.Command, args []string) error {
			names := args
			if len(names) == 0 {
				names = []string{agent.AdapterClaude, agent.AdapterCodex}
			}
			// The checks start node programs, a second or more each:
			// side by side.
			all := make([]agent.Status, len(names))
			var wg sync.WaitGroup
			for i, n := range names {
				wg.Go(func() { all[i] = agent.Check(c.Context(), n) })
			}
			wg.Wait()
			out := c.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				if err := enc.Encode(all); err != nil {
					return err
				}
			} else {
				for _, s := range all {
					mark := "ok"
					if !s.Usable {
						mark = "cannot work"
					}
					fmt.Fprintf(out, "%s: %s\n", s.Agent, mark)
					if s.Path != "" {
						fmt.Fprintf(out, "  installed  %s (version %s)\n", s.Path, s.Version)
					}
					fmt.Fprintf(out, "  status     %s\n", s.Detail)
					if s.Fix != "" {
						fmt.Fprintf(out, "  fix        %s\n", s.Fix)
					}
				}
			}
			usable := func(s agent.Status) bool { return s.Usable }
			unusable := func(s agent.Status) bool { return !s.Usable }
			switch {
			case len(args) > 0 && slices.ContainsFunc(all, unusable):
				return failed(errors.New("an agent named cannot work: see its fix"))
			case !slices.ContainsFunc(all, usable):
				return failed(errors.New("no agent can work: see the fixes"))
			}
			return nil
		}),
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the checks as JSON")
	return c
}
