package runstore

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"text/tabwriter"
	"time"
)

// WriteStatus prints a run's status for a person.
func WriteStatus(w io.Writer, s *Summary) error {
	p := &s.Progress
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "run:\t%s\n", s.ID)
	fmt.Fprintf(tw, "skill:\t%s\n", s.Skill)
	fmt.Fprintf(tw, "dir:\t%s\n", s.Dir)
	if threads := filepath.Join(s.Dir, WorkspaceThreads); isDir(threads) {
		// The worker lifecycle's layout (a skill with a worker.yaml): its
		// threads and metrics are not where other runs keep them.
		fmt.Fprintf(tw, "threads:\t%s\n", threads)
		fmt.Fprintf(tw, "metrics:\t%s\n", filepath.Join(s.Dir, WorkspaceMetrics, MetricsFile))
	}
	state := string(s.State)
	if s.Holder != "" {
		state += " (claimed by " + s.Holder + ")"
	} else if s.State == RunInterrupted {
		state += " (resume with --resume " + s.ID + ")"
	}
	fmt.Fprintf(tw, "state:\t%s\n", state)
	fmt.Fprintf(tw, "steps:\t%d/%d\n", s.StepsDone, p.TotalSteps)
	if !s.State.Terminal() && p.CurrentStep > 0 {
		fmt.Fprintf(tw, "current:\t%d (%s)\n", p.CurrentStep, p.Phase)
	}
	if l := p.Loop; l != nil {
		writeLoop(tw, l, s.State.Terminal())
	}
	fmt.Fprintf(tw, "started:\t%s\n", p.StartedAt.Local().Format(time.DateTime))
	if p.CompletedAt != nil {
		fmt.Fprintf(tw, "finished:\t%s (%s)\n", p.CompletedAt.Local().Format(time.DateTime), p.CompletedAt.Sub(p.StartedAt).Round(time.Millisecond))
	}
	if p.LastAction != "" {
		fmt.Fprintf(tw, "last:\t%s\n", p.LastAction)
	}
	if e := p.Error; e != nil {
		fmt.Fprintf(tw, "error:\t%s: %s\n", e.ID, e.Message)
		for _, l := range e.Diagnostics.Lines() {
			fmt.Fprintf(tw, "\t  %s\n", l)
		}
	}
	return tw.Flush()
}

// WriteRuns prints a table of runs for a person.
func WriteRuns(w io.Writer, runs []*Summary) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tSKILL\tSTATE\tSTEPS\tSTARTED")
	for _, s := range runs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d/%d\t%s\n", s.ID, s.Skill, s.State, s.StepsDone, s.Progress.TotalSteps,
			s.Progress.StartedAt.Local().Format(time.DateTime))
	}
	return tw.Flush()
}

// writeLoop prints where the autonomous loop stands: the action running,
// the iteration, the actions done and the errors.
func writeLoop(w io.Writer, l *Loop, done bool) {
	if !done && l.CurrentAction != "" {
		fmt.Fprintf(w, "action:\t%s\n", l.CurrentAction)
	}
	fmt.Fprintf(w, "iteration:\t%d/%d\n", l.Iteration, l.MaxIterations)
	fmt.Fprintf(w, "actions done:\t%d", l.Completed)
	if l.LastAction != "" {
		fmt.Fprintf(w, " (last: %s)", l.LastAction)
	}
	fmt.Fprintf(w, "\nerrors:\t%d\n", l.ErrorCount)
}

// isDir reports whether path is a folder; a run kept in a database has
// none.
func isDir(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}
