package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/skillkit/skillkit/graph"
	"github.com/skillkit/skillkit/internal/jsstatic"
	"github.com/skillkit/skillkit/plan"
)

func newGraphCmd() *cobra.Command {
	var format string
	c := &cobra.Command{
		Use:   "graph SKILL",
		Short: "Draw a skill's phase flow or action graph",
		Long: `graph draws the phase flow of a sequential skill (in order, following Next
Phase links), the action graph of an autonomous skill (edges from the
catalog's mermaid graph, the Next Actions hints and the ids selectNextAction
can return, labelled with the target's preconditions), and both for a hybrid
skill. Mermaid output renders on GitHub as it is; dot is for Graphviz.`,
		Example: `  skillkit graph examples/autonomous
  skillkit graph examples/hybrid --format dot | dot -Tsvg > hybrid.svg`,
		Args: cobra.ExactArgs(1),
		RunE: runE(func(c *cobra.Command, args []string) error {
			if format != "mermaid" && format != "dot" {
				return usageErr(fmt.Errorf("--format %q: want mermaid or dot", format))
			}
			s, err := readSkill(args[0])
			if err != nil {
				return err
			}
			g := graph.Build(s, selectorReturns)
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
