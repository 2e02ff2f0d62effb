// Package storetest is the suite every backend of runs passes: the
// lifecycle of a run, the terminal and interrupted rules, claims and their
// takeover, process groups, crash points made with fault injection, and
// the readers. A new backend is one package plus one line in Backends.
package storetest

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/skillkit/skillkit/internal/faultfs"
	"github.com/skillkit/skillkit/internal/runstore"
	"github.com/skillkit/skillkit/internal/runstore/fsstore"
	"github.com/skillkit/skillkit/internal/runstore/memstore"
	"github.com/skillkit/skillkit/internal/runstore/sqlstore"
	"github.com/skillkit/skillkit/internal/runstore/sqlstore/sqltest"
)

// Backend is a kind of backend under test.
type Backend struct {
	Name string
	// Place makes an empty place for runs (a folder, a database) for
	// the test, and returns how to open a backend over it; the files
	// given are those the backend writes through, where it writes files.
	Place func(t *testing.T) func(files runstore.Files) runstore.Backend
}

// Backends are every backend of the repository.
func Backends() []Backend {
	return []Backend{
		{"fs", func(t *testing.T) func(runstore.Files) runstore.Backend {
			base := t.TempDir()
			return func(files runstore.Files) runstore.Backend {
				return fsstore.NewBackend(fsstore.Options{Base: base, NoSync: true, Files: files})
			}
		}},
		// With its syncs, whose failures are crash points too, a
		// pipelined commit's on its goroutine.
		{"fs-synced", func(t *testing.T) func(runstore.Files) runstore.Backend {
			base := t.TempDir()
			return func(files runstore.Files) runstore.Backend {
				return fsstore.NewBackend(fsstore.Options{Base: base, Files: files})
			}
		}},
		{"sqlite", func(t *testing.T) func(runstore.Files) runstore.Backend { return sqlPlace(t, sqltest.SQLite(t)) }},
		{"postgres", func(t *testing.T) func(runstore.Files) runstore.Backend { return sqlPlace(t, sqltest.Postgres(t)) }},
		{"memory", func(t *testing.T) func(runstore.Files) runstore.Backend {
			b := memstore.New(t.TempDir())
			return func(runstore.Files) runstore.Backend { return b }
		}},
	}
}

func sqlPlace(t *testing.T, url string) func(runstore.Files) runstore.Backend {
	d, err := sqlstore.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	base := t.TempDir()
	return func(runstore.Files) runstore.Backend { return d.Backend(base) }
}

// Run runs the suite on b.
func Run(t *testing.T, b Backend) {
	for _, c := range []struct {
		name string
		test func(t *testing.T, place func(runstore.Files) runstore.Backend)
	}{
		{"Lifecycle", testLifecycle},
		{"Terminal", testTerminal},
		{"Interrupted", testInterrupted},
		{"Closed", testClosed},
		{"AgentCalls", testAgentCalls},
		{"Claims", testClaims},
		{"Takeover", testTakeover},
		{"ClaimFromTheFuture", testClaimFromTheFuture},
		{"ProcessGroups", testProcessGroups},
		{"CrashPoints", testCrashPoints},
		{"Readers", testReaders},
	} {
		t.Run(c.name, func(t *testing.T) { c.test(t, b.Place(t)) })
	}
}

func open(place func(runstore.Files) runstore.Backend, files runstore.Files) runstore.Store {
	return runstore.NewStore(place(files), runstore.Options{Files: files})
}

// steps is how many steps the runs of the suite have.
const steps = 4

// lastOfPhase is the step whose end is committed with its phase's.
const lastOfPhase = 3

func create(t *testing.T, s runstore.Store, id string, at time.Time, co runstore.ClaimOptions) runstore.Run {
	t.Helper()
	r, err := s.Create(runstore.NewRun{Start: runstore.Start{RunID: id, Skill: "demo", StartedAt: at, TotalSteps: steps},
		State: map[string]any{"n": 0.0}}, co)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// step runs step n of a run as the runners record one: its start, an
// agent call, a state it set, its end with a checkpoint, a metric and a
// log line. An
// even step is a loop's action, whose checkpoint is paced (written to
// snapshots only as the newest); the state grows a list at its end, which
// the log records as a patch that appends, and whose end is committed
// with its sync under way (Run.CommitPipelined), as a loop's is. Step
// lastOfPhase ends its phase: its end is committed with the phase's
// (Run.CommitLater).
func step(r runstore.Run, n int) error {
	id := "01-a#" + strconv.Itoa(n)
	start := runstore.Event{Phase: "01-a", Step: id, From: "pending", To: "executing", Position: n}
	end := runstore.Event{Phase: "01-a", Step: id, From: "executing", To: "completed"}
	if n%2 == 0 {
		id = "action-" + strconv.Itoa(n)
		start = runstore.Event{Action: id, From: "", To: "loading", Position: n}
		end = runstore.Event{Action: id, From: "post_hook", To: "completed"}
	}
	if err := r.Append(start); err != nil {
		return err
	}
	if err := callAgent(r); err != nil {
		return err
	}
	if err := r.Log("01-a", "step "+id+"\n"); err != nil {
		return err
	}
	done, _ := r.State()["done"].([]any)
	r.SetState(map[string]any{"n": float64(n), "done": append(slices.Clip(done), float64(n))})
	if err := r.Checkpoint("auto_checkpoint", runstore.Worker{ID: "demo-worker", Skill: "demo", Unit: id}); err != nil {
		return err
	}
	rec := runstore.NewStepRecord(n, id, "step", runstore.StepCompleted, false, time.Now())
	end.Record = &rec
	if n == lastOfPhase {
		// Its end rides on the phase's, one commit for the two.
		if err := r.CommitLater(end); err != nil {
			return err
		}
		end = runstore.Event{Phase: "01-a", From: "post_hook", To: "completed"}
	}
	commit := r.Commit
	if n%2 == 0 {
		commit = r.CommitPipelined
	}
	if err := commit(end); err != nil {
		return err
	}
	return r.Metric(runstore.Metric{Kind: runstore.KindStep, Phase: "01-a", Step: "01-a#" + strconv.Itoa(n), Attempts: 1, Outcome: "completed"})
}

// callAgent records an agent call beginning, as the runners do before
// the agent's command starts: the next of the run's calls.
func callAgent(r runstore.Run) error {
	return r.AgentCall(runstore.Conversation{Calls: calls(r.Progress()) + 1, Thread: "thread-1"})
}

// calls is how many agent calls p says the run began.
func calls(p runstore.Progress) int {
	if p.Agent == nil {
		return 0
	}
	return p.Agent.Calls
}

// stateAfter is state.json, compacted, after k steps.
func stateAfter(k int) string {
	if k == 0 {
		return `{"n":0}`
	}
	done := make([]string, k)
	for i := range done {
		done[i] = strconv.Itoa(i + 1)
	}
	return `{"done":[` + strings.Join(done, ",") + `],"n":` + strconv.Itoa(k) + `}`
}

// run starts a run and runs steps from..to.
func run(r runstore.Run, from, to int) error {
	if from == 1 {
		if err := r.Commit(runstore.Event{From: "pending", To: runstore.State(runstore.RunRunning)}); err != nil {
			return err
		}
	}
	for n := from; n <= to; n++ {
		if err := step(r, n); err != nil {
			return err
		}
	}
	return nil
}

func finish(r runstore.Run, to runstore.RunState) error {
	return r.Commit(runstore.Event{From: runstore.State(runstore.RunRunning), To: runstore.State(to)})
}

// stateJSON reads the state.json of the run's work dir.
func stateJSON(t *testing.T, work string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(work, runstore.StateFile))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(strings.Fields(string(data)), "")
}

// A run is created, runs, closes and resumes: the resume rebuilds the
// progress and the state from the record, state.json says the state, and
// the run finishes.
func testLifecycle(t *testing.T, place func(runstore.Files) runstore.Backend) {
	s := open(place, nil)
	r := create(t, s, "r1", time.Now(), runstore.ClaimOptions{})
	if got := stateJSON(t, r.WorkDir()); got != `{"n":0}` {
		t.Errorf("state.json of a new run = %s", got)
	}
	if err := run(r, 1, 2); err != nil {
		t.Fatal(err)
	}
	want := r.Progress()
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	back, err := s.Resume("r1", runstore.ResumeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := back.Progress()
	if got.StepsDone() != 2 || got.RunState != runstore.RunRunning || got.CurrentStep != want.CurrentStep || got.LastAction != want.LastAction {
		t.Errorf("progress after resume: %+v\nwant %+v", got, want)
	}
	if back.State()["n"] != 2.0 || stateJSON(t, back.WorkDir()) != stateAfter(2) {
		t.Errorf("state after resume = %v, state.json %s", back.State(), stateJSON(t, back.WorkDir()))
	}
	if err := run(back, 3, steps); err != nil {
		t.Fatal(err)
	}
	if err := finish(back, runstore.RunCompleted); err != nil {
		t.Fatal(err)
	}
	if err := back.Close(); err != nil {
		t.Fatal(err)
	}
	sum, err := s.Status("r1")
	if err != nil {
		t.Fatal(err)
	}
	if sum.State != runstore.RunCompleted || sum.StepsDone != steps || sum.Holder != "" || sum.LastState["n"] != float64(steps) {
		t.Errorf("status of the finished run: %+v", sum)
	}
}

// A finished run is never resumed; a failed one is, with Retry, and the
// refusal says so.
func testTerminal(t *testing.T, place func(runstore.Files) runstore.Backend) {
	s := open(place, nil)
	for _, c := range []struct {
		id     string
		to     runstore.RunState
		retry  bool
		hinted bool
	}{{"done", runstore.RunCompleted, false, false}, {"failed", runstore.RunFailed, true, true}} {
		r := create(t, s, c.id, time.Now(), runstore.ClaimOptions{})
		if err := run(r, 1, 1); err != nil {
			t.Fatal(err)
		}
		if err := finish(r, c.to); err != nil {
			t.Fatal(err)
		}
		r.Close()
		_, err := s.Resume(c.id, runstore.ResumeOptions{})
		if !errors.Is(err, runstore.ErrTerminal) || strings.Contains(err.Error(), "--retry") != c.hinted {
			t.Errorf("resuming a %s run: %v", c.to, err)
		}
		r, err = s.Resume(c.id, runstore.ResumeOptions{Retry: true})
		if c.retry != (err == nil) {
			t.Errorf("retrying a %s run: %v", c.to, err)
		}
		if err == nil {
			if p := r.Progress(); p.StepsDone() != 1 || p.RunState != c.to {
				t.Errorf("retried run's progress: %+v", p)
			}
			r.Close()
		}
	}
}

// A run marked running that nobody holds is interrupted to a reader; a
// held one is running, and names its holder.
func testInterrupted(t *testing.T, place func(runstore.Files) runstore.Backend) {
	s := open(place, nil)
	r := create(t, s, "r1", time.Now(), runstore.ClaimOptions{})
	if sum, err := s.Status("r1"); err != nil || sum.State != runstore.RunPending {
		t.Errorf("a pending run reads as %v, %v", sum, err)
	}
	if err := run(r, 1, 1); err != nil {
		t.Fatal(err)
	}
	if sum, err := s.Status("r1"); err != nil || sum.State != runstore.RunRunning || sum.Holder == "" {
		t.Errorf("a held running run reads as %+v, %v", sum, err)
	}
	r.Close()
	if sum, err := s.Status("r1"); err != nil || sum.State != runstore.RunInterrupted || sum.Holder != "" {
		t.Errorf("a released running run reads as %+v, %v", sum, err)
	}
}

// A closed run's record writes nothing more: every write, and the
// barrier before an effect (Settle), is refused with ErrClosed, whatever
// the backend. The run was released: a write then would land in a record
// another process may hold, and a sync started then would outlive the
// files the release closed.
func testClosed(t *testing.T, place func(runstore.Files) runstore.Backend) {
	s := open(place, nil)
	r := create(t, s, "r1", time.Now(), runstore.ClaimOptions{})
	if err := run(r, 1, 2); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	before, err := s.Events("r1")
	if err != nil {
		t.Fatal(err)
	}
	end := runstore.Event{Action: "action-3", From: "post_hook", To: "completed"}
	for _, w := range []struct {
		name  string
		write func() error
	}{
		{"Append", func() error { return r.Append(runstore.Event{Action: "action-3", To: "loading", Position: 3}) }},
		{"Commit", func() error { return r.Commit(end) }},
		{"CommitLater", func() error { return r.CommitLater(end) }},
		{"CommitPipelined", func() error { return r.CommitPipelined(end) }},
		{"Metric", func() error { return r.Metric(runstore.Metric{Kind: runstore.KindStep, Outcome: "completed"}) }},
		{"Log", func() error { return r.Log("01-a", "after close\n") }},
		{"Flush", r.Flush},
		{"Settle", r.Settle},
		{"AgentCall", func() error { return callAgent(r) }},
		{"finish", func() error { return finish(r, runstore.RunCompleted) }},
	} {
		if err := w.write(); !errors.Is(err, runstore.ErrClosed) {
			t.Errorf("%s after Close: %v, want ErrClosed", w.name, err)
		}
	}
	after, err := s.Events("r1")
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != len(before) {
		t.Errorf("the closed run's record has %d events, %d when it was closed", len(after), len(before))
	}
	sum, err := s.Status("r1")
	if err != nil || sum.State != runstore.RunInterrupted || sum.Holder != "" || sum.StepsDone != 2 {
		t.Errorf("the closed run reads as %+v, %v; want interrupted, unheld, 2 steps", sum, err)
	}
	back, err := s.Resume("r1", runstore.ResumeOptions{})
	if err != nil {
		t.Fatalf("resuming the closed run: %v", err)
	}
	back.Close()
}

// An agent call is recorded as it begins: a reader sees it counted while
// the call runs, before any later event, and a holder that dies then (its
// claim goes stale, as a killed process's does) leaves it counted for
// the resume, which goes on counting. The mark changes nothing else: the
// state set before it, which the step's end has not recorded, is not in
// the record, and the run is still running with its steps as they were.
func testAgentCalls(t *testing.T, place func(runstore.Files) runstore.Backend) {
	s := open(place, nil)
	old := stale(t, s)
	old.SetState(map[string]any{"n": 99.0})
	if err := callAgent(old); err != nil {
		t.Fatal(err)
	}
	sum, err := s.Status("r1")
	if err != nil || calls(sum.Progress) != 2 || sum.State != runstore.RunRunning || sum.StepsDone != 1 || sum.LastState["n"] != 1.0 {
		t.Fatalf("status during the second call: %+v, %v; want 2 calls, running, 1 step, n 1", sum, err)
	}
	if c := sum.Progress.Agent; c.Thread != "thread-1" {
		t.Errorf("the call's conversation: %+v", c)
	}
	time.Sleep(300 * time.Millisecond)
	r, err := s.Resume("r1", runstore.ResumeOptions{})
	if err != nil {
		t.Fatalf("taking the run over from a holder that died in an agent call: %v", err)
	}
	defer r.Close()
	defer old.Close()
	if got := calls(r.Progress()); got != 2 {
		t.Errorf("the resume counts %d agent calls, want 2", got)
	}
	if got := stateJSON(t, r.WorkDir()); got != stateAfter(1) {
		t.Errorf("state.json after the resume: %s, want %s", got, stateAfter(1))
	}
	if err := run(r, 2, 2); err != nil {
		t.Fatal(err)
	}
	if got := calls(r.Progress()); got != 3 {
		t.Errorf("after the resume's step: %d agent calls, want 3", got)
	}
}

// Of two claims of a run one wins: the other is told who holds it, and
// a run id used twice is refused.
func testClaims(t *testing.T, place func(runstore.Files) runstore.Backend) {
	s := open(place, nil)
	r := create(t, s, "r1", time.Now(), runstore.ClaimOptions{})
	if err := run(r, 1, 1); err != nil {
		t.Fatal(err)
	}
	var ce *runstore.ClaimedError
	if _, err := s.Resume("r1", runstore.ResumeOptions{}); !errors.As(err, &ce) || ce.Holder == "" {
		t.Errorf("resuming a held run: %v, want a ClaimedError", err)
	}
	if _, err := s.Create(runstore.NewRun{Start: runstore.Start{RunID: "r1", Skill: "demo", StartedAt: time.Now()}}, runstore.ClaimOptions{}); !errors.Is(err, runstore.ErrExists) {
		t.Errorf("creating a run that exists: %v, want ErrExists", err)
	}
	r.Close()
	back, err := s.Resume("r1", runstore.ResumeOptions{})
	if err != nil {
		t.Fatalf("resuming a released run: %v", err)
	}
	back.Close()
}

// stale makes a run whose holder stops saying it is alive: its heartbeat
// never beats within the test, and its claim times out.
func stale(t *testing.T, s runstore.Store) runstore.Run {
	r := create(t, s, "r1", time.Now(), runstore.ClaimOptions{Heartbeat: time.Hour, Timeout: 150 * time.Millisecond})
	if err := run(r, 1, 1); err != nil {
		t.Fatal(err)
	}
	return r
}

// A stale claim is taken over; the holder it was taken from is told,
// and writes nothing more.
func testTakeover(t *testing.T, place func(runstore.Files) runstore.Backend) {
	s := open(place, nil)
	old := stale(t, s)
	time.Sleep(300 * time.Millisecond)
	r, err := s.Resume("r1", runstore.ResumeOptions{})
	if err != nil {
		t.Fatalf("taking a stale claim over: %v", err)
	}
	defer r.Close()
	err = old.Commit(runstore.Event{Phase: "01-a", Step: "01-a#2", From: "pending", To: "executing"})
	if !errors.Is(err, runstore.ErrClaimLost) {
		t.Errorf("the old holder's write: %v, want ErrClaimLost", err)
	}
	select {
	case <-old.Lost():
	case <-time.After(5 * time.Second):
		t.Error("the old holder was not told on Lost")
	}
	old.Close()
	if err := run(r, 2, 2); err != nil {
		t.Fatal(err)
	}
	if p := r.Progress(); p.StepsDone() != 2 {
		t.Errorf("steps done after the takeover: %d, want 2", p.StepsDone())
	}
	if sum, err := s.Status("r1"); err != nil || sum.Holder == "" || sum.StepsDone != 2 {
		t.Errorf("status after the takeover: %+v, %v", sum, err)
	}
}

// A claim whose heartbeat lies in the future, by the clock of a holder on
// another host, is judged by whether the heartbeat moves: a one-shot
// resume is refused while it moves, and takes the run over once it has
// stood still for a lease (F13: a dead holder's claim was refused for
// good).
func testClaimFromTheFuture(t *testing.T, place func(runstore.Files) runstore.Backend) {
	s := open(place, nil)
	ahead := func() time.Time { return time.Now().Add(time.Hour) }
	// Its lease is long, so that a heartbeat starved by a busy machine
	// is not taken for a stopped one; the watch ends at its first move.
	live := create(t, s, "live", time.Now(), runstore.ClaimOptions{Heartbeat: 20 * time.Millisecond, Timeout: 5 * time.Second, Clock: ahead, Host: "elsewhere"})
	defer live.Close()
	var ce *runstore.ClaimedError
	if _, err := s.Resume("live", runstore.ResumeOptions{}); !errors.As(err, &ce) || ce.Watch <= 0 {
		t.Errorf("resuming a run whose holder beats an hour ahead: %v, want refused by its moving heartbeat", err)
	}
	dead := create(t, s, "dead", time.Now(), runstore.ClaimOptions{Heartbeat: time.Hour, Timeout: 300 * time.Millisecond, Clock: ahead, Host: "elsewhere"})
	defer dead.Close()
	r, err := s.Resume("dead", runstore.ResumeOptions{})
	if err != nil {
		t.Fatalf("one resume of a run whose holder beat an hour ahead, then stopped: %v, want it taken over after a lease", err)
	}
	defer r.Close()
	if err := run(r, 1, 1); err != nil {
		t.Errorf("the resumed run's step: %v", err)
	}
	if err := dead.Commit(runstore.Event{Phase: "01-a", Step: "01-a#2", From: "pending", To: "executing"}); !errors.Is(err, runstore.ErrClaimLost) {
		t.Errorf("the old holder's write: %v, want ErrClaimLost", err)
	}
}

// sleeper starts a command in a process group of its own.
func sleeper(t *testing.T) *exec.Cmd {
	cmd := exec.Command("sleep", "1000")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd
}

// exited reports whether cmd exits within a few seconds.
func exited(cmd *exec.Cmd) bool {
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
		return true
	case <-time.After(5 * time.Second):
		return false
	}
}

// A takeover kills the process groups the stale holder's commands left
// running, and only those.
func testProcessGroups(t *testing.T, place func(runstore.Files) runstore.Backend) {
	s := open(place, nil)
	old := stale(t, s)
	left, ended := sleeper(t), sleeper(t)
	old.Started(left.Process.Pid)
	old.Started(ended.Process.Pid)
	old.Ended(ended.Process.Pid)
	time.Sleep(300 * time.Millisecond)
	r, err := s.Resume("r1", runstore.ResumeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer old.Close()
	if !exited(left) {
		t.Error("the group the stale holder left running was not killed")
	}
	if err := ended.Process.Signal(syscall.Signal(0)); err != nil {
		t.Error("a group that had ended was killed")
	}
}

// A write that fails part-way (a full disk) at any point of a run leaves
// a record that reads, whose steps are those committed (or one more,
// when the failed write was the commit's sync), and that resumes and
// finishes with state.json agreeing with it. So does a sync that fails
// (EIO), a pipelined commit's on its goroutine too: its error is the
// next waiting write's.
func testCrashPoints(t *testing.T, place func(runstore.Files) runstore.Backend) {
	t.Run("writes", func(t *testing.T) {
		crashPoints(t, place, "write", syscall.ENOSPC, func(fault func(string) error) *faultfs.Files { return faultfs.Wrap(fault) })
	})
	t.Run("syncs", func(t *testing.T) {
		crashPoints(t, place, "sync", syscall.EIO, func(fault func(string) error) *faultfs.Files {
			f := faultfs.Wrap(nil)
			f.SyncFault = fault
			return f
		})
	})
}

// crashPoints fails the nth write (or sync) that wrap's files make, for
// every n until a run gets through, and checks the record each leaves.
func crashPoints(t *testing.T, place func(runstore.Files) runstore.Backend, what string, fail error, wrap func(fault func(string) error) *faultfs.Files) {
	for n := 1; ; n++ {
		if n > 200 {
			t.Fatal("the run never got past its faults")
		}
		ops := 0
		files := wrap(func(string) error {
			ops++
			if ops == n {
				return fail
			}
			return nil
		})
		id := "crash-" + what + "-" + strconv.Itoa(n)
		s := open(place, files)
		committed, called, err := crashRun(s, id)
		if err == nil {
			t.Logf("%d crash points", n-1)
			return
		}
		if !errors.Is(err, runstore.ErrWrite) {
			t.Fatalf("fault at %s %d: %v, want a write error", what, n, err)
		}
		after := open(place, nil)
		sum, err := after.Status(id)
		if errors.Is(err, runstore.ErrNoRun) && committed < 0 {
			continue
		}
		if err != nil {
			t.Fatalf("fault at %s %d: the record does not read: %v", what, n, err)
		}
		if d := sum.StepsDone - max(committed, 0); d != 0 && d != 1 {
			t.Fatalf("fault at %s %d: %d steps recorded, %d committed", what, n, sum.StepsDone, committed)
		}
		// Every call begun is counted; the one whose record failed may be
		// (its line written, its sync failed), and was not made.
		if d := calls(sum.Progress) - called; d != 0 && d != 1 {
			t.Fatalf("fault at %s %d: %d agent calls recorded, %d begun", what, n, calls(sum.Progress), called)
		}
		if sum.State.Terminal() {
			continue
		}
		r, err := after.Resume(id, runstore.ResumeOptions{})
		if err != nil {
			t.Fatalf("fault at %s %d: resume: %v", what, n, err)
		}
		if want := stateAfter(sum.StepsDone); stateJSON(t, r.WorkDir()) != want {
			t.Errorf("fault at %s %d: state.json %s after the resume, want %s", what, n, stateJSON(t, r.WorkDir()), want)
		}
		// From the first step, the run is started again.
		err = run(r, r.Progress().StepsDone()+1, steps)
		if err == nil {
			err = finish(r, runstore.RunCompleted)
		}
		if err != nil {
			t.Fatalf("fault at %s %d: finishing the resumed run: %v", what, n, err)
		}
		r.Close()
		if sum, err := after.Status(id); err != nil || sum.State != runstore.RunCompleted || sum.StepsDone != steps {
			t.Fatalf("fault at %s %d: the resumed run ends %+v, %v", what, n, sum, err)
		}
	}
}

// crashRun runs a whole run until a write fails, and says how many steps
// were committed (-1 when the run's start was not) and how many agent
// calls were recorded as begun (each step's record of its call returned).
func crashRun(s runstore.Store, id string) (committed, called int, err error) {
	r, err := s.Create(runstore.NewRun{Start: runstore.Start{RunID: id, Skill: "demo", StartedAt: time.Now(), TotalSteps: steps},
		State: map[string]any{"n": 0.0}}, runstore.ClaimOptions{})
	if err != nil {
		return -1, 0, err
	}
	defer r.Close()
	if err := run(r, 1, 0); err != nil {
		return 0, 0, err
	}
	for n := 1; n <= steps; n++ {
		if err := step(r, n); err != nil {
			return r.Progress().StepsDone(), calls(r.Progress()), err
		}
	}
	return steps, steps, finish(r, runstore.RunCompleted)
}

// The readers see every run through the store: the list newest first,
// the newest run for "", a run's events and metrics, and no run for a
// name that has none.
func testReaders(t *testing.T, place func(runstore.Files) runstore.Backend) {
	s := open(place, nil)
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for i, id := range []string{"a", "c", "b"} {
		r := create(t, s, id, at.Add(time.Duration(i)*time.Minute), runstore.ClaimOptions{})
		if err := run(r, 1, i+1); err != nil {
			t.Fatal(err)
		}
		r.Close()
	}
	runs, err := s.List()
	if err != nil || len(runs) != 3 || runs[0].ID != "b" || runs[1].ID != "c" || runs[2].ID != "a" {
		t.Fatalf("List = %v, %v; want b, c, a", runs, err)
	}
	if sum, err := s.Status(""); err != nil || sum.ID != "b" || sum.StepsDone != 3 {
		t.Errorf("the newest run: %+v, %v", sum, err)
	}
	events, err := s.Events("c")
	if err != nil || len(events) != 1+1+2*3 || events[0].Start == nil || events[0].Start.RunID != "c" {
		t.Errorf("events of c: %d, %v", len(events), err)
	}
	for _, e := range events {
		if e.Run != "c" || e.Time.IsZero() {
			t.Errorf("an event of c is not stamped: %+v", e)
		}
	}
	metrics, err := s.Metrics("c")
	if err != nil || len(metrics) != 2 || metrics[1].Step != "01-a#2" || metrics[0].Run != "c" {
		t.Errorf("metrics of c: %+v, %v", metrics, err)
	}
	for _, f := range []func(string) error{
		func(ref string) error { _, err := s.Status(ref); return err },
		func(ref string) error { _, err := s.Events(ref); return err },
		func(ref string) error { _, err := s.Metrics(ref); return err },
		func(ref string) error { _, err := s.Resume(ref, runstore.ResumeOptions{}); return err },
	} {
		if err := f("nope"); !errors.Is(err, runstore.ErrNoRun) {
			t.Errorf("reading a run that is not there: %v, want ErrNoRun", err)
		}
	}
}
