package worker_test

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/skillkit/skillkit/internal/runstore/sqlstore"
	"github.com/skillkit/skillkit/internal/runstore/sqlstore/sqltest"
	"github.com/skillkit/skillkit/internal/worker"
)

// TestConcurrentReviews: conductors answering one submission of a
// completion review at once, each on a connection of its own as separate
// skillkit review commands are, three approving and three rejecting:
// exactly one answer is taken, the others are refused as transitions the
// task no longer allows (exit 2), never with another error. The task then
// ends complete, its step run once, and a second approval of it is
// refused. The worker that submitted is stopped while the answers race:
// one that had taken an answer and submitted again would be answered by
// the late ones (docs/runtime.md, Tasks).
func TestConcurrentReviews(t *testing.T) {
	sqltest.Each(t, func(t *testing.T, url string) {
		ctx := context.Background()
		d, err := sqlstore.Open(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		skill, marks := writeSkill(t, 1, "0")
		k, err := d.AddTask(ctx, skill, map[string]string{"n": "0"}, nil, sqlstore.ReviewCompletion)
		if err != nil {
			t.Fatal(err)
		}
		submitted, stop := context.WithCancel(ctx)
		o := options(d, "w")
		o.WorkBase = filepath.Join(t.TempDir(), "work")
		done := make(chan error, 1)
		go func() { done <- worker.Run(submitted, o) }()
		waitState(t, d, k.ID, sqlstore.NeedsReview)
		stop()
		<-done

		conductors := make([]*sqlstore.DB, 6)
		for i := range conductors {
			if conductors[i], err = sqlstore.Open(ctx, url); err != nil {
				t.Fatal(err)
			}
			defer conductors[i].Close()
		}
		got := make([]sqlstore.TaskState, len(conductors))
		errs := make([]error, len(conductors))
		var wg sync.WaitGroup
		for i, c := range conductors {
			to, msg := sqlstore.ReviewApproved, ""
			if i%2 == 1 {
				to, msg = sqlstore.ReviewFailed, "again"
			}
			wg.Go(func() { got[i], errs[i] = c.Review(ctx, k.ID, to, msg) })
		}
		wg.Wait()
		taken := 0
		for i, err := range errs {
			switch {
			case err == nil:
				taken++
			case !errors.Is(err, sqlstore.ErrTransition):
				t.Errorf("review %d: %v, want a refused transition", i, err)
			}
		}
		if taken != 1 {
			t.Fatalf("%d answers taken (%v, %v), want 1", taken, got, errs)
		}
		if !slices.Contains(got, sqlstore.Complete) {
			// The rejection was taken, with no worker to hear it: the
			// recovery hands it to the next, which submits again.
			if moved, err := d.Recover(ctx, 0); err != nil || len(moved) != 1 {
				t.Fatalf("recover: %v, %v", moved, err)
			}
			o := options(d, "next")
			o.UntilIdle, o.WorkBase = true, filepath.Join(t.TempDir(), "work")
			go func() { done <- worker.Run(ctx, o) }()
			waitState(t, d, k.ID, sqlstore.NeedsReview)
			if to, err := d.Review(ctx, k.ID, sqlstore.ReviewApproved, ""); err != nil || to != sqlstore.Complete {
				t.Fatalf("approval: %s, %v", to, err)
			}
			if err := <-done; err != nil {
				t.Fatal(err)
			}
		}
		allComplete(t, d, 1)
		if _, err := d.Review(ctx, k.ID, sqlstore.ReviewApproved, ""); !errors.Is(err, sqlstore.ErrTransition) {
			t.Errorf("approving a complete task: %v, want a refused transition", err)
		}
		if c := counts(t, marks, 0); c["1"] != 1 {
			t.Errorf("the step ran %d times, want once", c["1"])
		}
	})
}
