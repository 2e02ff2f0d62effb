package sqlstore

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/stdlib"
)

// Wait waits until task id leaves state from, heartbeating as worker at
// least every poll so that the conductor does not take a waiting worker
// for a dead one, and returns the task as it is then. On PostgreSQL it
// LISTENs to the notifications of the transition trigger and wakes at the
// change; SQLite has no notifications, so it reads the task every poll.
func (d *DB) Wait(ctx context.Context, id, worker string, from TaskState, poll time.Duration) (*Task, error) {
	if d.dialect == postgres {
		return d.listen(ctx, id, worker, from, poll)
	}
	for {
		t, err := d.Heartbeat(ctx, id, worker)
		if err != nil || t.State != from {
			return t, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(poll):
		}
	}
}

// listen is Wait on PostgreSQL: a connection LISTENs, then the task is
// read (catching a change made before the LISTEN), then the connection
// waits for a notification or the poll, whichever comes first. The
// connection is then dropped, not pooled: a wait cut short by its
// deadline leaves it in no state to reuse.
func (d *DB) listen(ctx context.Context, id, worker string, from TaskState, poll time.Duration) (*Task, error) {
	for {
		conn, err := d.db.Conn(ctx)
		if err != nil {
			return nil, fmt.Errorf("waiting for task %s: %s", id, oneLine(err))
		}
		var t *Task
		err = conn.Raw(func(dc any) error {
			pc := dc.(*stdlib.Conn).Conn()
			if _, err := pc.Exec(ctx, "LISTEN skillkit_tasks"); err != nil {
				return err
			}
			if t, err = d.Heartbeat(ctx, id, worker); err != nil || t.State != from {
				return err
			}
			wctx, cancel := context.WithTimeout(ctx, poll)
			defer cancel()
			pc.WaitForNotification(wctx)
			return driver.ErrBadConn
		})
		conn.Close()
		switch {
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case err == nil:
			return t, nil
		case !errors.Is(err, driver.ErrBadConn):
			return nil, fmt.Errorf("waiting for task %s: %s", id, oneLine(err))
		}
	}
}
