package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/skillkit/skillkit/internal/report"
)

func newReportCmd() *cobra.Command {
	var out string
	c := &cobra.Command{
		Use:   "report [RUN]",
		Short: "Write a run's report as one HTML page",
		Long: `report writes the report of a run as one self-contained HTML file: the
run's timeline (phases, steps, actions and agent calls, with their
durations and retries), the graph of what ran, the error that stopped it
with file:line and the end of its output, what each action changed in the
state, and what the agent calls cost where the agent says. The page loads
nothing (no network, no scripts), so it can be attached or mailed as it is.

RUN is a run id or a run folder; without it, the newest run of the
project. The page goes to report.html in the run folder unless --html
names another file; its path is printed.`,
		Example: `  skillkit report
  skillkit report 20261121-101500-ab12cd --html run.html`,
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
			sum, events, err := readRun(store, ref)
			if err != nil {
				return err
			}
			metrics, err := store.Metrics(ref)
			if err != nil {
				return usageErr(err)
			}
			r := report.Run{Summary: sum, Events: events, Metrics: metrics}
			// A skill moved or deleted since the run leaves the report
			// without its graph, not without a report.
			if r.Graph, err = paintedGraph(sum, events); err != nil {
				fmt.Fprintf(c.ErrOrStderr(), "skillkit: no graph in the report: %v\n", err)
			}
			var page bytes.Buffer
			if err := report.Write(&page, r); err != nil {
				return err
			}
			if out == "" {
				out = filepath.Join(sum.WorkDir, "report.html")
			}
			if err := os.WriteFile(out, page.Bytes(), 0o644); err != nil {
				return fmt.Errorf("writing the report: %w", err)
			}
			_, err = fmt.Fprintln(c.OutOrStdout(), out)
			return err
		}),
	}
	c.Flags().StringVar(&out, "html", "", "the file to write the page to (default report.html in the run folder)")
	return c
}
