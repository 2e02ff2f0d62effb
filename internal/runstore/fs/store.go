package fs

import (
	"cmp"
	"errors"
	"fmt"
	iofs "io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/skillkit/skillkit/internal/runstore"
)

// Options configure the filesystem store.
type Options struct {
	// Base is the folder whose .skillkit/runs holds the runs; empty is
	// the current directory.
	Base string
	// NoSync skips the fsyncs: faster, and still safe against a killed
	// process, but not against a power loss. Tests use it.
	NoSync bool
	// Files is how the store writes; nil is the operating system's.
	Files Files
}

// Store is the filesystem store.
type Store struct {
	o Options
}

var _ runstore.Store = (*Store)(nil)

// New returns the filesystem store under o.Base.
func New(o Options) *Store {
	if o.Base == "" {
		o.Base = "."
	}
	if o.Files == nil {
		o.Files = OS{}
	}
	return &Store{o: o}
}

// RunsRoot is where runs live under a base folder: .skillkit/runs.
func RunsRoot(base string) string { return filepath.Join(base, ".skillkit", "runs") }

// Root is the store's runs root.
func (s *Store) Root() string { return RunsRoot(s.o.Base) }

// Create makes the run's folder (the work dir given, or
// .skillkit/runs/<skill>/<id>), claims it, and records the run's start.
// A folder that already holds a run is refused, after the claim, so that
// of two runs started in one folder the loser writes nothing.
func (s *Store) Create(n runstore.NewRun, co runstore.ClaimOptions) (runstore.Run, error) {
	dir := n.WorkDir
	if dir == "" {
		var err error
		if dir, err = runstore.DirUnder(s.Root(), n.Start.Skill, n.Start.RunID); err != nil {
			return nil, fmt.Errorf("creating run: %w", err)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, &runstore.WriteError{Err: fmt.Errorf("creating run: %w", err)}
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	c, _, err := acquire(s.o.Files, dir, co)
	if ce := (*runstore.ClaimedError)(nil); errors.As(err, &ce) {
		// Another run is starting or running there: this one is a
		// mistake of the user's, not a run to wait for.
		return nil, fmt.Errorf("creating run in %s: %w: %w", dir, runstore.ErrExists, err)
	}
	if err != nil {
		return nil, err
	}
	if _, err := readRecord(dir, 0); !errors.Is(err, runstore.ErrNoRun) {
		c.release(false)
		return nil, fmt.Errorf("creating run in %s: the folder already holds a run; resume it with --resume %s: %w", dir, dir, runstore.ErrExists)
	}
	r := s.open(dir, c)
	start := n.Start
	start.WorkDir = dir
	r.SetState(n.State)
	// state.json exists before the record does, so that a run that exists
	// always has one a step can read, even right after a kill.
	if err := r.Flush(); err != nil {
		r.Close()
		return nil, err
	}
	if err := r.Commit(runstore.Event{Time: start.StartedAt, To: string(runstore.RunPending), Detail: start.Skill, Start: &start}); err != nil {
		r.Close()
		return nil, err
	}
	if !s.o.NoSync {
		// The log is new: its folder entry must survive a power loss too.
		if err := syncDir(dir); err != nil {
			r.Close()
			return nil, &runstore.WriteError{Err: err}
		}
	}
	return r, nil
}

func (s *Store) open(dir string, c *claim) *run {
	return &run{dir: dir, work: dir, files: s.o.Files, durable: !s.o.NoSync, claim: c, logs: map[string]*os.File{}}
}

// Resume claims the run ref names, replays its log and brings its
// snapshots up to date.
func (s *Store) Resume(ref string, o runstore.ResumeOptions) (runstore.Run, error) {
	dir, err := s.Locate(ref)
	if err != nil {
		return nil, err
	}
	if _, err := readRecord(dir, math.MaxInt); err != nil {
		return nil, err
	}
	c, fresh, err := acquire(s.o.Files, dir, o.Claim)
	if err != nil {
		return nil, err
	}
	// Read again under the claim: a holder that finished just before is
	// seen as finished.
	rec, err := readRecord(dir, countThreads(dir))
	if err != nil {
		c.release(false)
		return nil, err
	}
	p := rec.progress
	if p.RunState.Terminal() && !(o.Retry && p.RunState.Retryable()) {
		c.release(false)
		hint := ""
		if p.RunState.Retryable() {
			hint = "; after a fix, run it again from where it stopped with --retry"
		}
		return nil, fmt.Errorf("resuming run %s: it is %s: %w%s", p.RunID, p.RunState, runstore.ErrTerminal, hint)
	}
	if fresh && p.RunState == runstore.RunRunning {
		// A run left running holds a claim until its holder closes it
		// or dies; none means claim.json was deleted, maybe under a
		// live holder. Wait until such a holder's heartbeat has seen
		// this claim, given up the run and killed its commands, rather
		// than run its step beside it.
		time.Sleep(2 * c.every)
		if err := c.verify(); err != nil {
			c.release(false)
			return nil, err
		}
	}
	// Not claim.json's: a process losing the race for the claim may be
	// linking its own temporary claim file right now.
	removeTemps(dir, StateFile, ProgressFile)
	removeTemps(filepath.Join(dir, ThreadsDir))
	r := s.open(dir, c)
	r.work = cmp.Or(rec.workDir, dir)
	r.progress, r.state, r.threads, r.taken = p, rec.state, rec.checkpoints, rec.taken
	r.stale, r.moved = true, true
	if rec.tornAt > 0 {
		r.notes = append(r.notes, fmt.Sprintf("%s:%d: the last line was cut short (the run was killed while writing it); it is ignored", filepath.Join(dir, EventsFile), rec.tornAt))
	}
	r.mu.Lock()
	err = r.flush(true)
	r.mu.Unlock()
	if err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// Status reads the run ref names without changing anything.
func (s *Store) Status(ref string) (*runstore.Summary, error) {
	dir, err := s.Locate(ref)
	if err != nil {
		return nil, err
	}
	return status(dir)
}

func status(dir string) (*runstore.Summary, error) {
	rec, err := readRecord(dir, math.MaxInt)
	if err != nil {
		return nil, err
	}
	p := rec.progress
	sum := &runstore.Summary{ID: p.RunID, Skill: p.Skill, Dir: dir, State: p.RunState, StepsDone: p.StepsDone(), Progress: p,
		WorkDir: cmp.Or(rec.workDir, dir), LastState: rec.state}
	if c, err := readClaim(dir); err == nil && !c.Stale(time.Now()) {
		sum.Holder = c.Holder()
	}
	if !sum.State.Terminal() && sum.State != runstore.RunPending && sum.Holder == "" {
		sum.State = runstore.RunInterrupted
	}
	return sum, nil
}

// List returns the runs under the runs root, newest first. Folders that
// hold no run are passed over.
func (s *Store) List() ([]*runstore.Summary, error) {
	logs, err := filepath.Glob(filepath.Join(s.Root(), "*", "*", EventsFile))
	if err != nil {
		return nil, fmt.Errorf("listing runs: %w", err)
	}
	var out []*runstore.Summary
	for _, f := range logs {
		sum, err := status(filepath.Dir(f))
		if err != nil {
			continue
		}
		out = append(out, sum)
	}
	slices.SortFunc(out, func(a, b *runstore.Summary) int {
		return cmp.Or(b.Progress.StartedAt.Compare(a.Progress.StartedAt), strings.Compare(b.ID, a.ID))
	})
	return out, nil
}

// Locate finds a run from what a user typed: a run folder, or a run id
// under the runs root. An empty ref means the newest run.
func (s *Store) Locate(ref string) (string, error) {
	if ref != "" {
		if _, err := os.Stat(filepath.Join(ref, EventsFile)); err == nil {
			return abs(ref), nil
		}
	}
	root := s.Root()
	if ref == "" {
		runs, err := s.List()
		if err != nil {
			return "", err
		}
		if len(runs) == 0 {
			return "", fmt.Errorf("finding the newest run: %w under %s", runstore.ErrNoRun, root)
		}
		return runs[0].Dir, nil
	}
	matches, err := filepath.Glob(filepath.Join(root, "*", ref, EventsFile))
	if err != nil {
		return "", fmt.Errorf("finding run %q: %w", ref, err)
	}
	switch len(matches) {
	case 0:
		if _, err := os.Stat(ref); err == nil || !errors.Is(err, iofs.ErrNotExist) {
			return "", fmt.Errorf("finding run %q: %w in that folder", ref, runstore.ErrNoRun)
		}
		return "", fmt.Errorf("finding run %q: %w with that id under %s", ref, runstore.ErrNoRun, root)
	case 1:
		return abs(filepath.Dir(matches[0])), nil
	}
	return "", fmt.Errorf("finding run %q: %d runs have that id; name the folder", ref, len(matches))
}

func abs(dir string) string {
	if a, err := filepath.Abs(dir); err == nil {
		return a
	}
	return dir
}

// countThreads returns the highest checkpoint number in threads/.
func countThreads(dir string) int {
	entries, _ := os.ReadDir(filepath.Join(dir, ThreadsDir))
	n := 0
	for _, e := range entries {
		if i, err := strconv.Atoi(strings.TrimSuffix(e.Name(), ".json")); err == nil && i > n {
			n = i
		}
	}
	return n
}
