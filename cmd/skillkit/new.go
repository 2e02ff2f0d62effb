package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/skillkit/skillkit/plan"
	"github.com/skillkit/skillkit/scaffold"
)

func newNewCmd() *cobra.Command {
	var opts scaffold.Options
	var mode string
	c := &cobra.Command{
		Use:   "new NAME",
		Short: "Create a skill that lints clean and runs as generated",
		Long: `new creates the folder NAME (inside --dir) holding a skill laid out for one
execution mode:

  sequential   phases/NN-name.md, run in order, each with a bash step that
               writes the phase's declared output
  autonomous   phases/orchestrator.md (Decision Logic), phases/state-schema.md,
               phases/actions/action-*.md, specs/action-catalog.md
  hybrid       numbered phases around a numbered orchestrator (phase 02)
               with its actions and state schema

The actions form a pipeline: the first starts the run, the second processes
pending items one per call, later ones run once each, the last completes the
run; "abort" stops it as failed after too many errors.

--mcp adds a Tool step to the first phase that calls the MCP memory server,
configured in the skill's skillkit.yaml (see docs/mcp.md).

NAME follows the Agent Skills rule: 1-64 lowercase letters, digits and single
hyphens. new refuses an existing folder.`,
		Example: `  skillkit new pdf-report
  skillkit new triage --mode autonomous --actions fetch,classify,label,abort
  skillkit new release --mode hybrid --phases prepare,publish --dir skills
  skillkit new csv-charts --phases load,plot --description "Plots CSV files as charts."
  skillkit new notes --mcp`,
		Args: cobra.ExactArgs(1),
		RunE: runE(func(c *cobra.Command, args []string) error {
			opts.Name, opts.Mode = args[0], plan.Mode(mode)
			files, err := scaffold.New(opts)
			if err != nil {
				return scaffoldErr(err)
			}
			root := filepath.Join(opts.Dir, opts.Name)
			w := c.OutOrStdout()
			fmt.Fprintf(w, "created %s skill %s:\n", opts.Mode, root)
			printFiles(w, files)
			fmt.Fprintf(w, "\nnext:\n  skillkit lint %s\n  skillkit run %s\n  skillkit test %s\n", root, root, root)
			return nil
		}),
	}
	f := c.Flags()
	f.StringVar(&mode, "mode", string(plan.ModeSequential), "execution mode: sequential, autonomous or hybrid")
	f.StringSliceVar(&opts.Phases, "phases", nil, "numbered phases, in order (default collect,analyze,report; hybrid: init,finalize)")
	f.StringSliceVar(&opts.Actions, "actions", nil, "actions of the loop, in pipeline order (default init,process,complete,abort)")
	f.StringVar(&opts.Dir, "dir", "", "folder to create the skill in (default the current folder)")
	f.StringVar(&opts.Description, "description", "", "front matter description: what the skill does and when to use it")
	f.BoolVar(&opts.MCP, "mcp", false, "add a Tool step calling the MCP memory server, configured in skillkit.yaml (sequential and hybrid)")
	return c
}

// scaffoldErr maps what the caller asked wrongly (an invalid name, an
// existing folder) to a usage error; anything else is skillkit failing.
func scaffoldErr(err error) error {
	if errors.Is(err, scaffold.ErrInvalid) || errors.Is(err, scaffold.ErrExists) {
		return usageErr(err)
	}
	return err
}

func printFiles(w io.Writer, files []string) {
	for _, f := range files {
		fmt.Fprintf(w, "  %s\n", f)
	}
}
