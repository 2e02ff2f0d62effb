// Package tasks benchmarks the task queue of the SQL store: claims per
// second with 1, 2 and 8 concurrent claimers, and what one claim costs
// with 1,000 and 100,000 tasks queued (flat: a partial index on the
// claimable states serves the pick). SQLite always; PostgreSQL when
// SKILLKIT_TEST_DATABASE_URL names a server.
//
//	go test ./bench/tasks -run '^$' -bench . -benchtime 2000x
package tasks

import (
	"context"
	"fmt"
	"github.com/skillkit/skillkit/internal/runstore/sqlstore"
	"github.com/skillkit/skillkit/internal/runstore/sqlstore/sqltest"
	"strings"
	"sync"
	"testing"
	"time"
)

var databases = []struct {
	name string
	url  func(testing.TB) string
}{{"sqlite", sqltest.SQLite}, {"postgres", sqltest.Postgres}}

// fill queues n tasks in one transaction: AddTask commits each, which
// would make the setup, not the claim, the benchmark.
func fill(b *testing.B, d *sqlstore.DB, n int) {
	b.Helper()
	if err := d.Fill(context.Background(), "skills/demo", n); err != nil {
		b.Fatal(err)
	}
}

func BenchmarkClaimQueued(b *testing.B) {
	for _, db := range databases {
		for _, queued := range []int{1000, 100000} {
			b.Run(fmt.Sprintf("%s/queued=%d", db.name, queued), func(b *testing.B) {
				d, err := sqlstore.Open(context.Background(), db.url(b))
				if err != nil {
					b.Fatal(err)
				}
				defer d.Close()
				fill(b, d, queued+b.N)
				b.ResetTimer()
				for range b.N {
					if t, _, err := d.ClaimNext(context.Background(), "bench"); err != nil || t == nil {
						b.Fatal(t, err)
					}
				}
			})
		}
	}
}

func BenchmarkClaimers(b *testing.B) {
	for _, db := range databases {
		for _, n := range []int{1, 2, 8} {
			b.Run(fmt.Sprintf("%s/claimers=%d", db.name, n), func(b *testing.B) {
				d, err := sqlstore.Open(context.Background(), db.url(b))
				if err != nil {
					b.Fatal(err)
				}
				defer d.Close()
				fill(b, d, b.N)
				b.ResetTimer()
				start := time.Now()
				var wg sync.WaitGroup
				var mu sync.Mutex
				claimed := 0
				for i := range n {
					wg.Go(func() {
						for {
							t, _, err := d.ClaimNext(context.Background(), fmt.Sprint("w", i))
							if err != nil && !strings.Contains(err.Error(), "locked") {
								b.Error(err)
								return
							}
							if t == nil && err == nil {
								return
							}
							mu.Lock()
							claimed++
							mu.Unlock()
						}
					})
				}
				wg.Wait()
				b.ReportMetric(float64(claimed)/time.Since(start).Seconds(), "claims/s")
				if claimed != b.N {
					b.Errorf("claimed %d of %d", claimed, b.N)
				}
			})
		}
	}
}
