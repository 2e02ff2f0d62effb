// Package memstore is a backend of runs kept in memory, for tests: the
// record lives as long as the Backend value, and the work dirs are folders
// under a base, since the steps of a run work in files. It is what a new
// backend is: one package that passes runstore/storetest.
package memstore

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/skillkit/skillkit/internal/proc"
	"github.com/skillkit/skillkit/internal/runstore"
)

// Backend keeps runs in memory.
type Backend struct {
	base string

	mu   sync.Mutex
	runs map[string]*run
}

var _ runstore.Backend = (*Backend)(nil)

// New returns an empty backend whose runs work under base/<skill>/<id>.
func New(base string) *Backend {
	return &Backend{base: base, runs: map[string]*run{}}
}

// Store returns the store of runs over b.
func (b *Backend) Store() runstore.Store { return runstore.NewStore(b, runstore.Options{}) }

// run is one run's record. Events and metrics are kept as their JSON, as
// a durable backend keeps them, so that nothing a writer holds aliases
// the record.
type run struct {
	id, work string
	started  time.Time
	events   [][]byte
	metrics  [][]byte
	logs     []runstore.LogLine

	token, holder string
	heartbeat     time.Time
	timeout       time.Duration
	// now is the holder's clock (runstore.ClaimOptions.Now).
	now func() time.Time
	// groups are the process groups of the holder's commands, true while
	// they run.
	groups map[int]bool
}

// Create records a new run and claims it.
func (b *Backend) Create(_ context.Context, n runstore.NewRun, co runstore.ClaimOptions) (*runstore.Claimed, error) {
	id := n.Start.RunID
	dir, err := runstore.NewRunDir(b.base, n)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, &runstore.WriteError{Err: fmt.Errorf("creating run: %w", err)}
	}
	if a, err := filepath.Abs(dir); err == nil {
		dir = a
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.runs[id]; ok {
		return nil, fmt.Errorf("creating run %s: %w", id, runstore.ErrExists)
	}
	r := &run{id: id, work: dir, started: n.Start.StartedAt, groups: map[int]bool{}}
	b.runs[id] = r
	return &runstore.Claimed{Handle: b.take(r, co), Key: id, WorkDir: dir}, nil
}

// take claims r for a new handle; b.mu is held.
func (b *Backend) take(r *run, co runstore.ClaimOptions) *handle {
	host := co.Host
	if host == "" {
		host = "memory"
	}
	r.token, r.holder = runstore.NewToken(), runstore.Holder(os.Getpid(), host)
	r.heartbeat, r.timeout, r.now = co.Now(), co.Timing().Timeout, co.Now
	return &handle{b: b, r: r, token: r.token}
}

// lease is r's claim as a claimant judges it; b.mu is held.
func (r *run) lease() runstore.Lease {
	return runstore.Lease{Holder: r.holder, Token: r.token, Heartbeat: r.heartbeat, Timeout: r.timeout}
}

// live reports whether r's claim is held and not stale; b.mu is held.
func (r *run) live() bool {
	return r.token != "" && !r.lease().Stale(time.Now())
}

// Claim claims run id: a stale claim is taken over, and the process
// groups its holder left running are killed.
func (b *Backend) Claim(_ context.Context, id string, co runstore.ClaimOptions) (*runstore.Claimed, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	r, err := b.get(id)
	if err != nil {
		return nil, err
	}
	if r.live() {
		return nil, r.lease().Claimed(id, r.started)
	}
	for pgid, on := range r.groups {
		if on {
			proc.KillGroup(pgid)
		}
	}
	clear(r.groups)
	return &runstore.Claimed{Handle: b.take(r, co), Key: id}, nil
}

// get is run id; b.mu is held.
func (b *Backend) get(id string) (*run, error) {
	r, ok := b.runs[id]
	if !ok {
		return nil, fmt.Errorf("finding run %q: %w with that id in memory", id, runstore.ErrNoRun)
	}
	return r, nil
}

// Locate finds a run by its id.
func (b *Backend) Locate(_ context.Context, ref string) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	_, err := b.get(ref)
	return ref, err
}

// List returns the ids of every run.
func (b *Backend) List(context.Context) ([]string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	ids := make([]string, 0, len(b.runs))
	for id := range b.runs {
		ids = append(ids, id)
	}
	return ids, nil
}

// ReadEvents implements runstore.Backend.
func (b *Backend) ReadEvents(_ context.Context, id string) (*runstore.Log, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	r, err := b.get(id)
	if err != nil {
		return nil, err
	}
	events, err := decode[runstore.Event](id, r.events)
	return &runstore.Log{Events: events}, err
}

// ReadMetrics implements runstore.Backend.
func (b *Backend) ReadMetrics(_ context.Context, id string) ([]runstore.Metric, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	r, err := b.get(id)
	if err != nil {
		return nil, err
	}
	return decode[runstore.Metric](id, r.metrics)
}

func decode[T any](id string, lines [][]byte) ([]T, error) {
	out := make([]T, len(lines))
	for i, l := range lines {
		if err := json.Unmarshal(l, &out[i]); err != nil {
			return nil, fmt.Errorf("run %s line %d: %w: %v", id, i+1, runstore.ErrCorrupt, err)
		}
	}
	return out, nil
}

// Holder implements runstore.Backend.
func (b *Backend) Holder(_ context.Context, id string) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if r, ok := b.runs[id]; ok && r.live() {
		return r.holder, nil
	}
	return "", nil
}

// WorkDir implements runstore.Backend: the recorded work dir, which is
// on this machine.
func (b *Backend) WorkDir(_ context.Context, id, recorded, _ string) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	r, err := b.get(id)
	if err != nil {
		return "", err
	}
	return cmp.Or(recorded, r.work), nil
}

// Where implements runstore.Backend.
func (b *Backend) Where(id string) string {
	if id == "" {
		return "in memory"
	}
	return "memory#" + id
}

// handle writes one claimed run.
type handle struct {
	b     *Backend
	r     *run
	token string
}

// held runs f on the run if the claim is still this handle's.
func (h *handle) held(f func(r *run) error) error {
	h.b.mu.Lock()
	defer h.b.mu.Unlock()
	if h.r.token != h.token {
		return fmt.Errorf("run %s: %w", h.r.id, runstore.ErrClaimLost)
	}
	return f(h.r)
}

// Append writes the batch at once, whatever the mode: memory is as
// durable as it gets.
func (h *handle) Append(_ context.Context, b runstore.Batch, _ runstore.Mode) error {
	var events, metrics [][]byte
	for _, e := range b.Events {
		data, err := json.Marshal(e)
		if err != nil {
			return fmt.Errorf("encoding event: %w", err)
		}
		events = append(events, data)
	}
	for _, m := range b.Metrics {
		data, err := json.Marshal(m)
		if err != nil {
			return fmt.Errorf("encoding metric: %w", err)
		}
		metrics = append(metrics, data)
	}
	return h.held(func(r *run) error {
		r.events = append(r.events, events...)
		r.metrics = append(r.metrics, metrics...)
		r.logs = append(r.logs, b.Logs...)
		return nil
	})
}

// Snapshot has nothing to do: memory derives nothing from the log.
func (h *handle) Snapshot(context.Context, *runstore.Progress) error { return nil }

// Verify implements runstore.Handle.
func (h *handle) Verify(context.Context) error { return h.held(func(*run) error { return nil }) }

// Heartbeat implements runstore.Handle.
func (h *handle) Heartbeat(context.Context) error {
	return h.held(func(r *run) error {
		r.heartbeat = r.now()
		return nil
	})
}

// Started implements runstore.Handle.
func (h *handle) Started(pgid int) {
	h.held(func(r *run) error {
		r.groups[pgid] = true
		return nil
	})
}

// Ended implements runstore.Handle.
func (h *handle) Ended(pgid int) {
	h.held(func(r *run) error {
		delete(r.groups, pgid)
		return nil
	})
}

// Release implements runstore.Handle: the holder's commands have ended,
// none is left to kill.
func (h *handle) Release(context.Context, bool) error {
	h.held(func(r *run) error {
		r.token, r.holder = "", ""
		clear(r.groups)
		return nil
	})
	return nil
}
