package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/skillkit/skillkit/parse"
)

func newPlanCmd() *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "plan SKILL",
		Short: "Show the parsed plan of a skill",
		Long: `plan reads a skill folder the way the runners do and prints what it found:
the mode, the phases in execution order with their steps and what runs in
each, the actions with their preconditions, the catalog and the state schema.
With --json it prints the whole plan (see 'skillkit schema plan').`,
		Example: `  skillkit plan examples/sequential
  skillkit plan .claude/skills/review-code --json | jq '.actions[].id'`,
		Args: cobra.ExactArgs(1),
		RunE: runE(func(c *cobra.Command, args []string) error {
			s, err := parse.Dir(args[0])
			if err != nil {
				return usageErr(err)
			}
			if asJSON {
				return writeJSON(c.OutOrStdout(), s)
			}
			if err := s.WriteSummary(c.OutOrStdout()); err != nil {
				return fmt.Errorf("writing plan: %w", err)
			}
			return nil
		}),
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the whole plan as JSON")
	return c
}
