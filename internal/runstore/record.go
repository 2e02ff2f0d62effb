package runstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sync"
	"time"
)

// Snapshots (state.json, the filesystem's skill-state.yaml and threads/)
// are written at phase ends, when something of the skill runs (state.json,
// Flush), at the run's end, and during a run once SnapshotEvery passed
// and the commits since the last reach SnapshotGrowth-1 times the steps
// recorded before them, or once SnapshotLongest passed. Rewriting them
// after every step would make a long run quadratic (its list of completed
// steps and its state grow) and cost a file replacement per step; paced
// so, a snapshot of n steps spreads over the commits since the last, so
// the bytes written per step stay flat. Each snapshot is about
// SnapshotGrowth times the last, and their sum SnapshotGrowth/
// (SnapshotGrowth-1) times the final one: with 2 (the snapshots doubling)
// their sum was twice the last, a fifth of what a no-op loop wrote per
// iteration; 3 makes it 1.5 times. A phase's end is judged by
// SnapshotShare instead: its snapshot is due once the commits since the
// last reach 1/SnapshotShare of the steps recorded, so that a skill of a
// few phases gets one at each.
const (
	SnapshotEvery   = 200 * time.Millisecond
	SnapshotGrowth  = 3
	SnapshotShare   = 2
	SnapshotLongest = 10 * time.Second
)

// Record is one claimed run's record over a backend's Handle: it keeps
// the run's progress and state, stamps events, carries the state and
// checkpoint marks into the next event, writes state.json, runs the
// claim's heartbeat and says when the claim is lost. It is the Run of
// every store.
type Record struct {
	// ctx is the context of the backend's calls: the Run interface has
	// none, and a write must not be cut short half-way by the run's
	// cancellation (the record would miss the run's last transition).
	ctx   context.Context
	h     Handle
	files Files
	id    string
	where string
	work  string
	notes []string

	mu       sync.Mutex
	progress Progress
	state    map[string]any
	// logged is the state as the log has it, which the next event's
	// patch starts from: nil before the log holds one. A state is
	// replaced, never changed in place, so the two share what did not
	// change.
	logged map[string]any
	// pending is a state set and not yet in the log; stale says
	// state.json is behind the state.
	pending, stale bool
	// held is the newest paced checkpoint (Event.Paced) not yet handed
	// to the backend, of state heldState: the next snapshot writes it.
	held      *Checkpoint
	heldState map[string]any
	// mark is a checkpoint waiting for the next event; taken counts the
	// checkpoints, so that they number on.
	mark  *Mark
	taken int
	// marked is the worker of the last mark written: the next one, of
	// the same worker, is written implied (Mark.implies).
	marked Worker
	// loaded is the last action loaded: its completion's record and
	// mark leave out what it says (Event.Done, Mark.timed). titles are
	// the titles of the actions' loading lines written, which the next
	// leave out when they are the same.
	loaded loaded
	titles map[string]string
	// snapped is when the backend's snapshots were last brought up to
	// date, commits how many durable commits were made since.
	snapped time.Time
	commits int
	// behind is set when events were recorded since the last snapshot,
	// and until the first (a run resumed after a kill may lack some).
	behind bool
	// owed says a commit was recorded without its sync (CommitLater): the
	// next write that waits makes it durable.
	owed bool
	// piped says the last write that waited was a Pipelined commit,
	// whose sync may be under way: the next settle waits for it.
	piped bool
	// closed says Close released the run: every write after it is
	// refused (ErrClosed), as the backend's handle is no longer the run's.
	closed bool

	lost       chan struct{}
	loseOnce   sync.Once
	stop, done chan struct{}
	closeOnce  sync.Once
}

var _ Run = (*Record)(nil)

// open makes the record of a claimed run and starts its heartbeat.
func open(ctx context.Context, files Files, c *Claimed, id, where, work string, every time.Duration) *Record {
	r := &Record{ctx: ctx, h: c.Handle, files: files, id: id, where: where, work: work, behind: true,
		lost: make(chan struct{}), stop: make(chan struct{}), done: make(chan struct{})}
	go r.beat(every)
	return r
}

// ID implements Run.
func (r *Record) ID() string { return r.id }

// WorkDir implements Run.
func (r *Record) WorkDir() string { return r.work }

// Where implements Run.
func (r *Record) Where() string { return r.where }

// Notes implements Run.
func (r *Record) Notes() []string { return r.notes }

// Lost implements Run.
func (r *Record) Lost() <-chan struct{} { return r.lost }

// Started implements Run: the backend records the group.
func (r *Record) Started(pgid int) { r.h.Started(pgid) }

// Ended implements Run.
func (r *Record) Ended(pgid int) { r.h.Ended(pgid) }

// Progress implements Run.
func (r *Record) Progress() Progress {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.progress.Clone()
}

// State implements Run.
func (r *Record) State() map[string]any {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.state
}

// SetState implements Run.
func (r *Record) SetState(state map[string]any) {
	if state == nil {
		state = map[string]any{}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.state = state
	r.pending, r.stale = true, true
}

// Checkpoint implements Run.
func (r *Record) Checkpoint(hook string, w Worker) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.mark = &Mark{Hook: hook, Worker: w}
	return nil
}

// Append implements Run.
func (r *Record) Append(e Event) error { return r.record(e, Buffered) }

// Commit implements Run.
func (r *Record) Commit(e Event) error { return r.record(e, Durable) }

// CommitLater implements Run: the event is written at once (Visible: a
// killed process keeps it, and a store that writes in transactions
// commits it), and counts as a commit for the snapshots' pace; only its
// sync waits. Its claim is checked at the commit that follows, as that
// of the events inside a group is.
func (r *Record) CommitLater(e Event) error { return r.record(e, owed) }

// CommitPipelined implements Run: the backend is asked for Pipelined.
func (r *Record) CommitPipelined(e Event) error { return r.record(e, Pipelined) }

// owed is the mode of a commit whose sync waits (CommitLater); the
// backend is asked for Visible.
const owed Mode = -1

// record writes e with the state and checkpoint waiting for it, and
// applies it to the progress once it is written.
func (r *Record) record(e Event, mode Mode) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return r.errClosed()
	}
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	if e.Run == "" {
		e.Run = r.id
	}
	b := Batch{}
	if r.pending {
		if err := r.change(&e); err != nil {
			return err
		}
	}
	var held *Checkpoint
	if m := r.mark; m != nil {
		e.Checkpoint = m
		if m.implies(&e, r.marked) {
			im := *m
			im.implied = true
			w := m.Worker
			im.timed = r.loaded.of(&e) && w.StartedAt.Equal(r.loaded.at) && w.CompletedAt != nil && w.CompletedAt.Equal(e.Time)
			e.Checkpoint = &im
		}
		c := Checkpoint{N: r.taken + 1, Time: e.Time, Hook: m.Hook, Worker: m.Worker}
		if e.Paced() {
			// One per action of a loop: encoding the state for each
			// would cost the state's size per iteration. The log has
			// it; threads/ gets the newest at the next snapshot.
			held = &c
		} else {
			st, err := json.Marshal(r.state)
			if err != nil {
				return fmt.Errorf("encoding state: %w", err)
			}
			c.State = st
			b.Checkpoints = []Checkpoint{c}
		}
	}
	if e.Level() == LevelRun && RunState(e.To).Terminal() {
		// A finished run is never resumed, so nothing would rebuild its
		// snapshots after a kill: write them, as they will be, before the
		// record says it finished. A kill in between leaves a run that
		// resumes and finishes again.
		// The claim is verified first: a process that lost it writes no
		// snapshot of the holder's run.
		if err := r.h.Verify(r.ctx); err != nil {
			r.noteLost(err)
			return err
		}
		p := r.progress.Clone()
		p.Apply(&e)
		if err := r.snapshot(&p); err != nil {
			return err
		}
	}
	logged := e
	if e.Record != nil && r.loaded.implies(&e, e.Record) {
		// Most of a loop's completion line was its record, which says
		// again what the action's loading line said.
		logged.Record, logged.Done = nil, true
	}
	if loading(&e) {
		if e.From == "idle" {
			logged.From = ""
		}
		if t, ok := r.titles[e.Action]; ok && t == e.Detail {
			logged.Detail = ""
		}
	}
	b.Events = []Event{logged}
	write := mode
	if mode == owed {
		write = Visible
	}
	if err := r.append(b, write); err != nil {
		return err
	}
	r.loaded.see(&e)
	if loading(&e) {
		if r.titles == nil {
			r.titles = map[string]string{}
		}
		r.titles[e.Action] = e.Detail
	}
	// The snapshot of a finished run was written as it is now.
	r.behind = !(e.Level() == LevelRun && RunState(e.To).Terminal())
	if r.pending {
		r.logged, r.pending = r.state, false
	}
	if r.mark != nil {
		r.taken++
		r.marked, r.mark = r.mark.Worker, nil
	}
	if held != nil {
		r.held, r.heldState = held, r.state
	}
	r.progress.Apply(&e)
	if mode == owed {
		r.owed = true
	}
	if mode == Durable || mode == owed || mode == Pipelined {
		r.commits++
		if r.due(&e) {
			return r.flush(true)
		}
	}
	return nil
}

// due reports whether the snapshots are to be written after committing e:
// at a phase's end, and as paced. An error's are written when its hooks
// run a command (Flush) and when it ends the run; until then state.json
// keeps its last content, not the refused update's.
//
// A phase's end waits for the share too, though not for SnapshotEvery: a
// skill of many short phases rewrote its whole progress at each (F10: the
// snapshot was 62% of a 3,000-phase run, and the pace fell as it grew),
// while a skill of a few phases, whose phases each hold more than a
// share of its steps, still gets one at every phase's end.
func (r *Record) due(e *Event) bool {
	if e.Level() == LevelPhase && e.To == "completed" && r.progress.Phases > 0 && len(r.progress.CompletedPhases) >= r.progress.Phases {
		// The run's last phase: the run ends next, and its snapshot,
		// written then, is the whole run's.
		return false
	}
	steps := r.progress.CompletedSteps.Len()
	since := time.Since(r.snapped)
	if e.Level() == LevelPhase && (e.To == "completed" || e.To == "failed") {
		return r.commits*SnapshotShare >= steps || since >= SnapshotLongest
	}
	grown := r.commits >= (SnapshotGrowth-1)*(steps-r.commits)
	return since >= SnapshotLongest || since >= SnapshotEvery && grown
}

// change records in e the state set since the last event: whole on the
// first event that records one, else as a patch from the logged state.
func (r *Record) change(e *Event) error {
	if r.logged == nil {
		st, err := json.Marshal(r.state)
		if err != nil {
			return fmt.Errorf("encoding state: %w", err)
		}
		e.State = st
		return nil
	}
	p, err := Diff(r.logged, r.state)
	if err != nil {
		return err
	}
	e.Patch = p
	return nil
}

// append hands b to the backend, and notes a claim it says is lost.
// A write that waits (Visible) makes an owed commit durable: it is made
// before anything of the skill runs (Flush, Settle), and when the run
// closes. A Pipelined one makes it durable too, with its own.
func (r *Record) append(b Batch, mode Mode) error {
	if r.closed {
		return r.errClosed()
	}
	if mode == Visible && r.owed {
		mode = Durable
	}
	err := r.h.Append(r.ctx, b, mode)
	r.noteLost(err)
	if err == nil && (mode == Durable || mode == Pipelined) {
		r.owed = false
	}
	if err == nil && mode != Buffered {
		r.piped = mode == Pipelined
	}
	return err
}

// errClosed is the error of a write after Close.
func (r *Record) errClosed() error { return fmt.Errorf("run %s: %w", r.id, ErrClosed) }

func (r *Record) noteLost(err error) {
	if errors.Is(err, ErrClaimLost) {
		r.loseOnce.Do(func() { close(r.lost) })
	}
}

// Metric implements Run.
func (r *Record) Metric(m Metric) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if m.Time.IsZero() {
		m.Time = time.Now()
	}
	if m.Run == "" {
		m.Run = r.id
	}
	return r.append(Batch{Metrics: []Metric{m}}, Buffered)
}

// Log implements Run.
func (r *Record) Log(name, text string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.append(Batch{Logs: []LogLine{{name, text}}}, Buffered)
}

// Flush implements Run: what waits is written, and state.json if it is
// behind, before a process of the skill starts. The backend's other
// snapshots wait for their time or the end.
func (r *Record) Flush() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.append(Batch{}, Visible); err != nil {
		return err
	}
	return r.flush(false)
}

// AgentCall implements Run: one event, written and synced at once
// (Durable), which also makes durable what waits before it (a commit
// owed, a pipelined one's sync, a database's buffered rows).
func (r *Record) AgentCall(c Conversation) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return r.errClosed()
	}
	e := Event{Time: time.Now(), Run: r.id, From: State(r.progress.RunState), To: AgentCallMark, Agent: &c}
	if err := r.append(Batch{Events: []Event{e}}, Durable); err != nil {
		return err
	}
	r.progress.Apply(&e)
	r.behind = true
	return nil
}

// Settle implements Run.
func (r *Record) Settle() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		// Nothing outside the record may happen for a run this process
		// no longer holds.
		return r.errClosed()
	}
	return r.settle()
}

// settle makes every commit recorded durable: an owed one's sync is
// made, a Pipelined one's waited for. With neither, it writes nothing: a
// database's Buffered rows wait for their group's commit, as before.
func (r *Record) settle() error {
	if !r.owed && !r.piped {
		return nil
	}
	return r.append(Batch{}, Visible)
}

// flush makes the commits recorded durable, then writes state.json if it
// is behind and, with all set, the backend's snapshots: a snapshot never
// says more than the log would after a power loss.
func (r *Record) flush(all bool) error {
	if err := r.settle(); err != nil {
		return err
	}
	if r.stale {
		write := func(w io.Writer) error { return WriteState(w, r.state) }
		if err := WriteFileFrom(r.files, filepath.Join(r.work, StateFile), write, false); err != nil {
			return err
		}
		r.stale = false
	}
	if !all {
		return nil
	}
	return r.snapshot(&r.progress)
}

// snapshot writes state.json if it is behind and the backend's snapshots
// of p.
func (r *Record) snapshot(p *Progress) error {
	if err := r.flush(false); err != nil {
		return err
	}
	r.snapped, r.commits, r.behind = time.Now(), 0, false
	if c := r.held; c != nil {
		st, err := json.Marshal(r.heldState)
		if err != nil {
			return fmt.Errorf("encoding state: %w", err)
		}
		c.State = st
		if err := r.append(Batch{Checkpoints: []Checkpoint{*c}}, Visible); err != nil {
			return err
		}
		r.held, r.heldState = nil, nil
	}
	err := r.h.Snapshot(r.ctx, p)
	r.noteLost(err)
	return err
}

// beat says the holder is alive every period until Close; a claim taken
// over ends it. A failed heartbeat is retried on the next tick: a claim
// goes stale only after several misses.
func (r *Record) beat(every time.Duration) {
	defer close(r.done)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-r.stop:
			return
		case <-t.C:
			if err := r.h.Heartbeat(r.ctx); errors.Is(err, ErrClaimLost) {
				r.noteLost(err)
				return
			}
		}
	}
}

// Close implements Run: it writes what waits and the snapshots, unless
// the run is another process's now, and releases the claim.
func (r *Record) Close() error {
	var err error
	r.closeOnce.Do(func() {
		close(r.stop)
		<-r.done
		r.mu.Lock()
		defer r.mu.Unlock()
		var errs []error
		if verr := r.h.Verify(r.ctx); verr == nil {
			// Snapshots already up to date (a finished run's) are not
			// written again.
			errs = append(errs, r.append(Batch{}, Visible), r.flush(r.behind || r.held != nil))
		} else {
			r.noteLost(verr)
		}
		errs = append(errs, r.h.Release(r.ctx, r.progress.RunState == RunRunning))
		r.closed = true
		err = errors.Join(errs...)
	})
	return err
}
