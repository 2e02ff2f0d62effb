package sqlstore

import (
	"context"
	dbsql "database/sql"
	"fmt"
	"slices"
	"sync"
)

// SQLite has one write lock per file and syncs at every commit. A worker
// running eight tasks makes eight goroutines that write about twenty
// small transactions per task each: one at a time, each waiting for its
// own sync (and a writer that finds the lock taken polls it, asleep 1 to
// 100 ms between tries), eight workers drained about 15 tasks a second.
// So a process's SQLite writes are committed in groups: the goroutine
// that finds no commit under way leads, and runs every write queued by
// then in one transaction, each in a savepoint of its own (a write that
// fails is rolled back alone, as its own transaction would be), then
// commits once. Every writer hears the commit's outcome: nothing is
// reported written before its sync. PostgreSQL commits concurrent
// transactions in parallel, and groups their log flushes itself.

// batcher groups a process's SQLite transactions.
type batcher struct {
	mu      sync.Mutex
	queue   []*write
	leading bool
}

// write is one transaction waiting for its group.
type write struct {
	ctx context.Context
	f   func(*dbsql.Tx) error
	// done receives the outcome; lead tells a waiting writer to lead the
	// next group.
	done chan error
	lead chan struct{}
}

// do runs f in the next group and returns once the group committed (or
// f's error, f's writes rolled back).
func (b *batcher) do(ctx context.Context, db *dbsql.DB, f func(*dbsql.Tx) error) error {
	w := &write{ctx: ctx, f: f, done: make(chan error, 1), lead: make(chan struct{}, 1)}
	b.mu.Lock()
	b.queue = append(b.queue, w)
	if b.leading {
		b.mu.Unlock()
		select {
		case err := <-w.done:
			return err
		case <-w.lead:
			// The last leader handed the queue, this write in it, over.
		}
	} else {
		b.leading = true
		b.mu.Unlock()
	}
	b.mu.Lock()
	group := b.queue
	b.queue = nil
	b.mu.Unlock()
	// A panic in a write is this process's bug: the group's writers are
	// told, the next leader is named, and the panic goes on.
	defer func() {
		if p := recover(); p != nil {
			for _, w := range group {
				select {
				case w.done <- fmt.Errorf("a write of its group panicked: %v", p):
				default:
				}
			}
			b.handOver()
			panic(p)
		}
	}()
	commitAll(context.WithoutCancel(ctx), db, group)
	b.handOver()
	return <-w.done
}

// handOver names the first writer that queued meanwhile the next leader,
// so that no writer leads group after group while its own outcome is
// known.
func (b *batcher) handOver() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.queue) > 0 {
		b.queue[0].lead <- struct{}{}
	} else {
		b.leading = false
	}
}

// commitAll commits a group, and tells each writer its outcome. A writer
// whose context ends mid-statement makes SQLite interrupt it, and an
// interrupted statement rolls the whole transaction back, the others'
// writes with it: the group is then run again without it, so that one
// writer giving up fails none of the others.
func commitAll(ctx context.Context, db *dbsql.DB, group []*write) {
	for len(group) > 0 {
		live := group[:0]
		for _, w := range group {
			if err := w.ctx.Err(); err != nil {
				w.done <- err
				continue
			}
			live = append(live, w)
		}
		group = live
		errs, err := commit(ctx, db, group)
		if err != nil && slices.ContainsFunc(group, func(w *write) bool { return w.ctx.Err() != nil }) {
			continue
		}
		for i, w := range group {
			if err != nil {
				w.done <- err
				continue
			}
			// A write's own error as it made it (errLost is compared so).
			w.done <- errs[i]
		}
		return
	}
}

// commit runs a group in one transaction: each writer's error, and the
// group's (nothing of it was kept then). ctx is the leader's, without its
// cancellation: a leader that gives up must not take the others' writes
// with it. Each write's own statements use its own context.
func commit(ctx context.Context, db *dbsql.DB, group []*write) ([]error, error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	errs := make([]error, len(group))
	for i, w := range group {
		if _, err := tx.ExecContext(ctx, `SAVEPOINT write`); err != nil {
			tx.Rollback()
			return nil, err
		}
		if errs[i] = w.f(tx); errs[i] != nil {
			if _, err := tx.ExecContext(ctx, `ROLLBACK TO write`); err != nil {
				// What is left of this write cannot be told from the
				// others': none of the group is kept.
				tx.Rollback()
				return nil, fmt.Errorf("%w (rolling a grouped write back: %v)", errs[i], err)
			}
		}
		if _, err := tx.ExecContext(ctx, `RELEASE write`); err != nil {
			tx.Rollback()
			return nil, err
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, err
	}
	return errs, nil
}
