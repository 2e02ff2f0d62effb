package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/skillkit/skillkit/scaffold"
)

func newAddCmd() *cobra.Command {
	var skill string
	c := &cobra.Command{
		Use:   "add phase|action NAME",
		Short: "Add a phase or an action to a skill",
		Long: `add grows a skill without renumbering or relinking by hand.

add phase gives the new phase a number after --after (default: after the last
phase): the next whole number after the last phase, else the middle tenth
between its neighbours (01 and 02 → 01.5; 01 and 01.5 → 01.2; 01.5 and 02 →
01.7). The previous phase's Next Phase link now points at the new phase, and
the new phase links to the one that followed.

add action writes phases/actions/action-NAME.md (an action that runs once,
after the items are processed), a catalog row, a graph node, and a line in
selectNextAction before the action that completes the run.`,
		Example: `  skillkit add phase enrich --after 01 --skill pdf-report
  skillkit add phase publish
  skillkit add action notify --skill triage`,
	}
	c.PersistentFlags().StringVar(&skill, "skill", ".", "the skill folder")

	var after string
	phase := &cobra.Command{
		Use:   "phase NAME",
		Short: "Insert a numbered phase and rewire the Next Phase links",
		Example: `  skillkit add phase enrich --after 01
  skillkit add phase publish --skill pdf-report`,
		Args: cobra.ExactArgs(1),
		RunE: runE(func(c *cobra.Command, args []string) error {
			if err := checkSkillDir(skill); err != nil {
				return err
			}
			files, err := scaffold.AddPhase(skill, args[0], after)
			return reportAdd(c, "phase "+args[0], skill, files, err)
		}),
	}
	phase.Flags().StringVar(&after, "after", "", "number of the phase to insert after, such as 01 or 02.5 (default: the last)")

	action := &cobra.Command{
		Use:     "action NAME",
		Short:   "Add an action with its catalog row and graph node",
		Example: `  skillkit add action notify --skill triage`,
		Args:    cobra.ExactArgs(1),
		RunE: runE(func(c *cobra.Command, args []string) error {
			if err := checkSkillDir(skill); err != nil {
				return err
			}
			files, err := scaffold.AddAction(skill, args[0])
			return reportAdd(c, "action "+args[0], skill, files, err)
		}),
	}
	c.AddCommand(phase, action)
	return c
}

func reportAdd(c *cobra.Command, what, skill string, files []string, err error) error {
	if err != nil {
		return scaffoldErr(err)
	}
	w := c.OutOrStdout()
	fmt.Fprintf(w, "added %s:\n", what)
	printFiles(w, files)
	fmt.Fprintf(w, "\nnext:\n  skillkit lint %s\n", skill)
	return nil
}
