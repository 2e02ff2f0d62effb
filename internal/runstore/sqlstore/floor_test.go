package sqlstore

import (
	"context"
	"testing"

	"github.com/skillkit/skillkit/internal/runstore/sqlstore/sqltest"
)

// BenchmarkCommitFloor is the queue's floor: one guarded UPDATE per
// commit, one writer, on a connection the store opened (SQLite with its
// pragmas: WAL, synchronous FULL, an immediate lock), pgbench's simple
// update on PostgreSQL. bench/run.sh prints claims per second beside it
// (issue 26: at least 70% of it).
func BenchmarkCommitFloor(b *testing.B) {
	for _, db := range []struct {
		name string
		url  func(testing.TB) string
	}{{"sqlite", sqltest.SQLite}, {"postgres", sqltest.Postgres}} {
		b.Run(db.name, func(b *testing.B) {
			ctx := context.Background()
			d, err := Open(ctx, db.url(b))
			if err != nil {
				b.Fatal(err)
			}
			defer d.Close()
			for _, q := range []string{`CREATE TABLE floor (id INTEGER PRIMARY KEY, n INTEGER, holder TEXT)`, `INSERT INTO floor VALUES (1, 0, NULL)`} {
				if _, err := d.db.ExecContext(ctx, q); err != nil {
					b.Fatal(err)
				}
			}
			update := d.q(`UPDATE floor SET n = n + 1, holder = ? WHERE id = ? AND (holder IS NULL OR holder = ?)`)
			for b.Loop() {
				if _, err := d.db.ExecContext(ctx, update, "w", 1, "w"); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "commits/s")
		})
	}
}
