package sqlstore

import (
	"cmp"
	"context"
	dbsql "database/sql"
	"fmt"
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
	f func(*dbsql.Tx) error
	// done receives the outcome; lead tells a waiting writer to lead the
	// next group.
	done chan error
	lead chan struct{}
}

// do runs f in the next group and returns once the group committed (or
// f's error, f's writes rolled back).
func (b *batcher) do(ctx context.Context, db *dbsql.DB, f func(*dbsql.Tx) error) error {
	w := &write{f: f, done: make(chan error, 1), lead: make(chan struct{}, 1)}
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
	commit(context.WithoutCancel(ctx), db, group)
	// The next group is led by the first writer that queued meanwhile,
	// so that no writer leads group after group while its own outcome is
	// known.
	b.mu.Lock()
	if len(b.queue) > 0 {
		b.queue[0].lead <- struct{}{}
	} else {
		b.leading = false
	}
	b.mu.Unlock()
	return <-w.done
}

// commit runs a group in one transaction and tells each writer its
// outcome. ctx is the leader's, without its cancellation: a leader that
// gives up must not take the others' writes with it. Each write's own
// statements use its own context.
func commit(ctx context.Context, db *dbsql.DB, group []*write) {
	tell := func(err error) {
		for _, w := range group {
			w.done <- err
		}
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		tell(err)
		return
	}
	errs := make([]error, len(group))
	for i, w := range group {
		if _, err := tx.ExecContext(ctx, `SAVEPOINT write`); err != nil {
			tx.Rollback()
			tell(err)
			return
		}
		if errs[i] = w.f(tx); errs[i] != nil {
			if _, err := tx.ExecContext(ctx, `ROLLBACK TO write`); err != nil {
				// What is left of this write cannot be told from the
				// others': none of the group is kept.
				tx.Rollback()
				tell(fmt.Errorf("%w (rolling a grouped write back: %v)", errs[i], err))
				return
			}
		}
		if _, err := tx.ExecContext(ctx, `RELEASE write`); err != nil {
			tx.Rollback()
			tell(err)
			return
		}
	}
	err = tx.Commit()
	for i, w := range group {
		// A write's own error as it made it (errLost is compared so).
		w.done <- cmp.Or(errs[i], err)
	}
}
