package runstore

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// Summary is what `skillkit status` and `skillkit runs` show of a run.
type Summary struct {
	ID    string `json:"id"`
	Skill string `json:"skill"`
	Dir   string `json:"dir"`
	// State is the run state as a reader should see it: a run marked
	// running whose claim is gone or stale shows as interrupted.
	State     string `json:"state"`
	StepsDone int    `json:"stepsDone"`
	// Holder is the live claim's pid@host, empty when nobody runs it.
	Holder   string   `json:"holder,omitempty"`
	Progress Progress `json:"progress"`
}

// Status reads the run in dir without changing anything.
func Status(dir string) (*Summary, error) {
	p, err := ReadProgress(dir)
	if err != nil {
		return nil, err
	}
	s := &Summary{ID: p.RunID, Skill: p.Skill, Dir: dir, State: p.RunState, StepsDone: len(p.CompletedSteps), Progress: *p}
	if c, err := ReadClaim(dir); err == nil && !c.Stale(time.Now()) {
		s.Holder = c.Holder()
	}
	if !Terminal(s.State) && s.State != RunPending && s.Holder == "" {
		s.State = RunInterrupted
	}
	return s, nil
}

// List returns the runs under root (.skillkit/runs), newest first. Folders
// that hold no run are passed over.
func List(root string) ([]*Summary, error) {
	dirs, err := filepath.Glob(filepath.Join(root, "*", "*", ProgressFile))
	if err != nil {
		return nil, fmt.Errorf("listing runs: %w", err)
	}
	var out []*Summary
	for _, f := range dirs {
		s, err := Status(filepath.Dir(f))
		if err != nil {
			continue
		}
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b *Summary) int {
		return cmp.Or(b.Progress.StartedAt.Compare(a.Progress.StartedAt), strings.Compare(b.ID, a.ID))
	})
	return out, nil
}

// Locate finds a run from what a user typed: a run directory, or a run id
// under the runs root of base. An empty ref means the newest run.
func Locate(base, ref string) (string, error) {
	if ref != "" {
		if _, err := os.Stat(filepath.Join(ref, ProgressFile)); err == nil {
			return ref, nil
		}
	}
	root := RunsRoot(base)
	if ref == "" {
		runs, err := List(root)
		if err != nil {
			return "", err
		}
		if len(runs) == 0 {
			return "", fmt.Errorf("finding the newest run: %w under %s", ErrNoRun, root)
		}
		return runs[0].Dir, nil
	}
	matches, err := filepath.Glob(filepath.Join(root, "*", ref, ProgressFile))
	if err != nil {
		return "", fmt.Errorf("finding run %q: %w", ref, err)
	}
	switch len(matches) {
	case 0:
		if _, err := os.Stat(ref); err == nil || !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("finding run %q: %w in that folder", ref, ErrNoRun)
		}
		return "", fmt.Errorf("finding run %q: %w with that id under %s", ref, ErrNoRun, root)
	case 1:
		return filepath.Dir(matches[0]), nil
	}
	return "", fmt.Errorf("finding run %q: %d runs have that id; name the folder", ref, len(matches))
}

// WriteStatus prints a run's status for a person.
func WriteStatus(w io.Writer, s *Summary) error {
	p := &s.Progress
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "run:\t%s\n", s.ID)
	fmt.Fprintf(tw, "skill:\t%s\n", s.Skill)
	fmt.Fprintf(tw, "dir:\t%s\n", s.Dir)
	state := s.State
	if s.Holder != "" {
		state += " (claimed by " + s.Holder + ")"
	} else if s.State == RunInterrupted {
		state += " (resume with --resume " + s.ID + ")"
	}
	fmt.Fprintf(tw, "state:\t%s\n", state)
	fmt.Fprintf(tw, "steps:\t%d/%d\n", s.StepsDone, p.TotalSteps)
	if !Terminal(s.State) && p.CurrentStep != "" {
		fmt.Fprintf(tw, "current:\t%s\n", p.CurrentStep)
	}
	if l := p.Loop; l != nil {
		writeLoop(tw, l, Terminal(s.State))
	}
	fmt.Fprintf(tw, "started:\t%s\n", p.StartedAt.Local().Format(time.DateTime))
	if p.CompletedAt != nil {
		fmt.Fprintf(tw, "finished:\t%s (%s)\n", p.CompletedAt.Local().Format(time.DateTime), p.CompletedAt.Sub(p.StartedAt).Round(time.Millisecond))
	}
	if p.LastAction != "" {
		fmt.Fprintf(tw, "last:\t%s\n", p.LastAction)
	}
	if e := p.Error; e != nil {
		fmt.Fprintf(tw, "error:\t%s: %s\n", e.Step, e.Message)
		for _, d := range e.Diagnostics {
			fmt.Fprintf(tw, "\t  %s\n", d)
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
