package orchestrator_test

import (
	"context"
	"testing"

	"github.com/skillkit/skillkit/internal/faultfs"
	lifecycle "github.com/skillkit/skillkit/internal/run"
	"github.com/skillkit/skillkit/internal/runstore/fsstore"
)

// An iteration of the loop costs one durable write: the action's completed
// transition, with its state updates, is the one sync of events.jsonl; the
// run's own transitions add a constant few.
func TestOneSyncPerIteration(t *testing.T) {
	const n = 200
	o := noopOptions(t, n, true)
	files := faultfs.Wrap(nil)
	o.Store = fsstore.New(fsstore.Options{Base: t.TempDir(), Files: files})
	res, err := lifecycle.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(completed(state(t, res.Dir))); got != n {
		t.Fatalf("%d actions ran, want %d", got, n)
	}
	syncs := files.Syncs(fsstore.EventsFile)
	t.Logf("%d syncs of the log for %d iterations (%.3f per iteration)", syncs, n, float64(syncs)/n)
	if per := float64(syncs) / n; per > 1.05 {
		t.Errorf("%d syncs for %d iterations: %.3f per iteration, want at most 1.05", syncs, n, per)
	}
	for _, snap := range []string{fsstore.StateFile, fsstore.ProgressFile} {
		if s := files.Syncs(snap); s != 0 {
			t.Errorf("%s was synced %d times: snapshots are derived, not synced", snap, s)
		}
	}
}
