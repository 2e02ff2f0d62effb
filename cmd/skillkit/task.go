package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/skillkit/skillkit/parse"
)

func newTaskCmd() *cobra.Command {
	task := &cobra.Command{Use: "task", Short: "Queue runs of skills as tasks for workers"}
	var inputs []string
	add := &cobra.Command{
		Use:   "add SKILL [-- ARGS]",
		Short: "Queue a run of SKILL as a task; prints its id",
		Long: `Queue a run of SKILL as a task in watching, for any worker to claim. SKILL is
the skill's folder as the workers see it (relative to their current folder,
or absolute). Prints the task's id.`,
		Example: `  skillkit task add examples/sequential --input dir="$PWD/docs"
  skillkit task add triage --db postgres://skillkit:skillkit@db/skillkit -- 1234`,
		Args: func(c *cobra.Command, args []string) error {
			if dash := c.ArgsLenAtDash(); len(args) == 0 || dash > 1 || dash < 0 && len(args) > 1 {
				return fmt.Errorf("want one SKILL, then the skill's arguments after --; got %q", args)
			}
			return nil
		},
		RunE: runE(func(c *cobra.Command, args []string) error {
			if _, err := parse.Dir(args[0]); err != nil {
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
			t, err := d.AddTask(c.Context(), args[0], in, args[1:])
			if err != nil {
				return dbErr(err)
			}
			fmt.Fprintln(c.OutOrStdout(), t.ID)
			return nil
		}),
	}
	add.Flags().StringArrayVar(&inputs, "input", nil, "an input as key=value, repeatable")
	task.AddCommand(add)
	return task
}
