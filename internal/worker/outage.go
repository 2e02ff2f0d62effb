package worker

import (
	"context"
	"fmt"
	"time"

	"github.com/skillkit/skillkit/internal/runstore/sqlstore"
)

// DefaultOutage is how long a worker rides out a database it cannot reach
// before it exits: a restart of PostgreSQL, or SQLite busy or out of disk
// for a while, must not end the whole fleet.
const DefaultOutage = 5 * time.Minute

// move is a transition of the task the worker holds, ridden through an
// outage: a try whose answer the database lost may have moved the task,
// and the next finds it where that try put it.
func (k *task) move(ctx context.Context, from, to sqlstore.TaskState, msg string) error {
	moved := func() (bool, error) {
		t, err := k.w.o.DB.Task(ctx, k.ID)
		return err == nil && t.State == to && t.Worker == k.w.o.Name, err
	}
	return k.w.o.DB.RetryWrite(ctx, fmt.Sprintf("moving task %s to %s", k.ID, to), moved, func() error {
		return k.w.o.DB.Move(ctx, k.ID, k.w.o.Name, from, to, msg)
	})
}
