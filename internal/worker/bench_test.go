package worker_test

import (
	"context"
	"testing"

	"github.com/skillkit/skillkit/internal/runstore/sqlstore"
	"github.com/skillkit/skillkit/internal/runstore/sqlstore/sqltest"
)

// BenchmarkTasks drains b.N one-step bash tasks with 8 workers of one
// process, as TestManyWorkers does, on each database: tasks/s is issue
// 26's figure (at least 250 on SQLite, 200 on PostgreSQL), ns/op the
// whole cost of a task (claim, run record, the step, completion).
func BenchmarkTasks(b *testing.B) {
	for _, db := range []struct {
		name string
		url  func(testing.TB) string
	}{{"sqlite", sqltest.SQLite}, {"postgres", sqltest.Postgres}} {
		b.Run(db.name, func(b *testing.B) {
			d, err := sqlstore.Open(context.Background(), db.url(b))
			if err != nil {
				b.Fatal(err)
			}
			defer d.Close()
			skill, _ := writeSkill(b, 1, "0")
			addTasks(b, d, skill, b.N)
			b.ResetTimer()
			drain(b, d, 8)
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "tasks/s")
		})
	}
}
