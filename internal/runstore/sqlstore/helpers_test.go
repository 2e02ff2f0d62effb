package sqlstore

import (
	"context"
	"testing"
	"time"

	"github.com/skillkit/skillkit/internal/runstore"
)

// openDB opens the database of url for a test, closed at its end.
func openDB(t testing.TB, url string) *DB {
	t.Helper()
	d, err := Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// createRun creates and claims run r1 of skill demo, released at the
// test's end.
func createRun(t testing.TB, d *DB) *handle {
	t.Helper()
	ctx := context.Background()
	c, err := d.Backend(t.TempDir()).Create(ctx, runstore.NewRun{Start: runstore.Start{RunID: "r1", Skill: "demo", StartedAt: time.Now()}}, runstore.ClaimOptions{})
	if err != nil {
		t.Fatal(err)
	}
	h := c.Handle.(*handle)
	t.Cleanup(func() { h.Release(ctx, false) })
	return h
}
