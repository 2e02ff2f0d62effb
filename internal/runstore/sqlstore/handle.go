package sqlstore

import (
	"context"
	dbsql "database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

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

	// groups serialises the writes of process groups, which come from
	// the goroutines that run commands, on groupConn.
	groups    sync.Mutex
	groupConn *dbsql.Conn
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
// a holder whose claim was taken over writes nothing more.
func (h *handle) write(ctx context.Context) error {
	d, w := h.db, &h.waiting
	seq, mseq, lseq := h.seq, h.metricSeq, h.logSeq
	err := d.tx(ctx, func(tx *dbsql.Tx) error {
		res, err := tx.ExecContext(ctx, d.q(`UPDATE runs SET heartbeat = ? WHERE id = ? AND token = ?`), ms(time.Now()), h.id, h.claim.token)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return errLost
		}
		for _, e := range w.Events {
			body, err := json.Marshal(e)
			if err != nil {
				return err
			}
			seq++
			if _, err := tx.ExecContext(ctx, d.q(`INSERT INTO events (run_id, seq, body) VALUES (?, ?, ?)`), h.id, seq, string(body)); err != nil {
				return err
			}
		}
		for _, c := range w.Checkpoints {
			wk, _ := json.Marshal(c.Worker)
			if _, err := tx.ExecContext(ctx, d.q(`INSERT INTO checkpoints (run_id, n, time, hook, state, worker) VALUES (?, ?, ?, ?, ?, ?)`),
				h.id, c.N, ms(c.Time), c.Hook, string(c.State), string(wk)); err != nil {
				return err
			}
		}
		for _, m := range w.Metrics {
			body, _ := json.Marshal(m)
			mseq++
			if _, err := tx.ExecContext(ctx, d.q(`INSERT INTO metrics (run_id, seq, body) VALUES (?, ?, ?)`), h.id, mseq, string(body)); err != nil {
				return err
			}
		}
		for _, l := range w.Logs {
			lseq++
			if _, err := tx.ExecContext(ctx, d.q(`INSERT INTO logs (run_id, seq, name, text) VALUES (?, ?, ?, ?)`), h.id, lseq, l.Name, l.Text); err != nil {
				return err
			}
		}
		return nil
	})
	if errors.Is(err, errLost) {
		return fmt.Errorf("writing run %s: %w", h.id, errLost)
	}
	if err != nil {
		return &runstore.WriteError{Err: fmt.Errorf("writing run %s: %s", h.id, oneLine(err))}
	}
	h.seq, h.metricSeq, h.logSeq = seq, mseq, lseq
	h.waiting = runstore.Batch{}
	return nil
}

// Snapshot has nothing to do: the database derives nothing from the log.
func (h *handle) Snapshot(context.Context, *runstore.Progress) error { return nil }

// Verify reads whether the run's row still holds this claim.
func (h *handle) Verify(ctx context.Context) error {
	var one int
	err := h.db.db.QueryRowContext(ctx, h.db.q(`SELECT 1 FROM runs WHERE id = ? AND token = ?`), h.id, h.claim.token).Scan(&one)
	switch {
	case errors.Is(err, dbsql.ErrNoRows):
		return fmt.Errorf("run %s: %w", h.id, errLost)
	case err != nil:
		return &runstore.WriteError{Err: fmt.Errorf("reading run %s: %s", h.id, oneLine(err))}
	}
	return nil
}

// Heartbeat refreshes the claim's heartbeat; one that matches no row
// means the claim was taken over.
func (h *handle) Heartbeat(ctx context.Context) error {
	res, err := h.db.exec(ctx, `UPDATE runs SET heartbeat = ? WHERE id = ? AND token = ?`, ms(time.Now()), h.id, h.claim.token)
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

// group writes a row of process_groups: a command's children start
// within a millisecond of it, and a kill between its start and its
// record leaves them to nobody. On PostgreSQL it goes on the handle's
// volatile connection (DB.volatile), which does not wait for the disk;
// on SQLite in the process's next group of writes, whose sync it shares
// (a connection of its own would wait on the write lock, polling).
func (h *handle) group(query string, pgid int) {
	ctx := context.Background()
	if h.db.dialect == sqlite {
		h.db.exec(ctx, query, h.id, pgid, runstore.Hostname())
		return
	}
	h.groups.Lock()
	defer h.groups.Unlock()
	if h.groupConn == nil {
		c, err := h.db.volatile(ctx)
		if err != nil {
			return
		}
		h.groupConn = c
	}
	h.groupConn.ExecContext(ctx, h.db.q(query), h.id, pgid, runstore.Hostname())
}

// Release gives the claim up if it is still this one. A run left
// running needs no mark: its row always says who holds it.
func (h *handle) Release(ctx context.Context, _ bool) error {
	h.groups.Lock()
	if h.groupConn != nil {
		h.db.closeVolatile(h.groupConn)
		h.groupConn = nil
	}
	h.groups.Unlock()
	if _, err := h.db.exec(ctx, `UPDATE runs SET holder = NULL, token = NULL WHERE id = ? AND token = ?`, h.id, h.claim.token); err != nil {
		return fmt.Errorf("releasing run %s: %v", h.id, oneLine(err))
	}
	return nil
}
