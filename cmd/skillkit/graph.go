package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/skillkit/skillkit/graph"
	"github.com/skillkit/skillkit/internal/runstore"
	"github.com/skillkit/skillkit/jsstatic"
	"github.com/skillkit/skillkit/plan"
)

func newGraphCmd() *cobra.Command {
	var format string
	c := &cobra.Command{
		Use:   "graph SKILL|RUN",
		Short: "Draw a skill's phase flow or action graph, or the path a run took",
		Long: `graph draws the phase flow of a sequential skill (in order, following Next
Phase links), the action graph of an autonomous skill (edges from the
catalog's mermaid graph, the Next Actions hints and the ids selectNextAction
can return, labelled with the target's preconditions: the whole condition
is the edge's tooltip in dot), and both for a hybrid skill, whose phases
join the loop as a whole. Mermaid output renders on GitHub as it is; dot is
for Graphviz.

Given a run (a run id or a run folder) instead of a skill, graph draws the
run's skill and colours the path the run took: each phase and action
completed, failed, started (the run stopped in it), skipped (the run went
past it) or not reached.`,
		Example: `  skillkit graph examples/autonomous
  skillkit graph examples/hybrid --format dot | dot -Tsvg > hybrid.svg
  skillkit graph 20261121-101500-ab12cd --format dot | dot -Tsvg > run.svg`,
		Args: cobra.ExactArgs(1),
		RunE: runE(func(c *cobra.Command, args []string) error {
			if format != "mermaid" && format != "dot" {
				return usageErr(fmt.Errorf("--format %q: want mermaid or dot", format))
			}
			g, err := skillOrRunGraph(c, args[0])
			if err != nil {
				return err
			}
			out := g.Mermaid()
			if format == "dot" {
				out = g.Dot()
			}
			_, err = io.WriteString(c.OutOrStdout(), out)
			return err
		}),
	}
	c.Flags().StringVar(&format, "format", "mermaid", "mermaid or dot")
	return c
}

// skillOrRunGraph is the graph of the skill folder arg names, or of the
// run it names, painted with the path the run took.
func skillOrRunGraph(c *cobra.Command, arg string) (*graph.Graph, error) {
	if _, err := os.Stat(filepath.Join(arg, "SKILL.md")); err != nil {
		store, done, serr := readStore(c, projectStore)
		if serr != nil {
			return nil, serr
		}
		defer done()
		sum, events, rerr := readRun(store, arg)
		if rerr == nil {
			return paintedGraph(sum, events)
		}
		if !errors.Is(rerr, runstore.ErrNoRun) {
			// A run that is there and does not read says why.
			return nil, rerr
		}
	}
	s, err := readSkill(arg)
	if err != nil {
		return nil, err
	}
	return graph.Build(s, selectorReturns), nil
}

// paintedGraph is the graph of a run's skill painted with its events.
func paintedGraph(sum *runstore.Summary, events []runstore.Event) (*graph.Graph, error) {
	s, err := readSkill(sum.Progress.SkillDir)
	if err != nil {
		return nil, fmt.Errorf("run %s: reading its skill: %w", sum.ID, err)
	}
	g := graph.Build(s, selectorReturns)
	g.Paint(events)
	return g, nil
}

// readRun reads the record of the run ref names: its status and events.
func readRun(store runstore.Store, ref string) (*runstore.Summary, []runstore.Event, error) {
	sum, err := store.Status(ref)
	if err != nil {
		return nil, nil, usageErr(err)
	}
	events, err := store.Events(ref)
	if err != nil {
		return nil, nil, usageErr(err)
	}
	return sum, events, nil
}

// selectorReturns reads the action ids selectNextAction can return, from
// its source, without running it.
func selectorReturns(o *plan.Orchestrator) []string {
	if o.Decision == nil {
		return nil
	}
	prog, err := jsstatic.Parse(o.Decision.Text)
	if err != nil {
		return nil
	}
	var ids []string
	for _, lit := range prog.FunctionReturns("selectNextAction").Strings {
		ids = append(ids, lit.Value)
	}
	return ids
}
