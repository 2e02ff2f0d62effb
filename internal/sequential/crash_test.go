package sequential_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	lifecycle "github.com/skillkit/skillkit/internal/run"

	"github.com/skillkit/skillkit/internal/crashtest"
	"github.com/skillkit/skillkit/internal/engine"
	"github.com/skillkit/skillkit/internal/runstore"
	"github.com/skillkit/skillkit/internal/runstore/fsstore"
	"github.com/skillkit/skillkit/plan"
)

// The crash and race tests run the runner in a child process (this test
// binary, re-executed) so that it can be killed for real.
const helperEnv = "SKILLKIT_SEQUENTIAL_HELPER"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) != "" {
		os.Exit(helperMain())
	}
	os.Exit(m.Run())
}

// helperSkill is 5 phases of 2 steps; each step appends its id to
// steps.log, runs extra (shell text), then sleeps.
func helperSkill(dir, extra, sleep string) *plan.Skill {
	var phases []*plan.Phase
	for i := 1; i <= 5; i++ {
		file := fmt.Sprintf("%02d-p.md", i)
		var steps []*plan.Step
		for j := 1; j <= 2; j++ {
			id := engine.StepID(strings.TrimSuffix(file, ".md"), j-1)
			steps = append(steps, bashStep("s", fmt.Sprintf("echo %s >> steps.log; %s sleep %s", id, extra, sleep)))
		}
		phases = append(phases, phase(file, steps...))
	}
	return &plan.Skill{Dir: dir, Name: "crash", Mode: plan.ModeSequential, Phases: phases, Hash: "h1"}
}

// helperMain runs or resumes the helper skill as told by the environment
// and exits as the CLI would.
func helperMain() int {
	o := lifecycle.Options{
		Skill:   helperSkill(os.Getenv("HELPER_SKILL"), os.Getenv("HELPER_EXTRA"), os.Getenv("HELPER_SLEEP")),
		WorkDir: os.Getenv("HELPER_WORKDIR"), Resume: os.Getenv("HELPER_RESUME"),
	}
	ms := func(name string) time.Duration {
		n, _ := strconv.Atoi(os.Getenv(name))
		return time.Duration(n) * time.Millisecond
	}
	o.Claim = runstore.ClaimOptions{Heartbeat: ms("HELPER_HEARTBEAT_MS"), Timeout: ms("HELPER_TIMEOUT_MS")}
	var err error
	if o.Store, err = crashtest.StoreFromEnv(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	_, err = lifecycle.Run(context.Background(), o)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	switch {
	case err == nil:
		return 0
	case errors.As(err, new(*runstore.ClaimedError)):
		return exitClaimed
	}
	return 1
}

// exitClaimed is the helper's exit code for a run another process holds.
const exitClaimed = 4

func helper(t *testing.T, skillDir, sleep string, env ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"=1", "HELPER_SKILL="+skillDir, "HELPER_SLEEP="+sleep)
	cmd.Env = append(cmd.Env, env...)
	return cmd
}

// TestCrashResume kills a run with SIGKILL at 20 random moments. After each
// kill state.json must be valid JSON, and a resume must complete the run:
// every step that had completed ran exactly once, the one in flight at
// most twice, none was lost. SKILLKIT_CRASH_SEED replays a seed. It runs
// on every backend a killed process leaves its record in.
func TestCrashResume(t *testing.T) {
	if testing.Short() {
		t.Skip("kills 20 child processes")
	}
	crashtest.Each(t, crashResume)
}

func crashResume(t *testing.T, b crashtest.Backend) {
	k := crashtest.NewKiller(t)
	skillDir := t.TempDir()
	midRun, reran := 0, 0
	for i := range 20 {
		dir := filepath.Join(t.TempDir(), "run")
		after := k.Kill(t, helper(t, skillDir, "0.01", append(b.Env, "HELPER_WORKDIR="+dir)...), 0, 250*time.Millisecond)
		what := fmt.Sprintf("kill %d after %v", i, after)

		done := map[string]bool{}
		if sum, err := b.Store.Status(dir); err == nil {
			p := sum.Progress
			data, err := os.ReadFile(filepath.Join(dir, fsstore.StateFile))
			if err != nil || !json.Valid(data) {
				t.Fatalf("%s: state.json is not valid JSON (%v): %q", what, err, data)
			}
			for s := range p.CompletedSteps.All() {
				done[s.ID] = true
			}
			if p.RunState == runstore.RunRunning {
				midRun++
			}
		}
		crashtest.Finish(t, what, dir, b.Store,
			func() *exec.Cmd { return helper(t, skillDir, "0.01", append(b.Env, "HELPER_RESUME="+dir)...) },
			func() *exec.Cmd { return helper(t, skillDir, "0.01", append(b.Env, "HELPER_WORKDIR="+dir)...) })
		sum, err := b.Store.Status(dir)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		final := sum.Progress
		if final.RunState != runstore.RunCompleted || final.CompletedSteps.Len() != 10 {
			t.Fatalf("%s: run ended %s with %d steps", what, final.RunState, final.CompletedSteps.Len())
		}
		var ids []string
		for s := range final.CompletedSteps.All() {
			ids = append(ids, s.ID)
		}
		reran += crashtest.CountRuns(t, what, filepath.Join(dir, "steps.log"), ids, func(id string) bool { return done[id] })
	}
	t.Logf("%d of 20 kills landed in the middle of a run; %d in-flight steps ran again on resume", midRun, reran)
}

// TestConcurrentResumes starts two resumes of one run at once: exactly one
// proceeds, the other is refused with a message naming the holder.
func TestConcurrentResumes(t *testing.T) {
	skillDir := t.TempDir()
	dir := filepath.Join(t.TempDir(), "run")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := lifecycle.Run(ctx, lifecycle.Options{Skill: helperSkill(skillDir, "", "0.1"), WorkDir: dir, Store: store(".")})
	if res == nil || res.State != runstore.RunInterrupted {
		t.Fatalf("setting up an interrupted run: %v", err)
	}
	var cmds [2]*exec.Cmd
	var stderr [2]bytes.Buffer
	for i := range cmds {
		cmds[i] = helper(t, skillDir, "0.1", "HELPER_RESUME="+dir)
		cmds[i].Stderr = &stderr[i]
	}
	for _, c := range cmds {
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
	}
	var errs [2]error
	for i, c := range cmds {
		errs[i] = c.Wait()
	}
	if (errs[0] == nil) == (errs[1] == nil) {
		t.Fatalf("want exactly one resume to proceed: %v / %v\n%s\n%s", errs[0], errs[1], &stderr[0], &stderr[1])
	}
	winner, loser := 0, 1
	if errs[0] != nil {
		winner, loser = 1, 0
	}
	host, _ := os.Hostname()
	holder := fmt.Sprintf("claimed by %d@%s", cmds[winner].Process.Pid, host)
	if !strings.Contains(stderr[loser].String(), holder) {
		t.Errorf("refusal %q does not name the holder (%s)", &stderr[loser], holder)
	}
	var exitErr *exec.ExitError
	if !errors.As(errs[loser], &exitErr) || exitErr.ExitCode() != exitClaimed {
		t.Errorf("refused resume: %v, want the claim refused", errs[loser])
	}
	if p := progress(t, dir); p.RunState != runstore.RunCompleted {
		t.Errorf("run ended %s", p.RunState)
	}
}
