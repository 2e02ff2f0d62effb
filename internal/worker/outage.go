package worker

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/skillkit/skillkit/internal/runstore/sqlstore"
)

// DefaultOutage is how long a worker rides out a database it cannot reach
// before it exits: a restart of PostgreSQL, or SQLite busy or out of disk
// for a while, must not end the whole fleet.
const DefaultOutage = 5 * time.Minute

// retry calls f until it succeeds, fails for good, or the database has been
// away longer than the outage allows (sqlstore.DB.Retry).
func (w *worker) retry(ctx context.Context, what string, f func() error) error {
	return w.o.DB.Retry(ctx, what, f)
}

// move is a transition of the task the worker holds, ridden through an
// outage: a try whose answer the database lost may have moved the task,
// and the next try, refused because the task is no longer in from, finds
// it where the lost one put it.
func (k *task) move(ctx context.Context, from, to sqlstore.TaskState, msg string) error {
	tried := false
	return k.w.retry(ctx, fmt.Sprintf("moving task %s to %s", k.ID, to), func() error {
		err := k.w.o.DB.Move(ctx, k.ID, k.w.o.Name, from, to, msg)
		if tried && errors.Is(err, sqlstore.ErrTransition) {
			if t, terr := k.w.o.DB.Task(ctx, k.ID); terr == nil && t.State == to && t.Worker == k.w.o.Name {
				return nil
			}
		}
		tried = true
		return err
	})
}
