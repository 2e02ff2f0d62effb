package fsstore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"path/filepath"
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
	Files runstore.Files
}

// Backend is the filesystem backend: a run's key is its folder.
type Backend struct {
	o Options
}

var _ runstore.Backend = (*Backend)(nil)

// New returns the filesystem store under o.Base.
func New(o Options) runstore.Store {
	b := NewBackend(o)
	return runstore.NewStore(b, runstore.Options{Files: b.o.Files})
}

// NewBackend returns the filesystem backend under o.Base.
func NewBackend(o Options) *Backend {
	o.Base = cmp.Or(o.Base, ".")
	if o.Files == nil {
		o.Files = runstore.OS{}
	}
	return &Backend{o: o}
}

// RunsRoot is where runs live under a base folder: .skillkit/runs.
func RunsRoot(base string) string { return filepath.Join(base, ".skillkit", "runs") }

// Root is the backend's runs root.
func (b *Backend) Root() string { return RunsRoot(b.o.Base) }

// Create makes the run's folder (the work dir given, or
// .skillkit/runs/<skill>/<id>) and claims it. A folder that already holds
// a run is refused, after the claim, so that of two runs started in one
// folder the loser writes nothing.
func (b *Backend) Create(_ context.Context, n runstore.NewRun, co runstore.ClaimOptions) (*runstore.Claimed, error) {
	dir, err := runstore.NewRunDir(b.Root(), n)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, &runstore.WriteError{Err: fmt.Errorf("creating run: %w", err)}
	}
	dir = abs(dir)
	c, _, err := acquire(b.o.Files, dir, co)
	if ce := (*runstore.ClaimedError)(nil); errors.As(err, &ce) {
		// Another run is starting or running there: this one is a
		// mistake of the user's, not a run to wait for.
		return nil, fmt.Errorf("creating run in %s: %w: %w", dir, runstore.ErrExists, err)
	}
	if err != nil {
		return nil, err
	}
	if _, err := readLog(dir); !errors.Is(err, runstore.ErrNoRun) {
		c.release(false)
		return nil, fmt.Errorf("creating run in %s: the folder already holds a run; resume it with --resume %s: %w", dir, dir, runstore.ErrExists)
	}
	if n.Workspace {
		// The folders are the layout's mark: whoever reads or resumes the
		// run finds its threads and metrics by them.
		for _, sub := range []string{WorkspaceThreads, WorkspaceMetrics} {
			if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
				c.release(false)
				return nil, &runstore.WriteError{Err: fmt.Errorf("creating run: %w", err)}
			}
		}
	}
	return &runstore.Claimed{Handle: b.open(dir, c, true), Key: dir, WorkDir: dir}, nil
}

func (b *Backend) open(dir string, c *claim, created bool) *handle {
	return &handle{dir: dir, layout: layoutOf(dir), files: b.o.Files, durable: !b.o.NoSync, claim: c, created: created, logs: map[string]*os.File{}}
}

// layout is where a run folder keeps its checkpoints and metrics,
// relative to it: threads/ and metrics.jsonl at the top, or, for a skill
// with a worker.yaml, the worker lifecycle specification's
// workspace/threads/ and workspace/metrics/metrics.jsonl.
type layout struct {
	threads, metrics string
}

// layoutOf reads a run folder's layout from its workspace/threads folder,
// which Create makes for a run that asks for it.
func layoutOf(dir string) layout {
	if fi, err := os.Stat(filepath.Join(dir, WorkspaceThreads)); err == nil && fi.IsDir() {
		return layout{threads: WorkspaceThreads, metrics: filepath.Join(WorkspaceMetrics, MetricsFile)}
	}
	return layout{threads: ThreadsDir, metrics: MetricsFile}
}

// Claim claims the run folder key, clears what a killed writer left
// half-written, and gets the checkpoints threads/ lacks from the log.
func (b *Backend) Claim(_ context.Context, key string, co runstore.ClaimOptions) (*runstore.Claimed, error) {
	c, fresh, err := acquire(b.o.Files, key, co)
	if err != nil {
		return nil, err
	}
	// Not claim.json's: a process losing the race for the claim may be
	// linking its own temporary claim file right now.
	runstore.RemoveTemps(key, runstore.StateFile, ProgressFile)
	runstore.RemoveTemps(filepath.Join(key, layoutOf(key).threads))
	h := b.open(key, c, false)
	log, err := readLog(key)
	if err == nil {
		var rep *runstore.Replayed
		if rep, err = runstore.Replay(key, log.Events, countThreads(key)); err == nil {
			h.threads = rep.Checkpoints
		}
	}
	if err != nil {
		c.release(false)
		return nil, err
	}
	return &runstore.Claimed{Handle: h, Key: key, Fresh: fresh}, nil
}

// ReadEvents implements runstore.Backend.
func (b *Backend) ReadEvents(_ context.Context, key string) (*runstore.Log, error) {
	return readLog(key)
}

// ReadMetrics implements runstore.Backend.
func (b *Backend) ReadMetrics(_ context.Context, key string) ([]runstore.Metric, error) {
	ms, err := readLines[runstore.Metric](filepath.Join(key, layoutOf(key).metrics))
	if err != nil || len(ms) == 0 {
		return ms, err
	}
	// Their run is the folder's, written on the first line of its log
	// only (Append).
	id := firstRun(key)
	for i := range ms {
		if ms[i].Run == "" {
			ms[i].Run = id
		}
	}
	return ms, nil
}

// Holder implements runstore.Backend: claim.json's holder, if it is live.
func (b *Backend) Holder(_ context.Context, key string) (string, error) {
	if c, err := readClaim(key); err == nil && !c.Stale(time.Now()) {
		return c.Holder(), nil
	}
	return "", nil
}

// WorkDir implements runstore.Backend: a run works where its start says,
// its folder in logs older than that.
func (b *Backend) WorkDir(_ context.Context, key, recorded, _ string) (string, error) {
	return cmp.Or(recorded, key), nil
}

// Where implements runstore.Backend.
func (b *Backend) Where(key string) string {
	if key == "" {
		return "under " + b.Root()
	}
	return key
}

// List returns the run folders under the runs root.
func (b *Backend) List(context.Context) ([]string, error) {
	logs, err := filepath.Glob(filepath.Join(b.Root(), "*", "*", EventsFile))
	if err != nil {
		return nil, fmt.Errorf("listing runs: %w", err)
	}
	for i, f := range logs {
		logs[i] = filepath.Dir(f)
	}
	return logs, nil
}

// Locate finds a run from what a user typed: a run folder, or a run id
// under the runs root.
func (b *Backend) Locate(_ context.Context, ref string) (string, error) {
	if _, err := os.Stat(filepath.Join(ref, EventsFile)); err == nil {
		return abs(ref), nil
	}
	root := b.Root()
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

// countThreads returns the highest checkpoint number in the run's threads
// folder.
func countThreads(dir string) int {
	entries, _ := os.ReadDir(filepath.Join(dir, layoutOf(dir).threads))
	n := 0
	for _, e := range entries {
		if i, err := strconv.Atoi(strings.TrimSuffix(e.Name(), ".json")); err == nil && i > n {
			n = i
		}
	}
	return n
}
