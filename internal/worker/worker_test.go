package worker_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/skillkit/skillkit/internal/run"
	"github.com/skillkit/skillkit/internal/runstore"
	"github.com/skillkit/skillkit/internal/runstore/sqlstore"
	"github.com/skillkit/skillkit/internal/runstore/sqlstore/sqltest"
	"github.com/skillkit/skillkit/internal/testagent"
	"github.com/skillkit/skillkit/internal/testfs"
	"github.com/skillkit/skillkit/internal/worker"
	"github.com/skillkit/skillkit/parse"
	"github.com/skillkit/skillkit/plan"
)

// childEnv makes the test binary a worker process, for the kill -9 test:
// its value is the database URL, childName the worker's name.
const (
	childEnv  = "SKILLKIT_WORKER_TEST_DB"
	childName = "SKILLKIT_WORKER_TEST_NAME"
)

func TestMain(m *testing.M) {
	if testagent.Active() {
		os.Exit(testagent.Main())
	}
	if url := os.Getenv(childEnv); url != "" {
		d, err := sqlstore.Open(context.Background(), url)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		worker.Run(context.Background(), options(d, os.Getenv(childName)))
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// options are the workers' of these tests: quick polls and claims that go
// stale within a second, so that a killed worker's runs are taken over
// soon.
func options(d *sqlstore.DB, name string) worker.Options {
	return worker.Options{
		DB: d, Name: name, Poll: 20 * time.Millisecond, WorkBase: filepath.Join(os.TempDir(), "skillkit-worker-test", name),
		Load: func(dir string) (*plan.Skill, error) { return parse.Dir(dir) },
		Run:  run.Options{Claim: runstore.ClaimOptions{Heartbeat: 100 * time.Millisecond, Timeout: time.Second}},
	}
}

// writeSkill writes a skill of steps steps, each appending its number to
// $marks/<task n>: how many times each step of each task ran. Step 2
// sleeps sleep seconds.
func writeSkill(t testing.TB, steps int, sleep string) (skill, marks string) {
	marks = t.TempDir()
	skill = filepath.Join(t.TempDir(), "mark")
	testfs.WriteFile(t, filepath.Join(skill, "SKILL.md"), "---\nname: mark\ndescription: Marks its steps.\n---\n# Mark\n")
	body := "# Phase 1: Mark\n\n## Execution Steps\n\n"
	for i := 1; i <= steps; i++ {
		nap := ""
		if i == 2 {
			// "2s" says step 2 started, so step 1's completion is
			// committed: the sequential runner commits a step before it
			// starts the next.
			nap = fmt.Sprintf("echo 2s >> %s/$SKILL_INPUT_N\nsleep %s\n", marks, sleep)
		}
		body += fmt.Sprintf("### Step %d: Mark\n\n```bash\n%secho %d >> %s/$SKILL_INPUT_N\n```\n\n", i, nap, i, marks)
	}
	testfs.WriteFile(t, filepath.Join(skill, "phases", "01-mark.md"), body)
	return skill, marks
}

func addTasks(t testing.TB, d *sqlstore.DB, skill string, n int) {
	t.Helper()
	for i := range n {
		if _, err := d.AddTask(context.Background(), skill, map[string]string{"n": strconv.Itoa(i)}, nil, sqlstore.ReviewNone); err != nil {
			t.Fatal(err)
		}
	}
}

// drain runs n workers of this process until no task is claimable.
func drain(t testing.TB, d *sqlstore.DB, n int) {
	var wg sync.WaitGroup
	for i := range n {
		o := options(d, fmt.Sprintf("w%d", i))
		o.UntilIdle, o.WorkBase = true, filepath.Join(t.TempDir(), "work")
		wg.Go(func() {
			if err := worker.Run(context.Background(), o); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
}

// counts reads how many times each step of task i ran.
func counts(t *testing.T, marks string, i int) map[string]int {
	data, _ := os.ReadFile(filepath.Join(marks, strconv.Itoa(i)))
	out := map[string]int{}
	for _, l := range strings.Fields(string(data)) {
		out[l]++
	}
	return out
}

func allComplete(t *testing.T, d *sqlstore.DB, n int) []*sqlstore.Task {
	t.Helper()
	tasks, err := d.Tasks(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) != n {
		t.Fatalf("%d tasks, want %d", len(tasks), n)
	}
	for _, k := range tasks {
		if k.State != sqlstore.Complete {
			t.Errorf("task %s (n=%s) is %s: %s", k.ID, k.Inputs["n"], k.State, k.Message)
		}
	}
	return tasks
}

// 8 workers × 1,000 tasks of a one-step skill: every task completes,
// every step runs exactly once, no task is claimed twice.
func TestManyWorkers(t *testing.T) {
	n := 1000
	if testing.Short() {
		n = 100
	}
	sqltest.Each(t, func(t *testing.T, url string) {
		d, err := sqlstore.Open(context.Background(), url)
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		skill, marks := writeSkill(t, 1, "0")
		addTasks(t, d, skill, n)
		start := time.Now()
		drain(t, d, 8)
		t.Logf("%d tasks, 8 workers: %v (%.0f tasks/s)", n, time.Since(start).Round(time.Millisecond), float64(n)/time.Since(start).Seconds())
		for _, k := range allComplete(t, d, n) {
			if k.Claims != 1 {
				t.Errorf("task %s claimed %d times", k.ID, k.Claims)
			}
			i, _ := strconv.Atoi(k.Inputs["n"])
			if c := counts(t, marks, i); c["1"] != 1 || len(c) != 1 {
				t.Errorf("task %d: steps ran %v", i, c)
			}
		}
	})
}

// Two worker processes killed with SIGKILL while they hold tasks; recover
// hands their tasks back and the remaining workers finish everything: no
// completed step runs again, the step in flight at most twice.
func TestKilledWorkers(t *testing.T) {
	sqltest.Each(t, func(t *testing.T, url string) {
		ctx := context.Background()
		d, err := sqlstore.Open(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		const n = 12
		skill, marks := writeSkill(t, 3, "0.3")
		addTasks(t, d, skill, n)
		var kids []*exec.Cmd
		for i := range 2 {
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), childEnv+"="+url, fmt.Sprintf("%s=victim%d", childName, i))
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			kids = append(kids, cmd)
		}
		// Kill each once it holds a task with a step done and one in
		// flight.
		deadline := time.Now().Add(20 * time.Second)
		for i, cmd := range kids {
			for !holding(t, d, fmt.Sprintf("victim%d", i), marks) {
				if time.Now().After(deadline) {
					t.Fatal("the workers never held a task mid-run")
				}
				time.Sleep(20 * time.Millisecond)
			}
			cmd.Process.Signal(syscall.SIGKILL)
			cmd.Wait()
		}
		time.Sleep(300 * time.Millisecond)
		moved, err := d.Recover(ctx, 200*time.Millisecond)
		if err != nil || len(moved) < 2 {
			t.Fatalf("recovered %d tasks: %v", len(moved), err)
		}
		for _, k := range moved {
			if !strings.Contains(k.Message, "last completed: 01-mark#") {
				t.Errorf("hand-off message: %s", k.Message)
			}
		}
		var wg sync.WaitGroup
		for i := range 2 {
			o := options(d, fmt.Sprintf("w%d", i))
			o.UntilIdle = true
			wg.Go(func() { worker.Run(ctx, o) })
		}
		wg.Wait()
		allComplete(t, d, n)
		for i := range n {
			c := counts(t, marks, i)
			twice := 0
			for _, s := range []string{"1", "2", "3"} {
				switch c[s] {
				case 1:
				case 2:
					twice++
				default:
					t.Errorf("task %d: step %s ran %d times", i, s, c[s])
				}
			}
			if twice > 1 {
				t.Errorf("task %d: more than the step in flight ran twice: %v", i, c)
			}
		}
	})
}

// holding reports whether worker name holds a task whose first step is
// marked and whose run is in its second.
func holding(t *testing.T, d *sqlstore.DB, name, marks string) bool {
	tasks, err := d.Tasks(context.Background(), sqlstore.Working)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range tasks {
		if k.Worker != name {
			continue
		}
		i, _ := strconv.Atoi(k.Inputs["n"])
		if c := counts(t, marks, i); c["1"] == 1 && c["2s"] == 1 && c["2"] == 0 {
			return true
		}
	}
	return false
}

// TestUntilIdleLeavesFailedTask: with --until-idle, a task whose run
// failed is left in error for the conductor, the worker works the other
// task, and it exits (N9: it waited for the conductor for ever).
func TestUntilIdleLeavesFailedTask(t *testing.T) {
	d, err := sqlstore.Open(context.Background(), sqltest.SQLite(t))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	skill := filepath.Join(t.TempDir(), "picky")
	testfs.WriteFile(t, filepath.Join(skill, "SKILL.md"), "---\nname: picky\ndescription: Fails on 0.\n---\n# Picky\n")
	testfs.WriteFile(t, filepath.Join(skill, "phases", "01-go.md"), "# Phase 1: Go\n\n## Execution Steps\n\n### Step 1: Check\n\n```bash\ntest \"$SKILL_INPUT_N\" != 0\n```\n")
	addTasks(t, d, skill, 2)
	o := options(d, "idle")
	o.UntilIdle, o.WorkBase = true, filepath.Join(t.TempDir(), "work")
	done := make(chan error, 1)
	go func() { done <- worker.Run(context.Background(), o) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("worker --until-idle did not exit with a failed task waiting for the conductor")
	}
	tasks, err := d.Tasks(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]sqlstore.TaskState{}
	for _, k := range tasks {
		got[k.Inputs["n"]] = k.State
	}
	if got["0"] != sqlstore.Error || got["1"] != sqlstore.Complete {
		t.Errorf("tasks ended %v, want 0 in error and 1 complete", got)
	}
}

// waitState waits until task id is in state.
func waitState(t *testing.T, d *sqlstore.DB, id string, state sqlstore.TaskState) *sqlstore.Task {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		k, err := d.Task(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if k.State == state {
			return k
		}
		if time.Now().After(deadline) {
			t.Fatalf("task %s is %s, never %s: %s", id, k.State, state, k.Message)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A task with a completion review is complete only by the conductor's
// approval, even when the worker that submitted it died and another took
// it over: the run is not run again, its completion is submitted again.
func TestCompletionReviewSurvivesTakeover(t *testing.T) {
	sqltest.Each(t, func(t *testing.T, url string) {
		ctx := context.Background()
		d, err := sqlstore.Open(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		skill, marks := writeSkill(t, 2, "0")
		k, err := d.AddTask(ctx, skill, map[string]string{"n": "0"}, nil, sqlstore.ReviewCompletion)
		if err != nil {
			t.Fatal(err)
		}
		dead, die := context.WithCancel(ctx)
		o := options(d, "dying")
		o.WorkBase = filepath.Join(t.TempDir(), "work")
		done := make(chan error, 1)
		go func() { done <- worker.Run(dead, o) }()
		got := waitState(t, d, k.ID, sqlstore.NeedsReview)
		if !strings.HasPrefix(got.Message, "review the completion of run ") {
			t.Errorf("submitted with %q", got.Message)
		}
		die()
		<-done
		time.Sleep(100 * time.Millisecond)
		if moved, err := d.Recover(ctx, 50*time.Millisecond); err != nil || len(moved) != 1 {
			t.Fatalf("recovered %+v: %v", moved, err)
		}
		o = options(d, "next")
		o.UntilIdle, o.WorkBase = true, filepath.Join(t.TempDir(), "work")
		go func() { done <- worker.Run(ctx, o) }()
		waitState(t, d, k.ID, sqlstore.NeedsReview)
		if to, err := d.Review(ctx, k.ID, sqlstore.ReviewApproved, "ok"); err != nil || to != sqlstore.Complete {
			t.Fatalf("approval: %s %v", to, err)
		}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if got := allComplete(t, d, 1)[0]; got.Claims != 2 {
			t.Errorf("claims %d, want 2", got.Claims)
		}
		if c := counts(t, marks, 0); c["1"] != 1 || c["2"] != 1 {
			t.Errorf("steps ran %v, want each once", c)
		}
	})
}
