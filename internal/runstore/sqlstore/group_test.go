package sqlstore

import (
	"context"
	dbsql "database/sql"
	"errors"
	"path/filepath"
	"sync"
	"testing"

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
	d, err := Open(ctx, "sqlite:"+file)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
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
	other, err := Open(ctx, "sqlite:"+file)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
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

// TestVolatileConnectionGoesBackReset: the connection that recorded
// process groups without waiting for the disk goes back to the pool
// waiting for it again; it kept synchronous_commit off, and the next
// task's commits on it were not durable.
func TestVolatileConnectionGoesBackReset(t *testing.T) {
	ctx := context.Background()
	d, err := Open(ctx, sqltest.Postgres(t))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	// One connection: the pool can only hand the same one back.
	d.db.SetMaxOpenConns(1)
	c, err := d.volatile(ctx)
	if err != nil {
		t.Fatal(err)
	}
	d.closeVolatile(c)
	var setting string
	if err := d.db.QueryRowContext(ctx, `SHOW synchronous_commit`).Scan(&setting); err != nil {
		t.Fatal(err)
	}
	if setting != "on" {
		t.Errorf("synchronous_commit = %s on the pooled connection, want on", setting)
	}
}
