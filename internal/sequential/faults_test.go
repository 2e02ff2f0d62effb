package sequential_test

import (
	"context"
	"encoding/json"
	"errors"
	iofs "io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/skillkit/skillkit/internal/faultfs"

	lifecycle "github.com/skillkit/skillkit/internal/run"

	"github.com/skillkit/skillkit/internal/engine"
	"github.com/skillkit/skillkit/internal/runstore"
	"github.com/skillkit/skillkit/internal/runstore/fsstore"
	"github.com/skillkit/skillkit/internal/script"
	"github.com/skillkit/skillkit/plan"
)

// TestDiskFullThenResume fills the disk in the middle of a run: once the
// first step of phase 3 has run, writes to the run directory fail with
// ENOSPC, either until the test frees the disk or for one write only. The
// run must stop resumable with exit 3, its files readable; a resume with
// room again completes it, and no step that had completed runs again.
func TestDiskFullThenResume(t *testing.T) {
	for _, once := range []bool{false, true} {
		name := "full until freed"
		if once {
			name = "one write fails"
		}
		t.Run(name, func(t *testing.T) {
			skill := helperSkill(t.TempDir(), "", "0")
			dir := filepath.Join(t.TempDir(), "run")
			marker := engine.StepID("03-p", 0)
			var failed atomic.Int32
			files := faultfs.Wrap(func(path string) error {
				// One write of the record, not of the claim: a
				// claim refresh that fails is retried, and the
				// record's write is what is under test.
				if once && (failed.Load() > 0 || filepath.Base(path) == fsstore.ClaimFile) {
					return nil
				}
				log, _ := os.ReadFile(filepath.Join(dir, "steps.log"))
				if !strings.Contains(string(log), marker) {
					return nil
				}
				failed.Add(1)
				return syscall.ENOSPC
			})
			o := lifecycle.Options{Skill: skill, WorkDir: dir, Store: fsstore.New(fsstore.Options{NoSync: true, Files: files}), Backoff: 1}
			_, err := lifecycle.Run(context.Background(), o)
			files.Fault = nil
			if !errors.Is(err, syscall.ENOSPC) || !errors.Is(err, runstore.ErrWrite) {
				t.Fatalf("run on a full disk: err = %v, want ENOSPC, a write error (exit 3)", err)
			}
			p := progress(t, dir)
			if p.RunState.Terminal() {
				t.Fatalf("run state %s after a full disk: want it resumable", p.RunState)
			}
			if data, err := os.ReadFile(filepath.Join(dir, fsstore.StateFile)); err != nil || !json.Valid(data) {
				t.Fatalf("state.json after a full disk is not valid JSON: %v %q", err, data)
			}
			done := map[string]bool{}
			for s := range p.CompletedSteps.All() {
				done[s.ID] = true
			}
			if !done[engine.StepID("02-p", 1)] {
				t.Fatalf("steps completed before the disk filled are not recorded: %v", p.CompletedSteps)
			}

			o.WorkDir, o.Resume = "", dir
			if _, err := lifecycle.Run(context.Background(), o); err != nil {
				t.Fatalf("resume with room again: %v", err)
			}
			final := progress(t, dir)
			if final.RunState != runstore.RunCompleted || final.CompletedSteps.Len() != 10 {
				t.Fatalf("resumed run ended %s with %d steps", final.RunState, final.CompletedSteps.Len())
			}
			counts := map[string]int{}
			log, _ := os.ReadFile(filepath.Join(dir, "steps.log"))
			for _, l := range strings.Fields(string(log)) {
				counts[l]++
			}
			for s := range final.CompletedSteps.All() {
				if n := counts[s.ID]; n != 1 && !(n == 2 && !done[s.ID]) {
					t.Errorf("step %s ran %d times (completed before the full disk: %v)", s.ID, n, done[s.ID])
				}
			}
		})
	}
}

// TestStateDeletedBetweenSteps deletes state.json while a run is going: the
// runner holds the state and writes it whole after the next change, so the
// run completes with every update.
func TestStateDeletedBetweenSteps(t *testing.T) {
	skill := newSkill(t,
		phase("01-a.md",
			&plan.Step{Title: "a", Code: []*plan.CodeBlock{code("js", `return {stateUpdates: {a: 1}}`)}},
			bashStep("delete", "rm state.json"),
			&plan.Step{Title: "b", Code: []*plan.CodeBlock{code("js", `return {stateUpdates: {b: state.a + 1}}`)}},
		),
	)
	o := opts(t, skill)
	res, err := lifecycle.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	st, err := readState(res.Dir)
	if err != nil || st["a"] != 1.0 || st["b"] != 2.0 || st["status"] != "completed" {
		t.Fatalf("state after the run = %v, %v", st, err)
	}
}

// TestResumeTakesOverDeadClaim kills a run with SIGKILL, which leaves its
// claim.json behind with the dead process's pid and a fresh heartbeat: a
// resume takes the claim over at once and completes the run without
// running a completed step again.
func TestResumeTakesOverDeadClaim(t *testing.T) {
	skillDir := t.TempDir()
	dir := filepath.Join(t.TempDir(), "run")
	cmd := helper(t, skillDir, "0.2", "HELPER_WORKDIR="+dir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait for the third step to start, then kill.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		log, _ := os.ReadFile(filepath.Join(dir, "steps.log"))
		if strings.Count(string(log), "\n") >= 3 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the run did not reach its third step")
		}
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	var held struct{ PID int }
	data, err := os.ReadFile(filepath.Join(dir, fsstore.ClaimFile))
	if err == nil {
		err = json.Unmarshal(data, &held)
	}
	if err != nil || held.PID != cmd.Process.Pid {
		t.Fatalf("claim.json after the kill = %+v, %v; want the dead process's", held, err)
	}
	done := map[string]bool{}
	for s := range progress(t, dir).CompletedSteps.All() {
		done[s.ID] = true
	}
	if out, err := helper(t, skillDir, "0", "HELPER_RESUME="+dir).CombinedOutput(); err != nil {
		t.Fatalf("resume over a dead process's claim: %v\n%s", err, out)
	}
	final := progress(t, dir)
	if final.RunState != runstore.RunCompleted || final.CompletedSteps.Len() != 10 {
		t.Fatalf("resumed run ended %s with %d steps", final.RunState, final.CompletedSteps.Len())
	}
	log, _ := os.ReadFile(filepath.Join(dir, "steps.log"))
	for step := range done {
		if n := strings.Count(string(log), step+"\n"); n != 1 {
			t.Errorf("step %s completed before the kill and ran %d times", step, n)
		}
	}
}

// A JS step that allocates without end is stopped at the heap budget: the
// step fails with a message naming --js-memory, and the run ends failed
// with its claim released, not left running.
func TestJSHeapBudgetFailsTheRun(t *testing.T) {
	s := newSkill(t, phase("01-a.md", &plan.Step{Title: "grow", Code: []*plan.CodeBlock{
		code("javascript", `const keep = []; for (let i = 0; ; i++) keep.push("x".repeat(1000) + i)`)}}))
	o := opts(t, s)
	o.JSMemory = 64 << 20
	res, err := lifecycle.Run(context.Background(), o)
	if !errors.Is(err, script.ErrMemory) || !strings.Contains(err.Error(), "--js-memory") {
		t.Fatalf("err = %v, want the heap budget named", err)
	}
	if p := progress(t, res.Dir); p.RunState != runstore.RunFailed {
		t.Errorf("run ended %s, want failed", p.RunState)
	}
	if _, err := os.Stat(filepath.Join(res.Dir, fsstore.ClaimFile)); !errors.Is(err, iofs.ErrNotExist) {
		t.Errorf("claim.json left behind: %v", err)
	}
}
