package sqlstore

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/stdlib"
	"github.com/skillkit/skillkit/internal/runstore"
	"github.com/skillkit/skillkit/internal/runstore/sqlstore/sqltest"
)

// The state machine is the database's: the specification's transitions
// pass, anything else is refused even from a client that writes SQL by
// hand, and final states stay final.
func TestTaskTransitions(t *testing.T) {
	sqltest.Each(t, func(t *testing.T, url string) {
		ctx := context.Background()
		d := openDB(t, url)
		task, err := d.AddTask(ctx, "skills/demo", map[string]string{"k": "v"}, []string{"a"}, ReviewNone)
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
				_, err = d.Review(ctx, task.ID, s.to, "msg")
			} else {
				err = d.Move(ctx, task.ID, "w1", s.from, s.to, "")
			}
			if err != nil {
				t.Fatalf("%s → %s: %v", s.from, s.to, err)
			}
		}
		if _, err := d.Review(ctx, task.ID, FixProposed, "again"); !errors.Is(err, ErrTransition) {
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
		if _, err := d.Review(ctx, "nope", ReviewApproved, ""); !errors.Is(err, ErrNoTask) {
			t.Errorf("unknown task: %v", err)
		}
	})
}

// Recover moves a task whose worker stopped heartbeating to fix_proposed,
// and the next claim takes it up; a live worker's task stays.
func TestRecover(t *testing.T) {
	sqltest.Each(t, func(t *testing.T, url string) {
		ctx := context.Background()
		d := openDB(t, url)
		a, _ := d.AddTask(ctx, "s", nil, nil, ReviewNone)
		d.ClaimNext(ctx, "dead")
		time.Sleep(50 * time.Millisecond)
		b, _ := d.AddTask(ctx, "s", nil, nil, ReviewNone)
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

// A complete or exited task stays as it ended, whoever writes: no column
// changes, the row cannot be deleted, and a heartbeat of its last worker
// is no error. Other tasks stay writable.
func TestFinalRows(t *testing.T) {
	sqltest.Each(t, func(t *testing.T, url string) {
		ctx := context.Background()
		d := openDB(t, url)
		final := map[TaskState]string{}
		for _, end := range []TaskState{Complete, Exited} {
			task, _ := d.AddTask(ctx, "s", nil, nil, ReviewNone)
			d.ClaimNext(ctx, "w1")
			if err := d.Move(ctx, task.ID, "w1", Working, end, "done"); err != nil {
				t.Fatal(err)
			}
			final[end] = task.ID
		}
		live, _ := d.AddTask(ctx, "s", nil, nil, ReviewNone)
		for end, id := range final {
			for _, set := range []string{
				`worker = 'someone else'`, `message = 'rewritten'`, `heartbeat = 0`, `run_id = 'r'`,
				`skill = 'x'`, `inputs = '{"k":"v"}'`, `args = '["a"]'`, `claims = 9`, `created_at = 1`,
				`updated_at = 1`, `review = 'completion'`, `state = 'working'`, `id = 'renamed'`,
			} {
				_, err := d.exec(ctx, `UPDATE tasks SET `+set+` WHERE id = ?`, id)
				if !errors.Is(d.taskErr("raw", err), ErrTransition) {
					t.Errorf("%s task: SET %s: %v", end, set, err)
				}
			}
			if _, err := d.exec(ctx, `DELETE FROM tasks WHERE id = ?`, id); !errors.Is(d.taskErr("raw", err), ErrTransition) {
				t.Errorf("%s task deleted: %v", end, err)
			}
			if _, err := d.Heartbeat(ctx, id, "w1"); err != nil {
				t.Errorf("heartbeat on a %s task: %v", end, err)
			}
			got, err := d.Task(ctx, id)
			if err != nil || got.State != end || got.Worker != "w1" || got.Message != "done" {
				t.Errorf("%s task changed: %+v %v", end, got, err)
			}
		}
		// The fallback row of a blocked claim is born exited, and final.
		if err := d.Claim(ctx, final[Complete], "w2", "s2"); !errors.Is(err, ErrClaimBlocked) {
			t.Fatalf("blocked claim: %v", err)
		}
		if _, err := d.exec(ctx, `DELETE FROM tasks WHERE id = 'fallback-s2'`); err == nil {
			t.Error("fallback row deleted")
		}
		if _, err := d.exec(ctx, `UPDATE tasks SET message = 'm' WHERE id = ?`, live.ID); err != nil {
			t.Errorf("a watching task is not final: %v", err)
		}
		if _, err := d.exec(ctx, `DELETE FROM tasks WHERE id = ?`, live.ID); err != nil {
			t.Errorf("a watching task is not final: %v", err)
		}
		if _, err := d.exec(ctx, `INSERT INTO tasks (id, skill, inputs, args, state, review, created_at, updated_at) VALUES ('y', '', '{}', '[]', 'watching', 'always', 0, 0)`); err == nil {
			t.Error("a review mode outside the check")
		}
	})
}

// A completion review's approval: a task of ReviewCompletion whose run is
// not completed waits at a step's checkpoint, and approving it resumes the
// work (review_approved) rather than completing it.
func TestApproveCheckpointOfCompletionTask(t *testing.T) {
	sqltest.Each(t, func(t *testing.T, url string) {
		ctx := context.Background()
		d := openDB(t, url)
		task, _ := d.AddTask(ctx, "s", nil, nil, ReviewCompletion)
		if got, _ := d.Task(ctx, task.ID); got.Review != ReviewCompletion {
			t.Fatalf("review mode not kept: %+v", got)
		}
		d.ClaimNext(ctx, "w1")
		d.Move(ctx, task.ID, "w1", Working, NeedsReview, "review step 1")
		if _, err := d.Review(ctx, task.ID, ReviewApproved, "ok"); err != nil {
			t.Fatal(err)
		}
		if got, _ := d.Task(ctx, task.ID); got.State != ReviewApproved {
			t.Fatalf("checkpoint approved to %s", got.State)
		}
	})
}

// On PostgreSQL only a task leaving a state a worker waits in (a
// conductor's answer) notifies: a notifying commit waits for every other
// one, so the queue's claims and a worker's moves must not.
func TestNotifiesOnlyWaits(t *testing.T) {
	ctx := context.Background()
	d := openDB(t, sqltest.Postgres(t))
	conn, err := d.db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer discard(conn)
	var heard []string
	listen := func(f func()) {
		t.Helper()
		f()
		err := conn.Raw(func(dc any) error {
			pc := dc.(*stdlib.Conn).Conn()
			for {
				wctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
				n, err := pc.WaitForNotification(wctx)
				cancel()
				if err != nil {
					return nil
				}
				heard = append(heard, n.Payload)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if _, err := conn.ExecContext(ctx, "LISTEN skillkit_tasks"); err != nil {
		t.Fatal(err)
	}
	a, _ := d.AddTask(ctx, "s", nil, nil, ReviewNone)
	listen(func() {
		d.ClaimNext(ctx, "w")
		d.Move(ctx, a.ID, "w", Working, NeedsReview, "")
	})
	if len(heard) != 0 {
		t.Fatalf("a worker's claim and move notified: %q", heard)
	}
	listen(func() { d.Review(ctx, a.ID, ReviewFailed, "no") })
	if want := []string{a.ID + " review_failed"}; !slices.Equal(heard, want) {
		t.Fatalf("the conductor's answer: heard %q, want %q", heard, want)
	}
}

// A task's store records the run it creates on the task, in the same
// transaction; a run id already taken creates nothing and leaves the
// task's run as it was.
func TestTaskStoreRecordsItsRun(t *testing.T) {
	sqltest.Each(t, func(t *testing.T, url string) {
		ctx := context.Background()
		d := openDB(t, url)
		task, _ := d.AddTask(ctx, "s", nil, nil, ReviewNone)
		d.ClaimNext(ctx, "w")
		b := d.Backend(t.TempDir())
		b.task = task.ID
		n := runstore.NewRun{Start: runstore.Start{RunID: "r1", Skill: "demo", StartedAt: time.Now()}}
		c, err := b.Create(ctx, n, runstore.ClaimOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Handle.Release(ctx, false)
		if got, _ := d.Task(ctx, task.ID); got.RunID != "r1" {
			t.Fatalf("task's run %q, want r1", got.RunID)
		}
		other, _ := d.AddTask(ctx, "s", nil, nil, ReviewNone)
		b.task = other.ID
		if _, err := b.Create(ctx, n, runstore.ClaimOptions{}); !errors.Is(err, runstore.ErrExists) {
			t.Fatalf("second create of r1: %v", err)
		}
		if got, _ := d.Task(ctx, other.ID); got.RunID != "" {
			t.Fatalf("a run not created was recorded on task %s: %q", other.ID, got.RunID)
		}
	})
}
