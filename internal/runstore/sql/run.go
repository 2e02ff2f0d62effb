package sql

import (
	dbsql "database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/skillkit/skillkit/internal/runstore"
)

// errLost is a write refused because another process took the run over.
var errLost = errors.New("another process took the run over")

// run is an open, claimed run of the SQL store.
//
// Append keeps the event in memory until the next Commit or Flush writes
// it, in one transaction with the others of its group: the groups a kill
// may leave are then exactly the commit groups, and a step costs one
// transaction (one sync) as it costs one fsync in the filesystem store.
// Flush writes them too, before a process of the skill starts, so that
// what the record shows of a step that runs for long is current. Metrics
// and logs wait for the same transactions.
type run struct {
	s     *Store
	id    string
	work  string
	claim *claim

	mu       sync.Mutex
	progress runstore.Progress
	state    map[string]any
	// pending is a state set and not yet in an event; stale says
	// state.json in the work dir is behind the state.
	pending, stale bool
	mark           *runstore.Mark
	// seq, metricSeq and logSeq number the rows of the run's events,
	// metrics and logs; taken counts its checkpoints.
	seq, metricSeq, logSeq int64
	taken                  int
	// events, metrics, logs and checkpoints wait for the next write.
	events      []runstore.Event
	metrics     []runstore.Metric
	logs        []logLine
	checkpoints []runstore.Checkpoint

	lost       chan struct{}
	lostOnce   sync.Once
	stop, done chan struct{}
	closeOnce  sync.Once
}

type logLine struct{ name, text string }

func (r *run) ID() string            { return r.id }
func (r *run) WorkDir() string       { return r.work }
func (r *run) Where() string         { return r.s.where(r.id) }
func (r *run) Notes() []string       { return nil }
func (r *run) Lost() <-chan struct{} { return r.lost }

func (r *run) Progress() runstore.Progress {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.progress.Clone()
}

func (r *run) State() map[string]any {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.state
}

func (r *run) SetState(state map[string]any) {
	if state == nil {
		state = map[string]any{}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.state = state
	r.pending, r.stale = true, true
}

func (r *run) Checkpoint(hook string, w runstore.Worker) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.mark = &runstore.Mark{Hook: hook, Worker: w}
	return nil
}

func (r *run) Append(e runstore.Event) error { return r.record(e, false) }
func (r *run) Commit(e runstore.Event) error { return r.record(e, true) }

// record queues e with the state and checkpoint waiting for it, applies
// it to the progress, and on a commit writes the queue.
func (r *run) record(e runstore.Event, commit bool) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	if e.Run == "" {
		e.Run = r.id
	}
	if r.pending {
		st, err := json.Marshal(r.state)
		if err != nil {
			return fmt.Errorf("encoding state: %w", err)
		}
		e.State = st
		r.pending = false
	}
	if m := r.mark; m != nil {
		e.Checkpoint = m
		r.taken++
		st, _ := json.Marshal(r.state)
		r.checkpoints = append(r.checkpoints, runstore.Checkpoint{N: r.taken, Time: e.Time, Hook: m.Hook, Worker: m.Worker, State: st})
		r.mark = nil
	}
	r.events = append(r.events, e)
	r.progress.Apply(&e)
	if !commit {
		return nil
	}
	return r.write()
}

func (r *run) Metric(m runstore.Metric) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if m.Time.IsZero() {
		m.Time = time.Now()
	}
	if m.Run == "" {
		m.Run = r.id
	}
	r.metrics = append(r.metrics, m)
	return nil
}

func (r *run) Log(name, text string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.logs = append(r.logs, logLine{name, text})
	return nil
}

// Flush writes what waits, and state.json into the work dir when it is
// behind: processes of the skill read the state there.
func (r *run) Flush() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.write(); err != nil {
		return err
	}
	return r.writeState()
}

func (r *run) writeState() error {
	if !r.stale {
		return nil
	}
	data, err := runstore.EncodeState(r.state)
	if err != nil {
		return err
	}
	path := filepath.Join(r.work, "state.json")
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return &runstore.WriteError{Err: err}
	}
	if err := os.Rename(tmp, path); err != nil {
		return &runstore.WriteError{Err: err}
	}
	r.stale = false
	return nil
}

// write writes the queued rows in one transaction, guarded by the claim:
// a holder whose claim was taken over writes nothing more.
func (r *run) write() error {
	if len(r.events)+len(r.metrics)+len(r.logs) == 0 {
		return nil
	}
	d := r.s.db
	seq, mseq, lseq := r.seq, r.metricSeq, r.logSeq
	err := d.tx(ctx, func(tx *dbsql.Tx) error {
		res, err := tx.ExecContext(ctx, d.q(`UPDATE runs SET heartbeat = ? WHERE id = ? AND token = ?`), ms(time.Now()), r.id, r.claim.token)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return errLost
		}
		for _, e := range r.events {
			body, err := json.Marshal(e)
			if err != nil {
				return err
			}
			seq++
			if _, err := tx.ExecContext(ctx, d.q(`INSERT INTO events (run_id, seq, body) VALUES (?, ?, ?)`), r.id, seq, string(body)); err != nil {
				return err
			}
		}
		for _, c := range r.checkpoints {
			w, _ := json.Marshal(c.Worker)
			if _, err := tx.ExecContext(ctx, d.q(`INSERT INTO checkpoints (run_id, n, time, hook, state, worker) VALUES (?, ?, ?, ?, ?, ?)`),
				r.id, c.N, ms(c.Time), c.Hook, string(c.State), string(w)); err != nil {
				return err
			}
		}
		for _, m := range r.metrics {
			body, _ := json.Marshal(m)
			mseq++
			if _, err := tx.ExecContext(ctx, d.q(`INSERT INTO metrics (run_id, seq, body) VALUES (?, ?, ?)`), r.id, mseq, string(body)); err != nil {
				return err
			}
		}
		for _, l := range r.logs {
			lseq++
			if _, err := tx.ExecContext(ctx, d.q(`INSERT INTO logs (run_id, seq, name, text) VALUES (?, ?, ?, ?)`), r.id, lseq, l.name, l.text); err != nil {
				return err
			}
		}
		return nil
	})
	if errors.Is(err, errLost) {
		r.loseClaim()
		return fmt.Errorf("writing run %s: %w", r.id, errLost)
	}
	if err != nil {
		return &runstore.WriteError{Err: fmt.Errorf("writing run %s: %s", r.id, oneLine(err))}
	}
	r.seq, r.metricSeq, r.logSeq = seq, mseq, lseq
	r.events, r.metrics, r.logs, r.checkpoints = nil, nil, nil, nil
	return nil
}

func (r *run) loseClaim() { r.lostOnce.Do(func() { close(r.lost) }) }

// beat refreshes the claim's heartbeat until Close; a heartbeat that
// matches no row means the claim was taken over.
func (r *run) beat() {
	defer close(r.done)
	t := time.NewTicker(r.claim.heartbeat)
	defer t.Stop()
	for {
		select {
		case <-r.stop:
			return
		case now := <-t.C:
			res, err := r.s.db.exec(ctx, `UPDATE runs SET heartbeat = ? WHERE id = ? AND token = ?`, ms(now), r.id, r.claim.token)
			if err != nil {
				// Retried on the next tick: the claim goes stale only
				// after several misses.
				continue
			}
			if n, _ := res.RowsAffected(); n != 1 {
				r.loseClaim()
				return
			}
		}
	}
}

// Close writes what waits and state.json, and releases the claim.
func (r *run) Close() error {
	var err error
	r.closeOnce.Do(func() {
		close(r.stop)
		<-r.done
		r.mu.Lock()
		defer r.mu.Unlock()
		select {
		case <-r.lost:
			// The run is another process's now.
			return
		default:
		}
		err = errors.Join(r.write(), r.writeState(), r.s.release(r.id, r.claim.token))
	})
	return err
}
