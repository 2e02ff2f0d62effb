package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/skillkit/skillkit/internal/runstore/sqlstore"
	"github.com/skillkit/skillkit/parse"
	"github.com/skillkit/skillkit/plan"
)

func newTaskCmd() *cobra.Command {
	task := &cobra.Command{Use: "task", Short: "Queue runs of skills as tasks for workers"}
	var inputs []string
	var review string
	add := &cobra.Command{
		Use:   "add SKILL [-- ARGS]",
		Short: "Queue a run of SKILL as a task; prints its id",
		Long: `Queue a run of SKILL as a task in watching, for any worker to claim. SKILL is
the skill's folder as the workers see it (relative to their current folder,
or absolute). Prints the task's id.

--review completion makes the task wait for the conductor at its end: when
its run completes it goes to needs_review, and "skillkit review TASK
--approve" makes it complete (--reject and --fix send it back to the
worker, as at a step's review). Without the flag the skill's front matter
key review: (none or completion) decides; without either, none: the task
is complete when its run completes.`,
		Example: `  skillkit task add examples/sequential --input dir="$PWD/docs"
  skillkit task add examples/sequential --review completion --input dir="$PWD/docs"
  skillkit task add triage --db postgres://skillkit:skillkit@db/skillkit -- 1234`,
		Args: func(c *cobra.Command, args []string) error {
			if dash := c.ArgsLenAtDash(); len(args) == 0 || dash > 1 || dash < 0 && len(args) > 1 {
				return fmt.Errorf("want one SKILL, then the skill's arguments after --; got %q", args)
			}
			return nil
		},
		RunE: runE(func(c *cobra.Command, args []string) error {
			s, err := parse.Dir(args[0])
			if err != nil {
				return usageErr(err)
			}
			mode, err := taskReview(s, review, c.Flags().Changed("review"))
			if err != nil {
				return usageErr(err)
			}
			in, err := parseInputs(inputs)
			if err != nil {
				return usageErr(err)
			}
			d, err := openDB(c)
			if err != nil {
				return err
			}
			defer d.Close()
			t, err := d.AddTask(c.Context(), args[0], in, args[1:], mode)
			if err != nil {
				return dbErr(err)
			}
			fmt.Fprintln(c.OutOrStdout(), t.ID)
			return nil
		}),
	}
	add.Flags().StringArrayVar(&inputs, "input", nil, "an input as key=value, repeatable")
	add.Flags().StringVar(&review, "review", "", "completion: the task's end waits for the conductor's approval; none: it does not (default: the skill's review key, else none)")
	task.AddCommand(add)
	return task
}

// taskReview is the review mode of a task of s: the flag's when given,
// else the skill's front matter's.
func taskReview(s *plan.Skill, flag string, set bool) (sqlstore.ReviewMode, error) {
	mode := flag
	if set {
		if err := plan.CheckReview(flag); err != nil {
			return "", fmt.Errorf("--%w", err)
		}
	} else {
		var err error
		if mode, err = s.Review(); err != nil {
			return "", err
		}
	}
	if mode == plan.ReviewCompletion {
		return sqlstore.ReviewCompletion, nil
	}
	return sqlstore.ReviewNone, nil
}
