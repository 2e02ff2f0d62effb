package main

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/skillkit/skillkit/plan"
)

func newPlanCmd() *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "plan SKILL",
		Short: "Show the parsed plan of a skill",
		Long: `plan reads a skill folder the way the runners do and prints what it found:
the mode, the phases in execution order with their steps and what runs in
each, the actions with their preconditions, the catalog and the state schema.
With --json it prints the whole plan (see 'skillkit schema plan').

Errors the parser found (a file it cannot read, broken front matter, a
wrong step attribute) are printed on stderr as file:line:col; plan still
exits 0, as the plan was read. 'skillkit lint' checks a skill; exit 2 means
the folder itself cannot be read.`,
		Example: `  skillkit plan examples/sequential
  skillkit plan .claude/skills/review-code --json | jq '.actions[].id'`,
		Args: cobra.ExactArgs(1),
		RunE: runE(func(c *cobra.Command, args []string) error {
			s, err := readSkill(args[0])
			if err != nil {
				return err
			}
			// The plan is shown whatever its errors; they go to stderr
			// with their positions, and lint decides the exit code.
			for _, l := range errorLines(s) {
				fmt.Fprintln(c.ErrOrStderr(), l)
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

// errorLines formats the skill's error-level diagnostics as
// file:line:col: message [code], with paths as the user named the skill.
func errorLines(s *plan.Skill) []string {
	var lines []string
	for _, d := range s.Diagnostics {
		if d.Severity != plan.SevError {
			continue
		}
		p := d.Pos
		p.File = filepath.Join(s.Dir, p.File)
		lines = append(lines, fmt.Sprintf("%s: %s [%s]", p, d.Message, d.Code))
	}
	return lines
}
