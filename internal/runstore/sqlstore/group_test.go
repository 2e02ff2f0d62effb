package sqlstore

import (
	"context"
	dbsql "database/sql"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/skillkit/skillkit/internal/runstore/sqlstore/sqltest"
)

// TestGroupedWritesFailAlone: SQLite writes made at once by many
// goroutines share transactions (group.go), yet each is all or nothing
// as its own transaction was: a write that fails halfway leaves none of
// its rows, and takes none of the others' with it; a write that succeeds
// is in the file when its call returns, for a new connection to read.
func TestGroupedWritesFailAlone(t *testing.T) {
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "skillkit.db")
	d := openDB(t, "sqlite:"+file)
	if _, err := d.exec(ctx, `CREATE TABLE scratch (writer INTEGER, row INTEGER)`); err != nil {
		t.Fatal(err)
	}
	errHalfway := errors.New("halfway")
	const writers = 64
	errs := make([]error, writers)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			errs[w] = d.tx(ctx, func(tx *dbsql.Tx) error {
				for row := range 3 {
					if _, err := tx.ExecContext(ctx, `INSERT INTO scratch VALUES (?, ?)`, w, row); err != nil {
						return err
					}
					if w%3 == 0 && row == 1 {
						return errHalfway
					}
				}
				return nil
			})
		})
	}
	wg.Wait()
	// A fresh connection: what it reads was committed.
	other := openDB(t, "sqlite:"+file)
	for w := range writers {
		var n int
		if err := other.db.QueryRowContext(ctx, `SELECT count(*) FROM scratch WHERE writer = ?`, w).Scan(&n); err != nil {
			t.Fatal(err)
		}
		want, wantErr := 3, error(nil)
		if w%3 == 0 {
			want, wantErr = 0, errHalfway
		}
		if n != want || !errors.Is(errs[w], wantErr) {
			t.Errorf("writer %d: %d rows, err %v; want %d rows, err %v", w, n, errs[w], want, wantErr)
		}
	}
}

// TestGroupsConnectionNeverPooled: the connection that writes process
// groups with synchronous_commit off is never handed to other writes:
// it went back to the pool with the setting on, and a later task's
// commits on it did not wait for the disk. Discarded, it is closed.
func TestGroupsConnectionNeverPooled(t *testing.T) {
	ctx := context.Background()
	d := openDB(t, sqltest.Postgres(t))
	d.groupWrite(`DELETE FROM process_groups WHERE run_id = ? AND pgid = ? AND host = ?`, "r", 1, "h")
	if d.groupsConn == nil {
		t.Fatal("no connection kept for process groups")
	}
	discard(d.groupsConn)
	d.groupsConn = nil
	// One connection: the pool could only hand the discarded one back.
	d.db.SetMaxOpenConns(1)
	for range 3 {
		var setting string
		if err := d.db.QueryRowContext(ctx, `SHOW synchronous_commit`).Scan(&setting); err != nil {
			t.Fatal(err)
		}
		if setting != "on" {
			t.Fatalf("synchronous_commit = %s on a pooled connection, want on", setting)
		}
	}
}

// TestGroupedWriteCancelledMidStatement: a writer whose context ends in
// the middle of its statement makes SQLite roll the whole transaction
// back, the writes of its group released before it too; the others are
// committed all the same (run again without it), and it alone fails.
func TestGroupedWriteCancelledMidStatement(t *testing.T) {
	ctx := context.Background()
	d := openDB(t, sqltest.SQLite(t))
	if _, err := d.exec(ctx, `CREATE TABLE scratch (writer INTEGER, row INTEGER)`); err != nil {
		t.Fatal(err)
	}
	queued := func(n int) {
		for {
			d.batch.mu.Lock()
			q := len(d.batch.queue)
			d.batch.mu.Unlock()
			if q >= n {
				return
			}
			time.Sleep(time.Millisecond)
		}
	}
	insert := func(w int) func(*dbsql.Tx) error {
		return func(tx *dbsql.Tx) error {
			_, err := tx.ExecContext(ctx, `INSERT INTO scratch VALUES (?, 0)`, w)
			return err
		}
	}
	var wg sync.WaitGroup
	// A slow first group, so that the rest queue behind it in one group.
	wg.Go(func() {
		d.tx(ctx, func(tx *dbsql.Tx) error {
			time.Sleep(200 * time.Millisecond)
			return insert(0)(tx)
		})
	})
	for {
		d.batch.mu.Lock()
		leading := d.batch.leading
		d.batch.mu.Unlock()
		if leading {
			break
		}
		time.Sleep(time.Millisecond)
	}
	errs := make([]error, 9)
	start := func(w int, f func(*dbsql.Tx) error) {
		wg.Go(func() { errs[w] = d.tx(ctx, f) })
	}
	for w := 1; w <= 4; w++ {
		start(w, insert(w))
		queued(w)
	}
	// Writer 5 inserts, then runs a statement of seconds that its context
	// ends after 50 ms.
	stop, cancel := context.WithCancel(ctx)
	defer cancel()
	wg.Go(func() {
		errs[5] = d.batch.do(stop, d.db, func(tx *dbsql.Tx) error {
			if err := insert(5)(tx); err != nil {
				return err
			}
			time.AfterFunc(50*time.Millisecond, cancel)
			_, err := tx.ExecContext(stop, `INSERT INTO scratch WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000000) SELECT 5, x FROM c`)
			return err
		})
	})
	queued(5)
	for w := 6; w <= 8; w++ {
		start(w, insert(w))
		queued(w)
	}
	wg.Wait()
	for w := 0; w <= 8; w++ {
		var n int
		if err := d.db.QueryRowContext(ctx, `SELECT count(*) FROM scratch WHERE writer = ?`, w).Scan(&n); err != nil {
			t.Fatal(err)
		}
		switch {
		case w == 5 && (n != 0 || !errors.Is(errs[5], context.Canceled)):
			t.Errorf("the cancelled writer: %d rows, err %v; want none, context.Canceled", n, errs[5])
		case w != 5 && (n != 1 || errs[w] != nil):
			t.Errorf("writer %d: %d rows, err %v; want its row, no error", w, n, errs[w])
		}
	}
}
