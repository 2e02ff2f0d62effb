package sequential_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	lifecycle "github.com/skillkit/skillkit/internal/run"

	"github.com/skillkit/skillkit/internal/agent"
	"github.com/skillkit/skillkit/internal/runstore"
	"github.com/skillkit/skillkit/internal/runstore/fsstore"
	"github.com/skillkit/skillkit/internal/testfs"
	"github.com/skillkit/skillkit/plan"
)

func with(s *plan.Step, f func(a *plan.StepAttrs)) *plan.Step {
	f(&s.Attrs)
	return s
}

func retry(n int) func(a *plan.StepAttrs) {
	return func(a *plan.StepAttrs) {
		a.OnError = &plan.OnError{Policy: plan.OnErrorRetry, Retries: n, Backoff: time.Millisecond}
	}
}

func confirm(def plan.ConfirmAnswer) func(a *plan.StepAttrs) {
	return func(a *plan.StepAttrs) { a.Confirm = &plan.Confirm{Question: "Go on?", Default: def} }
}

func condition(js string) func(a *plan.StepAttrs) {
	return func(a *plan.StepAttrs) { a.Condition = &plan.Expr{Text: js, JS: js} }
}

// TestStepPolicies runs one phase per case and checks how the run ended,
// what each step recorded and what the steps wrote to out.txt.
func TestStepPolicies(t *testing.T) {
	appendA := func() *plan.Step { return bashStep("a", "echo a >> out.txt") }
	appendB := func() *plan.Step { return bashStep("b", "echo b >> out.txt") }
	failing := func() *plan.Step { return bashStep("fail", "echo try >> out.txt; echo broken >&2; exit 3") }
	third := bashStep("third time", `n=$(cat n 2>/dev/null || echo 0); n=$((n+1)); echo $n > n; echo try >> out.txt; [ "$n" -ge 3 ]`)
	tests := []struct {
		name      string
		steps     []*plan.Step
		opts      func(o *lifecycle.Options)
		wantState runstore.RunState
		wantSteps string // step statuses in order, "-" for none
		wantOut   string
		wantErr   string
	}{
		{name: "all steps run", steps: []*plan.Step{appendA(), appendB()},
			wantState: runstore.RunCompleted, wantSteps: "completed completed", wantOut: "a\nb\n"},
		{name: "abort is the default", steps: []*plan.Step{failing(), appendB()},
			wantState: runstore.RunFailed, wantSteps: "failed", wantOut: "try\n", wantErr: "exit status 3: broken"},
		{name: "continue goes on", steps: []*plan.Step{with(failing(), func(a *plan.StepAttrs) { a.OnError = &plan.OnError{Policy: plan.OnErrorContinue} }), appendB()},
			wantState: runstore.RunCompleted, wantSteps: "continued completed", wantOut: "try\nb\n"},
		{name: "retry until it passes", steps: []*plan.Step{with(third, retry(2))},
			wantState: runstore.RunCompleted, wantSteps: "completed", wantOut: "try\ntry\ntry\n"},
		{name: "retries run out", steps: []*plan.Step{with(failing(), retry(2)), appendB()},
			wantState: runstore.RunFailed, wantSteps: "failed", wantOut: "try\ntry\ntry\n", wantErr: "exit status 3"},
		{name: "timeout", steps: []*plan.Step{with(bashStep("slow", "sleep 10; echo late >> out.txt"), func(a *plan.StepAttrs) {
			a.Timeout = &plan.Timeout{Duration: 50 * time.Millisecond}
		})}, wantState: runstore.RunFailed, wantSteps: "failed", wantErr: "timed out after 50ms"},
		{name: "condition false skips", steps: []*plan.Step{with(appendA(), condition("state.ready === true")), appendB()},
			wantState: runstore.RunCompleted, wantSteps: "skipped completed", wantOut: "b\n"},
		{name: "condition true runs", steps: []*plan.Step{with(appendA(), condition("inputs.go === '1'"))},
			wantState: runstore.RunCompleted, wantSteps: "completed", wantOut: "a\n"},
		{name: "condition that throws fails", steps: []*plan.Step{with(appendA(), condition("nope > 1"))},
			wantState: runstore.RunFailed, wantSteps: "failed", wantErr: "nope is not defined"},
		{name: "confirm: --yes runs", steps: []*plan.Step{with(appendA(), confirm(plan.ConfirmSkip))},
			opts:      func(o *lifecycle.Options) { o.Yes = true },
			wantState: runstore.RunCompleted, wantSteps: "completed", wantOut: "a\n"},
		{name: "confirm: answered skip", steps: []*plan.Step{with(appendA(), confirm(plan.ConfirmYes)), appendB()},
			opts:      func(o *lifecycle.Options) { o.Answers = fakeConfirm{answer: plan.ConfirmSkip} },
			wantState: runstore.RunCompleted, wantSteps: "skipped completed", wantOut: "b\n"},
		{name: "confirm: answered abort", steps: []*plan.Step{with(appendA(), confirm(plan.ConfirmYes)), appendB()},
			opts:      func(o *lifecycle.Options) { o.Answers = fakeConfirm{answer: plan.ConfirmAbort} },
			wantState: runstore.RunAborted, wantSteps: "-", wantErr: "aborted"},
		{name: "confirm: no answer, default skip", steps: []*plan.Step{with(appendA(), confirm(plan.ConfirmSkip))},
			opts:      func(o *lifecycle.Options) { o.Answers = fakeConfirm{err: errors.New("no terminal")} },
			wantState: runstore.RunCompleted, wantSteps: "skipped"},
		{name: "confirm: no answerer, default yes", steps: []*plan.Step{with(appendA(), confirm(plan.ConfirmYes))},
			wantState: runstore.RunCompleted, wantSteps: "completed", wantOut: "a\n"},
		{name: "confirm: the agent says yes", steps: []*plan.Step{with(appendA(), confirm(plan.ConfirmAgent))},
			opts:      func(o *lifecycle.Options) { o.Agent = fakeAgent("yes") },
			wantState: runstore.RunCompleted, wantSteps: "completed", wantOut: "a\n"},
		{name: "confirm: left to a missing agent", steps: []*plan.Step{with(appendA(), confirm(plan.ConfirmAgent))},
			wantState: runstore.RunInterrupted, wantSteps: "-", wantErr: "--agent"},
		{name: "agent step without an agent stops resumable", steps: []*plan.Step{appendA(), proseStep("think", "Summarize out.txt.")},
			wantState: runstore.RunInterrupted, wantSteps: "completed", wantOut: "a\n", wantErr: "--agent"},
		{name: "agent step", steps: []*plan.Step{proseStep("think", "Summarize.")},
			opts:      func(o *lifecycle.Options) { o.Agent = fakeAgent(`done {"stateUpdates": {"summary": "ok"}}`) },
			wantState: runstore.RunCompleted, wantSteps: "completed"},
		{name: "JS step updates the state", steps: []*plan.Step{{Title: "js", Code: []*plan.CodeBlock{code("js", `return {stateUpdates: {"context.count": 2}}`)}}},
			wantState: runstore.RunCompleted, wantSteps: "completed"},
		{name: "JS step that throws", steps: []*plan.Step{{Title: "js", Code: []*plan.CodeBlock{code("js", "throw new TypeError('x is undefined')")}}},
			wantState: runstore.RunFailed, wantSteps: "failed", wantErr: "TypeError: x is undefined"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSkill(t, phase("01-only.md", tt.steps...))
			o := opts(t, s)
			o.Inputs = map[string]string{"go": "1"}
			if tt.opts != nil {
				tt.opts(&o)
			}
			res, err := lifecycle.Run(context.Background(), o)
			if res == nil {
				t.Fatalf("no result: %v", err)
			}
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("err = %v, want %q", err, tt.wantErr)
			}
			if res.State != tt.wantState {
				t.Errorf("run state = %s, want %s", res.State, tt.wantState)
			}
			p := progress(t, res.Dir)
			var got []string
			for r := range p.CompletedSteps.All() {
				got = append(got, string(r.Result))
			}
			if g := strings.Join(got, " "); g != strings.TrimPrefix(tt.wantSteps, "-") {
				t.Errorf("steps = %q, want %q", g, tt.wantSteps)
			}
			out, _ := os.ReadFile(filepath.Join(res.Dir, "out.txt"))
			if string(out) != tt.wantOut {
				t.Errorf("out.txt = %q, want %q", out, tt.wantOut)
			}
			state, err := readState(res.Dir)
			if err != nil {
				t.Fatal(err)
			}
			wantStatus := map[runstore.RunState]string{runstore.RunCompleted: "completed", runstore.RunFailed: "failed", runstore.RunAborted: "failed", runstore.RunInterrupted: "running"}[tt.wantState]
			if state["status"] != wantStatus {
				t.Errorf("state.status = %v, want %s", state["status"], wantStatus)
			}
			if tt.wantState == runstore.RunFailed && (p.Error == nil || p.Error.ID != "01-only#1") {
				t.Errorf("error = %+v, want one naming step 01-only#1", p.Error)
			}
		})
	}
}

func TestFailureDiagnostics(t *testing.T) {
	s := newSkill(t, phase("01-x.md", bashStep("a", "echo progress; echo 'first problem' >&2; echo 'real cause' >&2; exit 1")))
	res, err := lifecycle.Run(context.Background(), opts(t, s))
	if !errors.As(err, new(*lifecycle.RunError)) {
		t.Fatalf("want a failed run, got %v", err)
	}
	e := progress(t, res.Dir).Error
	want := []string{"stderr: first problem", "stderr: real cause", "stdout: progress"}
	if e == nil || strings.Join(e.Diagnostics.Lines(), "\n") != strings.Join(want, "\n") {
		t.Fatalf("error = %+v, want diagnostics %q", e, want)
	}
	if !strings.HasPrefix(e.Message, "phases/x.md:5:1: step 01-x#1: bash: exit status 1") {
		t.Errorf("message %q does not start with the block's position", e.Message)
	}
	if log := testfs.ReadFile(t, filepath.Join(res.Dir, "logs", "01-x-1.log")); !strings.Contains(log, "real cause") {
		t.Errorf("step log lacks stderr:\n%s", log)
	}
}

func TestJSUpdatesReachStateFile(t *testing.T) {
	s := newSkill(t, phase("01-x.md", &plan.Step{Title: "js", Code: []*plan.CodeBlock{code("js", `return {stateUpdates: {"context.count": 2}}`)}}))
	res, err := lifecycle.Run(context.Background(), opts(t, s))
	if err != nil {
		t.Fatal(err)
	}
	state, _ := readState(res.Dir)
	if c, _ := state["context"].(map[string]any); c["count"] != 2.0 {
		t.Fatalf("state = %v, want context.count 2", state)
	}
}

// A timed-out step's whole process group dies, not only the shell.
func TestTimeoutKillsProcessGroup(t *testing.T) {
	s := newSkill(t, phase("01-x.md", with(bashStep("slow", "sleep 30 & echo $! > child.pid; wait"), func(a *plan.StepAttrs) {
		a.Timeout = &plan.Timeout{Duration: 200 * time.Millisecond}
	})))
	res, err := lifecycle.Run(context.Background(), opts(t, s))
	if err == nil {
		t.Fatal("want the step to time out")
	}
	pid, perr := strconv.Atoi(strings.TrimSpace(testfs.ReadFile(t, filepath.Join(res.Dir, "child.pid"))))
	if perr != nil {
		t.Fatal(perr)
	}
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("background child %d of the timed-out step survived", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestLifecycleEvents(t *testing.T) {
	s := newSkill(t, phase("01-x.md", bashStep("a", "true"), with(bashStep("b", "true"), condition("state.ready === true"))))
	o := opts(t, s)
	var seen int
	o.Observe = func(runstore.Event) { seen++ }
	res, err := lifecycle.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	events, err := fsstore.New(fsstore.Options{}).Events(res.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if seen != len(events) {
		t.Errorf("observer saw %d events, events.jsonl has %d", seen, len(events))
	}
	var got []string
	for _, e := range events {
		who := "run"
		switch {
		case e.Step != "":
			who = e.Step
		case e.Phase != "":
			who = e.Phase
		}
		got = append(got, who+": "+string(e.From)+" > "+string(e.To))
		if e.Run != res.ID {
			t.Errorf("event %+v names run %q", e, e.Run)
		}
	}
	want := []string{
		"run:  > pending", "run: pending > validating", "run: validating > ready", "run: ready > running",
		"01-x: idle > loading", "01-x: loading > planning", "01-x: planning > executing",
		"01-x#1:  > pending", "01-x#1: pending > executing", "01-x#1: executing > completed",
		"01-x#2:  > pending", "01-x#2: pending > checking_condition", "01-x#2: checking_condition > skipped",
		"01-x: executing > verifying", "01-x: verifying > post_hook", "01-x: post_hook > completed",
		"run: running > completed",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	metrics, _ := fsstore.New(fsstore.Options{}).Metrics(res.Dir)
	if len(metrics) != 3 || metrics[2].Kind != runstore.KindPhase || metrics[2].Outcome != "completed" || metrics[0].Attempts != 1 {
		t.Errorf("metrics = %+v, want two steps and a phase", metrics)
	}
	if _, err := os.Stat(filepath.Join(res.Dir, "threads", "1.json")); err != nil {
		t.Errorf("no auto checkpoint: %v", err)
	}
}

func TestHooks(t *testing.T) {
	tests := []struct {
		name      string
		config    string
		steps     []*plan.Step
		wantState runstore.RunState
		wantFile  string // content of hooks.txt
	}{
		{name: "post_phase and post_run",
			config: "hooks:\n  post_phase: echo \"after $SKILL_UNIT\" >> hooks.txt\n  post_run: [echo \"run $SKILL_RUN_STATE\" >> hooks.txt]\n",
			steps:  []*plan.Step{bashStep("a", "true")}, wantState: runstore.RunCompleted, wantFile: "after 01-x\nrun completed\n"},
		{name: "failing post_phase fails the phase",
			config: "hooks:\n  post_phase: exit 4\n",
			steps:  []*plan.Step{bashStep("a", "true")}, wantState: runstore.RunFailed},
		{name: "on_error sees the error",
			config: "hooks:\n  on_error: echo \"$SKILL_UNIT_KIND $SKILL_UNIT\" >> hooks.txt\n",
			steps:  []*plan.Step{bashStep("a", "exit 1")}, wantState: runstore.RunFailed, wantFile: "phase 01-x\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSkill(t, phase("01-x.md", tt.steps...))
			s.Configure(plan.Settings{Config: []byte(tt.config)})
			res, _ := lifecycle.Run(context.Background(), opts(t, s))
			if res.State != tt.wantState {
				t.Fatalf("state = %s, want %s", res.State, tt.wantState)
			}
			got, _ := os.ReadFile(filepath.Join(res.Dir, "hooks.txt"))
			if string(got) != tt.wantFile {
				t.Errorf("hooks.txt = %q, want %q", got, tt.wantFile)
			}
		})
	}
}

func TestBadHooksAreInvalid(t *testing.T) {
	s := newSkill(t, phase("01-x.md", bashStep("a", "true")))
	s.Configure(plan.Settings{Config: []byte("rules: {}\nhooks:\n  after_everything: true\n")})
	_, err := lifecycle.Run(context.Background(), opts(t, s))
	if !errors.Is(err, lifecycle.ErrInvalid) || !strings.Contains(err.Error(), "skillkit.yaml:3:3: hooks.after_everything: unknown hook point") {
		t.Fatalf("err = %v", err)
	}
}

// A skill that fails validation leaves a record that went pending →
// validating → failed with the reason (the step-execution specification's
// Validating → Failed), and no step ran.
func TestValidationFailureIsRecorded(t *testing.T) {
	s := newSkill(t, phase("01-x.md", bashStep("a", "echo a > out.txt")))
	o := opts(t, s)
	base := t.TempDir()
	o.Store = store(base)
	o.Validate = func(*plan.Skill) error { return errors.New("phases/01-x.md:1:1: error: no title [layout-title]") }
	_, err := lifecycle.Run(context.Background(), o)
	if !errors.Is(err, lifecycle.ErrInvalid) {
		t.Fatalf("err = %v, want invalid", err)
	}
	sums, lerr := o.Store.List()
	if lerr != nil || len(sums) != 1 {
		t.Fatalf("runs = %v, %v; want the one that failed validation", sums, lerr)
	}
	dir := sums[0].Dir
	if _, serr := os.Stat(filepath.Join(dir, "out.txt")); serr == nil {
		t.Error("a step ran for a skill that does not validate")
	}
	var path []string
	for _, line := range strings.Split(strings.TrimSpace(testfs.ReadFile(t, filepath.Join(dir, fsstore.EventsFile))), "\n") {
		var e runstore.Event
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatal(err)
		}
		path = append(path, string(e.To))
	}
	if got := strings.Join(path, " "); got != "pending validating failed" {
		t.Errorf("run states %q, want pending validating failed", got)
	}
	p := progress(t, dir)
	if p.Error == nil || p.Error.ID != "validating" || !strings.Contains(p.Error.Message, "phases/01-x.md:1:1: error: no title") {
		t.Errorf("progress error = %+v", p.Error)
	}
}

func TestResume(t *testing.T) {
	s := newSkill(t, phase("01-x.md", bashStep("a", "echo a >> out.txt")), phase("02-y.md", proseStep("think", "Think."), bashStep("b", "echo b >> out.txt")))
	o := opts(t, s)
	res, err := lifecycle.Run(context.Background(), o)
	if res.State != runstore.RunInterrupted || !errors.Is(err, agent.ErrNoAgent) {
		t.Fatalf("first go: %s, %v", res.State, err)
	}
	o.Resume = res.ID
	o.Agent = fakeAgent("thought")
	res2, err := lifecycle.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if res2.Dir != res.Dir || res2.State != runstore.RunCompleted {
		t.Fatalf("resume: %+v", res2)
	}
	if out := testfs.ReadFile(t, filepath.Join(res.Dir, "out.txt")); out != "a\nb\n" {
		t.Errorf("out.txt = %q: a completed step ran again or one was lost", out)
	}
	_, err = lifecycle.Run(context.Background(), o)
	if !errors.Is(err, runstore.ErrTerminal) {
		t.Fatalf("resuming a completed run: %v, want ErrTerminal", err)
	}
	s.Hash = "h2"
	o.Resume = res.Dir
	if _, err := lifecycle.Run(context.Background(), o); !errors.Is(err, runstore.ErrTerminal) {
		t.Fatalf("terminal check must come first: %v", err)
	}
}

func TestResumeRefusesChangedSkill(t *testing.T) {
	s := newSkill(t, phase("01-x.md", proseStep("think", "Think.")))
	o := opts(t, s)
	res, _ := lifecycle.Run(context.Background(), o)
	s.Hash = "h2"
	o.Resume = res.ID
	if _, err := lifecycle.Run(context.Background(), o); !errors.Is(err, lifecycle.ErrSkillChanged) {
		t.Fatalf("err = %v, want ErrSkillChanged", err)
	}
	o.Force, o.Agent = true, fakeAgent("ok")
	if _, err := lifecycle.Run(context.Background(), o); err != nil {
		t.Fatalf("forced resume: %v", err)
	}
}

func TestResumeRefusesClaimedRun(t *testing.T) {
	s := newSkill(t, phase("01-x.md", proseStep("think", "Think.")))
	o := opts(t, s)
	res, _ := lifecycle.Run(context.Background(), o)
	held, err := o.Store.Resume(res.Dir, runstore.ResumeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	host, _ := os.Hostname()
	holder := fmt.Sprintf("%d@%s", os.Getpid(), host)
	o.Resume = res.ID
	_, err = lifecycle.Run(context.Background(), o)
	if !errors.As(err, new(*runstore.ClaimedError)) || !strings.Contains(err.Error(), "claimed by "+holder) {
		t.Fatalf("err = %v, want a refusal naming %s", err, holder)
	}
}

func TestCancelLeavesRunResumable(t *testing.T) {
	s := newSkill(t, phase("01-x.md", bashStep("a", "echo a >> out.txt"), bashStep("slow", "touch started; sleep 30; echo slow >> out.txt")), phase("02-y.md", bashStep("b", "echo b >> out.txt")))
	o := opts(t, s)
	o.WorkDir = filepath.Join(t.TempDir(), "run")
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for {
			if _, err := os.Stat(filepath.Join(o.WorkDir, "started")); err == nil {
				cancel()
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	res, err := lifecycle.Run(ctx, o)
	if !errors.Is(err, context.Canceled) || res.State != runstore.RunInterrupted {
		t.Fatalf("after cancel: %v, state %s", err, res.State)
	}
	if _, err := os.Stat(filepath.Join(res.Dir, fsstore.ClaimFile)); err == nil {
		t.Error("an interrupted run kept its claim")
	}
	s.Phases[0].Steps[1] = bashStep("slow", "echo slow >> out.txt")
	o.Resume, o.WorkDir = res.Dir, ""
	if _, err := lifecycle.Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if out := testfs.ReadFile(t, filepath.Join(res.Dir, "out.txt")); out != "a\nslow\nb\n" {
		t.Errorf("out.txt = %q", out)
	}
}

func TestWorkDirHoldingARun(t *testing.T) {
	s := newSkill(t, phase("01-x.md", bashStep("a", "true")))
	o := opts(t, s)
	o.WorkDir = t.TempDir()
	if _, err := lifecycle.Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if _, err := lifecycle.Run(context.Background(), o); err == nil || !strings.Contains(err.Error(), "already holds a run") {
		t.Fatalf("second run into the same --workdir: %v", err)
	}
}
