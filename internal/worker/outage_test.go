package worker_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skillkit/skillkit/internal/runstore/sqlstore"
	"github.com/skillkit/skillkit/internal/runstore/sqlstore/sqltest"
	"github.com/skillkit/skillkit/internal/worker"
)

// The outage test stops and starts a PostgreSQL cluster of its own, never
// the one other tests share: SKILLKIT_TEST_OUTAGE_CLUSTER names it for
// pg_ctlcluster ("15 outage") and SKILLKIT_TEST_OUTAGE_DATABASE_URL is a
// URL of it (the README's Development section says how to make one).
const (
	outageCluster = "SKILLKIT_TEST_OUTAGE_CLUSTER"
	outageURL     = "SKILLKIT_TEST_OUTAGE_DATABASE_URL"
)

// safeBuffer is a bytes.Buffer the worker's slots may write at once.
type safeBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *safeBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *safeBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// outageDB is a fresh database on the test's own cluster, its URL, and
// how to stop and start that cluster; the test skips without one.
func outageDB(t *testing.T) (*sqlstore.DB, string, func(action string)) {
	cluster, url := strings.Fields(os.Getenv(outageCluster)), os.Getenv(outageURL)
	if len(cluster) != 2 || url == "" {
		t.Skip(outageCluster + " and " + outageURL + " are not set: no cluster of its own to stop")
	}
	ctl := func(action string) {
		t.Helper()
		if out, err := exec.Command("pg_ctlcluster", "--skip-systemctl-redirect", cluster[0], cluster[1], action).CombinedOutput(); err != nil {
			t.Fatalf("pg_ctlcluster %s: %v\n%s", action, err, out)
		}
	}
	// A fresh database on that cluster: the tasks of an earlier run must
	// not be counted, nor claimed.
	url = sqltest.PostgresAt(t, url)
	d, err := sqlstore.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d, url, ctl
}

// TestWorkerRidesOutARestart: PostgreSQL stops for 3 s under a polling
// worker, which retries with backoff, says so, and then works the tasks
// added once it is back (N10: every worker exited 3 at the first error).
func TestWorkerRidesOutARestart(t *testing.T) {
	d, _, ctl := outageDB(t)
	skill, _ := writeSkill(t, 1, "0")
	o := options(d, "rider")
	o.WorkBase, o.Outage = filepath.Join(t.TempDir(), "work"), time.Minute
	var out safeBuffer
	o.Out = &out
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- worker.Run(ctx, o) }()
	time.Sleep(300 * time.Millisecond)
	ctl("stop")
	time.Sleep(3 * time.Second)
	select {
	case err := <-done:
		ctl("start")
		t.Fatalf("the worker exited during the outage: %v\n%s", err, out.String())
	default:
	}
	ctl("start")
	addTasks(t, d, skill, 3)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		tasks, err := d.Tasks(context.Background(), "")
		n := 0
		for _, k := range tasks {
			if k.State == sqlstore.Complete {
				n++
			}
		}
		if err == nil && n == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of 3 tasks complete after the restart (%v)\n%s", n, err, out.String())
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("worker: %v", err)
	}
	if s := out.String(); !strings.Contains(s, "the database is away") || !strings.Contains(s, "the database is back") {
		t.Errorf("the worker did not say the database went and came back:\n%s", s)
	}
}

// TestStepRidesOutARestart: PostgreSQL stops while a task's step runs, and
// stays away when the step ends: the step's record writes wait for the
// database and go through once it is back, and the task completes with
// every step run once and recorded once (the write failed the run).
func TestStepRidesOutARestart(t *testing.T) {
	d, _, ctl := outageDB(t)
	skill, marks := writeSkill(t, 3, "2")
	addTasks(t, d, skill, 1)
	o := options(d, "rider")
	o.WorkBase, o.Outage = filepath.Join(t.TempDir(), "work"), time.Minute
	var out safeBuffer
	o.Out = &out
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- worker.Run(ctx, o) }()
	// Step 2 has started, so step 1's completion is committed: step 2
	// sleeps 2 s, and ends while the database is away. (Step 1's mark
	// alone is not enough: under load its commit could still be on its
	// way when the database stopped.)
	for deadline := time.Now().Add(30 * time.Second); counts(t, marks, 0)["2s"] == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("step 2 did not start\n%s", out.String())
		}
	}
	ctl("stop")
	time.Sleep(4 * time.Second)
	if counts(t, marks, 0)["2"] != 1 {
		ctl("start")
		t.Fatalf("step 2 did not end during the outage\n%s", out.String())
	}
	ctl("start")
	var tasks []*sqlstore.Task
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		var err error
		tasks, err = d.Tasks(context.Background(), "")
		if err == nil && len(tasks) == 1 && slices.Contains([]sqlstore.TaskState{sqlstore.Complete, sqlstore.Exited, sqlstore.Error}, tasks[0].State) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the task did not end after the restart: %v\n%s", err, out.String())
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("worker: %v", err)
	}
	if k := tasks[0]; k.State != sqlstore.Complete {
		t.Fatalf("task %s: %s (%s)\n%s", k.ID, k.State, k.Message, out.String())
	}
	if c := counts(t, marks, 0); c["1"] != 1 || c["2"] != 1 || c["3"] != 1 {
		t.Errorf("steps ran %v times, want each once", c)
	}
	log, err := d.Backend("").ReadEvents(context.Background(), tasks[0].RunID)
	if err != nil {
		t.Fatal(err)
	}
	ended := map[string]int{}
	for _, e := range log.Events {
		if e.Step != "" && e.To == "completed" {
			ended[e.Step]++
		}
	}
	if len(ended) != 3 || ended["01-mark#1"] != 1 || ended["01-mark#2"] != 1 || ended["01-mark#3"] != 1 {
		t.Errorf("steps recorded completed: %v, want each of 3 once", ended)
	}
	if s := out.String(); !strings.Contains(s, "the database is away while writing run") || !strings.Contains(s, "the database is back") {
		t.Errorf("the worker did not say a write of the run waited for the database:\n%s", s)
	}
}

// TestClaimWhoseAnswerWasLost: a claim that went through while its answer
// was lost leaves a task working under this worker's name that no slot
// works; the worker's next try finds it and works it, rather than leave
// it working for ever (found by bench/fleet: 1 task of 200 lost across a
// 30 s restart). The lost answer is played by a claim made before the
// worker starts, with the database stopped under its first try.
func TestClaimWhoseAnswerWasLost(t *testing.T) {
	d, _, ctl := outageDB(t)
	skill, marks := writeSkill(t, 2, "0")
	addTasks(t, d, skill, 2)
	if k, _, err := d.ClaimNext(context.Background(), "rider"); err != nil || k == nil {
		t.Fatalf("claiming the first task: %v", err)
	}
	o := options(d, "rider")
	o.WorkBase, o.Outage, o.UntilIdle = filepath.Join(t.TempDir(), "work"), time.Minute, true
	var out safeBuffer
	o.Out = &out
	ctl("stop")
	done := make(chan error, 1)
	go func() { done <- worker.Run(context.Background(), o) }()
	time.Sleep(time.Second)
	ctl("start")
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("worker: %v\n%s", err, out.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("the worker did not stop\n%s", out.String())
	}
	allComplete(t, d, 2)
	for i := range 2 {
		if c := counts(t, marks, i); c["1"] != 1 || c["2"] != 1 {
			t.Errorf("task n=%d: steps ran %v times, want each once", i, c)
		}
	}
}

// TestOutagePastTheLimitStopsTheWorker: PostgreSQL stops while a task's
// step runs and stays away past --outage: the worker exits with the
// outage's error (sqlstore.ErrAway), leaving the task working and its run
// resumable rather than moving the task to error as if the run had
// failed; once the server is back, recover and the next worker finish
// it, each step run once but the one in flight.
func TestOutagePastTheLimitStopsTheWorker(t *testing.T) {
	d, _, ctl := outageDB(t)
	skill, marks := writeSkill(t, 3, "1")
	addTasks(t, d, skill, 1)
	o := options(d, "rider")
	o.WorkBase, o.Outage = filepath.Join(t.TempDir(), "work"), time.Second
	var out safeBuffer
	o.Out = &out
	done := make(chan error, 1)
	go func() { done <- worker.Run(context.Background(), o) }()
	for deadline := time.Now().Add(30 * time.Second); counts(t, marks, 0)["2s"] == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("step 2 did not start\n%s", out.String())
		}
	}
	ctl("stop")
	var err error
	select {
	case err = <-done:
	case <-time.After(40 * time.Second):
		ctl("start")
		t.Fatalf("the worker did not stop within 40 s of an outage past --outage 1s\n%s", out.String())
	}
	ctl("start")
	if !errors.Is(err, sqlstore.ErrAway) {
		t.Fatalf("worker: %v, want the outage's error\n%s", err, out.String())
	}
	ctx := context.Background()
	k := tasksOnceBack(t, d)[0]
	if k.State != sqlstore.Working {
		t.Fatalf("task %s is %s (%s), want working for recover\n%s", k.ID, k.State, k.Message, out.String())
	}
	if moved, err := d.Recover(ctx, 0); err != nil || len(moved) != 1 {
		t.Fatalf("recover: %v, %v", moved, err)
	}
	drain(t, d, 1)
	allComplete(t, d, 1)
	if c := counts(t, marks, 0); c["1"] != 1 || c["2"] < 1 || c["2"] > 2 || c["3"] != 1 {
		t.Errorf("steps ran %v times, want each once, step 2 (in flight) at most twice", c)
	}
}

// tasksOnceBack are the database's tasks, once it answers again.
func tasksOnceBack(t *testing.T, d *sqlstore.DB) []*sqlstore.Task {
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		tasks, err := d.Tasks(context.Background(), "")
		if err == nil {
			return tasks
		}
		if time.Now().After(deadline) {
			t.Fatalf("the database did not come back: %v", err)
		}
	}
}

// TestEightWorkersRideOutARestart: PostgreSQL restarts under eight worker
// processes working a queue: every task completes once it is back, each
// step of each run exactly once (an outage kills no process, so nothing
// is in flight twice), and no task is left working or claimed twice.
func TestEightWorkersRideOutARestart(t *testing.T) {
	d, url, ctl := outageDB(t)
	const n = 24
	skill, marks := writeSkill(t, 3, "0.2")
	addTasks(t, d, skill, n)
	var kids []*exec.Cmd
	for i := range 8 {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), childEnv+"="+url, fmt.Sprintf("%s=fleet%d", childName, i))
		var out safeBuffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		kids = append(kids, cmd)
		t.Cleanup(func() {
			cmd.Process.Kill()
			cmd.Wait()
			if t.Failed() {
				t.Logf("fleet%d:\n%s", i, out.String())
			}
		})
	}
	// Restart once a few tasks are done and others are mid-run.
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		tasks, err := d.Tasks(context.Background(), sqlstore.Complete)
		if err == nil && len(tasks) >= 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no task completed: %v", err)
		}
	}
	ctl("restart")
	time.Sleep(500 * time.Millisecond)
	ctl("stop")
	time.Sleep(3 * time.Second)
	ctl("start")
	for deadline := time.Now().Add(120 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		tasks, err := d.Tasks(context.Background(), sqlstore.Complete)
		if err == nil && len(tasks) == n {
			break
		}
		if time.Now().After(deadline) {
			all, _ := d.Tasks(context.Background(), "")
			for _, k := range all {
				if k.State != sqlstore.Complete {
					t.Errorf("task %s: %s %s (%s)", k.ID, k.State, k.Worker, k.Message)
				}
			}
			t.Fatalf("%d of %d tasks complete two minutes after the restart", len(tasks), n)
		}
	}
	for _, k := range allComplete(t, d, n) {
		if k.Claims != 1 {
			t.Errorf("task %s claimed %d times", k.ID, k.Claims)
		}
	}
	for i := range n {
		if c := counts(t, marks, i); c["1"] != 1 || c["2"] != 1 || c["3"] != 1 {
			t.Errorf("task %d: steps ran %v, want each once", i, c)
		}
	}
	for _, cmd := range kids {
		if cmd.ProcessState != nil {
			t.Errorf("a worker exited during the restart: %v", cmd.ProcessState)
		}
	}
}
