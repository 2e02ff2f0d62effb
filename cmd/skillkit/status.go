package main

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/spf13/cobra"

	"github.com/skillkit/skillkit/internal/runstore"
)

func newStatusCmd() *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "status [RUN]",
		Short: "Show the progress of a run",
		Long: `status shows a run's state, its current phase or action and step, the steps
completed and the last error, then the run step by step: each phase and
its steps (or the loop and its actions) with its state, working time and
tries, interrupted tries apart, and the error of what failed or stopped.
Rows fit in 80 columns. RUN is a run id or a run directory; without
it, the newest run of the project: runs are kept in the .skillkit/runs of
the nearest folder, this one or above, that holds .skillkit/ or .git, so
status finds them from any subfolder.`,
		Example: `  skillkit status
  skillkit status 20261121-101500-ab12 --json`,
		Args: cobra.MaximumNArgs(1),
		RunE: runE(func(c *cobra.Command, args []string) error {
			ref := ""
			if len(args) == 1 {
				ref = args[0]
			}
			store, done, err := readStore(c, projectStore)
			if err != nil {
				return err
			}
			defer done()
			s, err := store.Status(ref)
			if err != nil {
				return usageErr(err)
			}
			if asJSON {
				return writeJSON(c.OutOrStdout(), s)
			}
			if err := runstore.WriteStatus(c.OutOrStdout(), s); err != nil {
				return err
			}
			// The run as the user named it (a folder, an id), else the
			// newest by its id: both name it to every store.
			return writeSteps(c.OutOrStdout(), store, cmp.Or(ref, s.ID))
		}),
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the status as JSON")
	return c
}

func newRunsCmd() *cobra.Command {
	var all bool
	c := &cobra.Command{
		Use:   "runs [SKILL]",
		Short: "List a project's runs",
		Long: `runs lists runs, newest first, with their state: those of SKILL (a skill
folder or name), else those of the skill folder you are in, else every
skill's; --all lists every skill's wherever you are. Runs are kept in the
.skillkit/runs of the project: the nearest folder, this one or above, that
holds .skillkit/ or .git.`,
		Example: `  skillkit runs
  skillkit runs --all
  skillkit status $(skillkit runs | awk 'NR==2 {print $1}')`,
		Args: cobra.MaximumNArgs(1),
		RunE: runE(func(c *cobra.Command, args []string) error {
			cwd, err := os.Getwd()
			if err != nil {
				return fmt.Errorf("finding the current folder: %w", err)
			}
			root := projectRoot(cwd)
			store, done, err := readStore(c, func() (runstore.Store, error) { return runsOf(root), nil })
			if err != nil {
				return err
			}
			defer done()
			runs, err := store.List()
			if err != nil {
				return err
			}
			skill := ""
			switch {
			case all:
			case len(args) == 1:
				skill = filepath.Base(filepath.Clean(args[0]))
			default:
				skill = enclosingSkill(cwd, root)
			}
			if skill != "" {
				runs = slices.DeleteFunc(runs, func(s *runstore.Summary) bool { return s.Skill != skill })
			}
			return runstore.WriteRuns(c.OutOrStdout(), runs)
		}),
	}
	c.Flags().BoolVar(&all, "all", false, "list the runs of every skill")
	return c
}
