package sqlstore

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/skillkit/skillkit/internal/runstore/sqlstore/sqltest"
)

// The state machine is the database's: the specification's transitions
// pass, anything else is refused even from a client that writes SQL by
// hand, and final states stay final.
func TestTaskTransitions(t *testing.T) {
	sqltest.Each(t, func(t *testing.T, url string) {
		ctx := context.Background()
		d, err := Open(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		task, err := d.AddTask(ctx, "skills/demo", map[string]string{"k": "v"}, []string{"a"})
		if err != nil {
			t.Fatal(err)
		}
		got, from, err := d.ClaimNext(ctx, "w1")
		if err != nil || got.ID != task.ID || from != Watching || got.State != Working || got.Claims != 1 || got.Inputs["k"] != "v" {
			t.Fatalf("claim: %+v %s %v", got, from, err)
		}
		if again, _, err := d.ClaimNext(ctx, "w2"); again != nil || err != nil {
			t.Fatalf("a working task claimed again: %+v %v", again, err)
		}
		// A claim of that task by id is blocked by the guard: the
		// fallback row says so, in exited.
		if err := d.Claim(ctx, task.ID, "w2", "s2"); !errors.Is(err, ErrClaimBlocked) {
			t.Fatalf("blocked claim: %v", err)
		}
		if fb, err := d.Task(ctx, "fallback-s2"); err != nil || fb.State != Exited {
			t.Fatalf("fallback row: %+v %v", fb, err)
		}
		steps := []struct {
			conductor bool
			from, to  TaskState
		}{
			{false, Working, NeedsReview},
			{true, NeedsReview, ReviewFailed},
			{false, ReviewFailed, NeedsReview},
			{true, NeedsReview, ReviewApproved},
			{false, ReviewApproved, Working},
			{false, Working, Complete},
		}
		for _, s := range steps {
			if s.conductor {
				err = d.Review(ctx, task.ID, s.to, "msg")
			} else {
				err = d.Move(ctx, task.ID, "w1", s.from, s.to, "")
			}
			if err != nil {
				t.Fatalf("%s → %s: %v", s.from, s.to, err)
			}
		}
		if err := d.Review(ctx, task.ID, FixProposed, "again"); !errors.Is(err, ErrTransition) {
			t.Errorf("fix on complete: %v", err)
		}
		for _, to := range []TaskState{Working, Watching, FixProposed, Exited} {
			_, err := d.exec(ctx, `UPDATE tasks SET state = ? WHERE id = ?`, string(to), task.ID)
			if !errors.Is(d.taskErr("raw", err), ErrTransition) {
				t.Errorf("raw complete → %s: %v", to, err)
			}
		}
		if _, err := d.exec(ctx, `INSERT INTO tasks (id, skill, inputs, args, state, created_at, updated_at) VALUES ('x', '', '{}', '[]', 'working', 0, 0)`); err == nil {
			t.Error("a task born working")
		}
		if err := d.Review(ctx, "nope", ReviewApproved, ""); !errors.Is(err, ErrNoTask) {
			t.Errorf("unknown task: %v", err)
		}
	})
}

// Recover moves a task whose worker stopped heartbeating to fix_proposed,
// and the next claim takes it up; a live worker's task stays.
func TestRecover(t *testing.T) {
	sqltest.Each(t, func(t *testing.T, url string) {
		ctx := context.Background()
		d, err := Open(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		a, _ := d.AddTask(ctx, "s", nil, nil)
		d.ClaimNext(ctx, "dead")
		time.Sleep(50 * time.Millisecond)
		b, _ := d.AddTask(ctx, "s", nil, nil)
		d.ClaimNext(ctx, "alive")
		moved, err := d.Recover(ctx, 30*time.Millisecond)
		if err != nil || len(moved) != 1 || moved[0].ID != a.ID {
			t.Fatalf("recovered %+v, %v", moved, err)
		}
		got, from, err := d.ClaimNext(ctx, "next")
		if err != nil || got.ID != a.ID || from != FixProposed || got.Claims != 2 {
			t.Fatalf("claim after recovery: %+v %s %v", got, from, err)
		}
		if bt, _ := d.Task(ctx, b.ID); bt.State != Working || bt.Worker != "alive" {
			t.Errorf("live task: %+v", bt)
		}
		// A waiting worker sees the conductor's answer.
		d.Move(ctx, b.ID, "alive", Working, NeedsReview, "")
		go func() {
			time.Sleep(100 * time.Millisecond)
			d.Review(ctx, b.ID, ReviewApproved, "ok")
		}()
		w, err := d.Wait(ctx, b.ID, "alive", NeedsReview, 2*time.Second)
		if err != nil || w.State != ReviewApproved || w.Message != "ok" {
			t.Fatalf("wait: %+v %v", w, err)
		}
	})
}
