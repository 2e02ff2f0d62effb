package main

import (
	"github.com/spf13/cobra"

	"github.com/skillkit/skillkit/internal/runstore"
)

func newStatusCmd() *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "status [RUN]",
		Short: "Show the progress of a run",
		Long: `status shows a run's state, its current phase or action and step, the steps
completed and the last error. RUN is a run id or a run directory; without
it, the newest run under .skillkit/runs.`,
		Example: `  skillkit status
  skillkit status 20261121-101500-ab12 --json`,
		Args: cobra.MaximumNArgs(1),
		RunE: runE(func(c *cobra.Command, args []string) error {
			ref := ""
			if len(args) == 1 {
				ref = args[0]
			}
			s, err := runsOf(".").Status(ref)
			if err != nil {
				return usageErr(err)
			}
			if asJSON {
				return writeJSON(c.OutOrStdout(), s)
			}
			return runstore.WriteStatus(c.OutOrStdout(), s)
		}),
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the status as JSON")
	return c
}

func newRunsCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "runs",
		Short: "List the runs under .skillkit/runs",
		Long:  "runs lists the runs of every skill under .skillkit/runs in the current folder, newest first, with their state.",
		Example: `  skillkit runs
  skillkit status $(skillkit runs | awk 'NR==2 {print $1}')`,
		Args: cobra.NoArgs,
		RunE: runE(func(c *cobra.Command, _ []string) error {
			runs, err := runsOf(".").List()
			if err != nil {
				return err
			}
			return runstore.WriteRuns(c.OutOrStdout(), runs)
		}),
	}
}
