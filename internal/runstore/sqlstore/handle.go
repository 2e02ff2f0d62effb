package sqlstore

import (
	"context"
	dbsql "database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/skillkit/skillkit/internal/runstore"
)

// errLost is a write refused because another process took the run over.
var errLost = fmt.Errorf("another process took the run over: %w", runstore.ErrClaimLost)

// handle writes a claimed run's rows.
//
// A buffered batch waits in memory until the next visible or durable
// write, which writes everything waiting in one transaction: the groups a
// kill may leave are then exactly the commit groups, and a step costs one
// transaction (one sync) as it costs one fsync in the filesystem store.
type handle struct {
	db    *DB
	id    string
	claim *claim

	// seq, metricSeq and logSeq number the rows of the run's events,
	// metrics and logs.
	seq, metricSeq, logSeq int64
	waiting                runstore.Batch
	// unsure is the size of the last try of the waiting rows when it
	// failed with the database away, maybe after it committed them: the
	// next try looks first.
	unsure *batchSize
}

// numberOn reads where the run's rows are numbered up to, so that a
// resumed run's rows number on.
func (h *handle) numberOn(ctx context.Context) error {
	for _, n := range []struct {
		table string
		to    *int64
	}{{"events", &h.seq}, {"metrics", &h.metricSeq}, {"logs", &h.logSeq}} {
		err := h.db.db.QueryRowContext(ctx, h.db.q(`SELECT COALESCE(MAX(seq), 0) FROM `+n.table+` WHERE run_id = ?`), h.id).Scan(n.to)
		if err != nil {
			return fmt.Errorf("resuming run %s: %s", h.id, oneLine(err))
		}
	}
	return nil
}

func (h *handle) Append(ctx context.Context, b runstore.Batch, mode runstore.Mode) error {
	w := &h.waiting
	w.Events = append(w.Events, b.Events...)
	w.Checkpoints = append(w.Checkpoints, b.Checkpoints...)
	w.Metrics = append(w.Metrics, b.Metrics...)
	w.Logs = append(w.Logs, b.Logs...)
	if mode == runstore.Buffered || w.Empty() {
		return nil
	}
	return h.write(ctx)
}

// write writes the waiting rows in one transaction, guarded by the claim:
// a holder whose claim was taken over writes nothing more. It rides out
// an outage (DB.RideOut): a try whose commit's answer was lost is found
// committed by the next, which then writes nothing twice.
func (h *handle) write(ctx context.Context) error {
	err := h.db.Retry(ctx, "writing run "+h.id, func() error {
		if h.unsure != nil {
			done, err := h.written(ctx, *h.unsure)
			if err != nil {
				return err
			}
			if done {
				h.advance(*h.unsure)
			}
			h.unsure = nil
			if h.waiting.Empty() {
				return nil
			}
		}
		n := sizes(&h.waiting)
		err := h.try(ctx)
		if err == nil {
			h.advance(n)
		} else if Transient(err) {
			h.unsure = &n
		}
		return err
	})
	if errors.Is(err, errLost) {
		return fmt.Errorf("writing run %s: %w", h.id, errLost)
	}
	if err != nil {
		return &runstore.WriteError{Err: &lineError{"writing run " + h.id + ": " + oneLine(err), err}}
	}
	return nil
}

// lineError is an error said on one line (oneLine) that still matches
// what it wraps: a worker tells a database that stayed away (ErrAway)
// from a write that failed.
type lineError struct {
	msg string
	err error
}

func (e *lineError) Error() string { return e.msg }
func (e *lineError) Unwrap() error { return e.err }

// batchSize is how many rows of each kind a batch holds.
type batchSize struct{ events, checkpoints, metrics, logs int }

func sizes(b *runstore.Batch) batchSize {
	return batchSize{len(b.Events), len(b.Checkpoints), len(b.Metrics), len(b.Logs)}
}

// advance takes the first n waiting rows as written: the rows number on
// after them.
func (h *handle) advance(n batchSize) {
	w := &h.waiting
	h.seq, h.metricSeq, h.logSeq = h.seq+int64(n.events), h.metricSeq+int64(n.metrics), h.logSeq+int64(n.logs)
	w.Events, w.Checkpoints = w.Events[n.events:], w.Checkpoints[n.checkpoints:]
	w.Metrics, w.Logs = w.Metrics[n.metrics:], w.Logs[n.logs:]
	if w.Empty() {
		*w = runstore.Batch{}
	}
}

// try writes the waiting rows once, numbered on from the last written.
func (h *handle) try(ctx context.Context) error {
	r, err := h.rows()
	if err != nil {
		return err
	}
	if h.db.dialect == postgres {
		return h.tryPostgres(ctx, r)
	}
	d := h.db
	return d.tx(ctx, func(tx *dbsql.Tx) error {
		res, err := d.txExec(ctx, tx, `UPDATE runs SET heartbeat = ? WHERE id = ? AND token = ?`, ms(h.claim.now()), h.id, h.claim.token)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return errLost
		}
		for i, body := range r.events {
			if _, err := d.txExec(ctx, tx, `INSERT INTO events (run_id, seq, body) VALUES (?, ?, ?)`, h.id, h.seq+1+int64(i), body); err != nil {
				return err
			}
		}
		for i, c := range r.checkpoints {
			if _, err := d.txExec(ctx, tx, `INSERT INTO checkpoints (run_id, n, time, hook, state, worker) VALUES (?, ?, ?, ?, ?, ?)`,
				h.id, c.N, r.times[i], c.Hook, string(c.State), r.workers[i]); err != nil {
				return err
			}
		}
		for i, body := range r.metrics {
			if _, err := d.txExec(ctx, tx, `INSERT INTO metrics (run_id, seq, body) VALUES (?, ?, ?)`, h.id, h.metricSeq+1+int64(i), body); err != nil {
				return err
			}
		}
		for i, l := range h.waiting.Logs {
			if _, err := d.txExec(ctx, tx, `INSERT INTO logs (run_id, seq, name, text) VALUES (?, ?, ?, ?)`, h.id, h.logSeq+1+int64(i), l.Name, l.Text); err != nil {
				return err
			}
		}
		return nil
	})
}

// tableRows are the waiting rows as the tables keep them.
type tableRows struct {
	events, metrics []string
	// times and workers are the checkpoints' columns that are not the
	// checkpoint's own fields as they are.
	checkpoints []runstore.Checkpoint
	times       []int64
	workers     []string
}

func (h *handle) rows() (tableRows, error) {
	w := &h.waiting
	r := tableRows{checkpoints: w.Checkpoints}
	for _, e := range w.Events {
		body, err := e.AppendJSON(nil)
		if err != nil {
			return tableRows{}, err
		}
		r.events = append(r.events, string(body))
	}
	for _, c := range w.Checkpoints {
		wk, err := json.Marshal(c.Worker)
		if err != nil {
			return tableRows{}, err
		}
		r.times, r.workers = append(r.times, ms(c.Time)), append(r.workers, string(wk))
	}
	for _, m := range w.Metrics {
		body, err := m.AppendJSON(nil)
		if err != nil {
			return tableRows{}, err
		}
		r.metrics = append(r.metrics, string(body))
	}
	return r, nil
}

// tryPostgres writes the waiting rows on PostgreSQL in one statement, so
// one round trip and one commit: the claim's guard, then the rows of each
// table that has some, as arrays. Where the guard matches no row (the run
// was taken over) the inserts have nothing to insert from. A transaction
// of an UPDATE and an INSERT per row took a round trip each, and a task of
// one step writes its record about six times; a table with nothing to
// write is left out, as its insert cost the server as much as one that
// writes.
func (h *handle) tryPostgres(ctx context.Context, r tableRows) error {
	var q strings.Builder
	q.WriteString(`WITH held AS (UPDATE runs SET heartbeat = ? WHERE id = ? AND token = ? RETURNING id)`)
	args := []any{ms(h.claim.now()), h.id, h.claim.token}
	if len(r.events) > 0 {
		q.WriteString(`, events AS (INSERT INTO events (run_id, seq, body)
	SELECT held.id, ? + u.n, u.body FROM held, unnest(?::text[]) WITH ORDINALITY AS u(body, n))`)
		args = append(args, h.seq, r.events)
	}
	if len(r.checkpoints) > 0 {
		var ns []int64
		var hooks, states []string
		for _, c := range r.checkpoints {
			ns, hooks, states = append(ns, int64(c.N)), append(hooks, c.Hook), append(states, string(c.State))
		}
		q.WriteString(`, checkpoints AS (INSERT INTO checkpoints (run_id, n, time, hook, state, worker)
	SELECT held.id, u.n, u.time, u.hook, u.state, u.worker FROM held, unnest(?::bigint[], ?::bigint[], ?::text[], ?::text[], ?::text[]) AS u(n, time, hook, state, worker))`)
		args = append(args, ns, r.times, hooks, states, r.workers)
	}
	if len(r.metrics) > 0 {
		q.WriteString(`, metrics AS (INSERT INTO metrics (run_id, seq, body)
	SELECT held.id, ? + u.n, u.body FROM held, unnest(?::text[]) WITH ORDINALITY AS u(body, n))`)
		args = append(args, h.metricSeq, r.metrics)
	}
	if logs := h.waiting.Logs; len(logs) > 0 {
		var names, texts []string
		for _, l := range logs {
			names, texts = append(names, l.Name), append(texts, l.Text)
		}
		q.WriteString(`, logs AS (INSERT INTO logs (run_id, seq, name, text)
	SELECT held.id, ? + u.n, u.name, u.text FROM held, unnest(?::text[], ?::text[]) WITH ORDINALITY AS u(name, text, n))`)
		args = append(args, h.logSeq, names, texts)
	}
	q.WriteString(` SELECT count(*) FROM held`)
	var held int
	err := h.db.db.QueryRowContext(ctx, h.db.q(q.String()), args...).Scan(&held)
	if err == nil && held != 1 {
		return errLost
	}
	return err
}

// written reports whether the first n waiting rows, a try's, are in the
// database: a try commits all of them or none, so the first of them
// tells, while the run is still this claim's (a holder that took it over
// numbers its rows on from the same place).
func (h *handle) written(ctx context.Context, n batchSize) (bool, error) {
	if err := h.verify(ctx); err != nil {
		return false, err
	}
	var query string
	var key any
	switch {
	case n.events > 0:
		query, key = `SELECT 1 FROM events WHERE run_id = ? AND seq = ?`, h.seq+1
	case n.checkpoints > 0:
		query, key = `SELECT 1 FROM checkpoints WHERE run_id = ? AND n = ?`, h.waiting.Checkpoints[0].N
	case n.metrics > 0:
		query, key = `SELECT 1 FROM metrics WHERE run_id = ? AND seq = ?`, h.metricSeq+1
	default:
		query, key = `SELECT 1 FROM logs WHERE run_id = ? AND seq = ?`, h.logSeq+1
	}
	var one int
	err := h.db.db.QueryRowContext(ctx, h.db.q(query), h.id, key).Scan(&one)
	if errors.Is(err, dbsql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

// Snapshot has nothing to do: the database derives nothing from the log.
func (h *handle) Snapshot(context.Context, *runstore.Progress) error { return nil }

// Verify reads whether the run's row still holds this claim, riding out
// an outage (DB.RideOut).
func (h *handle) Verify(ctx context.Context) error {
	err := h.db.Retry(ctx, "reading the claim of run "+h.id, func() error { return h.verify(ctx) })
	if err != nil && !errors.Is(err, errLost) {
		return &runstore.WriteError{Err: fmt.Errorf("reading run %s: %s", h.id, oneLine(err))}
	}
	return err
}

// verify reads once whether the run's row still holds this claim.
func (h *handle) verify(ctx context.Context) error {
	ok, err := h.db.holds(ctx, h.id, h.claim.token)
	if err == nil && !ok {
		return fmt.Errorf("run %s: %w", h.id, errLost)
	}
	return err
}

// Heartbeat refreshes the claim's heartbeat; one that matches no row
// means the claim was taken over.
func (h *handle) Heartbeat(ctx context.Context) error {
	res, err := h.db.exec(ctx, `UPDATE runs SET heartbeat = ? WHERE id = ? AND token = ?`, ms(h.claim.now()), h.id, h.claim.token)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return errLost
	}
	return nil
}

// Started records a command's process group in process_groups, for a
// takeover on this host to kill. A failed write costs only that kill.
func (h *handle) Started(pgid int) {
	h.group(`INSERT INTO process_groups (run_id, pgid, host) VALUES (?, ?, ?)`, pgid)
}

// Ended forgets a command's process group.
func (h *handle) Ended(pgid int) {
	h.group(`DELETE FROM process_groups WHERE run_id = ? AND pgid = ? AND host = ?`, pgid)
}

// group writes a row of process_groups (DB.groupWrite).
func (h *handle) group(query string, pgid int) {
	h.db.groupWrite(query, h.id, pgid, runstore.Hostname())
}

// Release gives the claim up if it is still this one. A run left
// running needs no mark: its row always says who holds it.
func (h *handle) Release(ctx context.Context, _ bool) error {
	err := h.db.Retry(ctx, "releasing run "+h.id, func() error {
		_, err := h.db.exec(ctx, `UPDATE runs SET holder = NULL, token = NULL WHERE id = ? AND token = ?`, h.id, h.claim.token)
		return err
	})
	if err != nil {
		return fmt.Errorf("releasing run %s: %v", h.id, oneLine(err))
	}
	return nil
}
