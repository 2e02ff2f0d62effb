package runstore

import (
	"encoding/json"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// skill-state.yaml is written by hand: whatever the strings hold, it must
// read back as written.
func TestProgressEncodingRoundTrip(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 123456789, time.UTC)
	nasty := []string{"", "plain", "yes", "null", "- dash", "a: b", "#hash", "'q'", `"dq"`, "line\nbreak\ttab", "中文 ✓", "\u2028", "\x01", "{[", "trailing "}
	for _, s := range nasty {
		p := Progress{
			SkillVersion: s, StartedAt: now, CurrentPhase: s, CurrentStep: 2, TotalSteps: 3,
			CompletedSteps:  NewSteps(StepRecord{Step: 1, Status: StatusPass, EvidenceCaptured: true, Timestamp: now, ID: s, Title: s, Result: StepCompleted}),
			ChecklistStatus: map[string]string{"pre-run": s, s: "x"},
			LastAction:      s, Error: &RunError{Step: 2, Message: s, ID: s, Diagnostics: Diagnostics{Console: []string{s, "x"}, Stderr: s, Stdout: s, Files: []string{s}}}, CompletedAt: &now,
			RunState: RunFailed, SkillHash: s, RunID: s, Skill: s, SkillRelease: s + "v", SkillDir: s, Mode: s, Phase: s,
			Inputs: map[string]string{s + "k": s, "z": s}, CompletedPhases: []string{s},
			Loop: &Loop{Iteration: 4, MaxIterations: 100, CurrentAction: s, LastAction: s, Completed: 3, ErrorCount: 1},
		}
		var back Progress
		if err := yaml.Unmarshal(EncodeProgress(&p), &back); err != nil {
			t.Fatalf("%q: %v\n%s", s, err, EncodeProgress(&p))
		}
		want, _ := json.Marshal(p)
		got, _ := json.Marshal(back)
		if string(want) != string(got) {
			t.Errorf("%q did not round-trip:\n%s\nwant %s\ngot  %s", s, EncodeProgress(&p), want, got)
		}
	}
	var empty Progress
	if err := yaml.Unmarshal(EncodeProgress(&empty), &empty); err != nil {
		t.Fatalf("zero progress: %v", err)
	}
}

// Apply is the one way progress changes: a run's events, folded, give its
// progress.
func TestApplyFoldsARun(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	events := []Event{
		{Time: t0, To: "pending", Start: &Start{RunID: "r1", Skill: "demo", SkillHash: "h", Mode: "sequential", StartedAt: t0, TotalSteps: 2, Inputs: map[string]string{"a": "1"}}},
		{Time: t0, From: "pending", To: "validating"},
		{Time: t0, From: "ready", To: "running", Inputs: map[string]string{"b": "2"}},
		{Time: t0, Phase: "01-x", To: "loading"},
		{Time: t0, Phase: "01-x", Step: "01-x#1", To: "pending"},
		{Time: t0, Phase: "01-x", Step: "01-x#1", From: "executing", To: "completed", Record: &StepRecord{Step: 1, ID: "01-x#1", Title: "one", Status: StatusPass, Result: StepCompleted}},
		{Time: t0, Phase: "01-x", Step: "01-x#2", To: "pending"},
		{Time: t0, Phase: "01-x", From: "post_hook", To: "completed", Loop: &Loop{Iteration: 3}},
		{Time: t0.Add(time.Second), From: "running", To: "failed", Error: &RunError{Step: 2, ID: "01-x#2", Message: "boom"}},
	}
	var p Progress
	for i := range events {
		p.Apply(&events[i])
	}
	if p.RunID != "r1" || p.RunState != RunFailed || p.Inputs["a"] != "1" || p.Inputs["b"] != "2" {
		t.Errorf("run fields: %+v", p)
	}
	if !p.StepDone("01-x#1") || p.StepDone("01-x#2") || !p.PhaseDone("01-x") {
		t.Errorf("steps %v, phases %v", p.CompletedSteps, p.CompletedPhases)
	}
	if p.CurrentPhase != PhaseCompleted || p.Phase != "01-x" || p.CompletedAt == nil || !p.CompletedAt.Equal(t0.Add(time.Second)) {
		t.Errorf("current %q (phase %q), completed at %v", p.CurrentPhase, p.Phase, p.CompletedAt)
	}
	if p.Error == nil || p.Error.Message != "boom" || p.Loop == nil || p.Loop.Iteration != 3 || p.LastAction != "run failed: boom" {
		t.Errorf("error %+v, loop %+v, last %q", p.Error, p.Loop, p.LastAction)
	}
}

// A log line reads into typed states and writes back byte for byte, and
// its level comes from the fields it names: old logs replay as they were.
func TestEventBytesUnchanged(t *testing.T) {
	for line, level := range map[string]Level{
		`{"time":"2026-01-02T03:04:05Z","run":"r","phase":"01-a","step":"01-a#1","from":"pending","to":"executing"}`: LevelStep,
		`{"time":"2026-01-02T03:04:05Z","run":"r","phase":"01-a","from":"loading","to":"executing"}`:                 LevelPhase,
		`{"time":"2026-01-02T03:04:05Z","run":"r","action":"action-x","from":"idle","to":"loading"}`:                 LevelAction,
		`{"time":"2026-01-02T03:04:05Z","run":"r","phase":"01-a","step":"01-a#1","to":"pending"}`:                    LevelStep,
		`{"time":"2026-01-02T03:04:05Z","run":"r","from":"running","to":"completed"}`:                                LevelRun,
	} {
		var e Event
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatal(err)
		}
		if data, _ := json.Marshal(e); string(data) != line {
			t.Errorf("%s\nwrites back as\n%s", line, data)
		}
		if e.Level() != level {
			t.Errorf("%s: level %d, want %d", line, e.Level(), level)
		}
	}
	// Logs written before left out no from: "from":"" reads as none.
	var e Event
	if err := json.Unmarshal([]byte(`{"time":"2026-01-02T03:04:05Z","step":"01-a#1","from":"","to":"pending"}`), &e); err != nil || e.From != "" || e.Level() != LevelStep {
		t.Errorf(`"from":"" read as %+v (%v)`, e, err)
	}
	if RunState(State(RunCompleted)) != RunCompleted {
		t.Error("a run state does not convert back")
	}
}

// An action's lines leave out the loop's record when it moved as they
// say: the first loading starts an iteration, a completion straight from
// loading counts it. Any other line leaves it as it is, so a log written
// before (whose completion comes from post_hook, after a line that
// carried the record) is not counted twice.
func TestLoopMovesWithItsActions(t *testing.T) {
	start := Loop{Iteration: 4, MaxIterations: 10, CurrentAction: "a", LastAction: "a", Completed: 4}
	events := []Event{
		{Action: "b", From: Idle, To: "loading"},
		{Action: "b", From: "loading", To: "completed"},
		{Action: "c", From: Idle, To: "loading"},
		{Action: "c", From: "loading", To: "error"},
		{Action: "c", From: "error", To: "retrying"},
		{Action: "c", From: "retrying", To: "loading"},
		{Action: "c", From: "post_hook", To: "completed"},
		{Phase: "orchestrator", From: "loading", To: "completed"},
	}
	p := Progress{Loop: &start, Phases: 1, ChecklistStatus: map[string]string{}}
	for i := range events {
		p.Apply(&events[i])
	}
	want := Loop{Iteration: 6, MaxIterations: 10, CurrentAction: "c", LastAction: "b", Completed: 5}
	if *p.Loop != want {
		t.Errorf("loop = %+v, want %+v", *p.Loop, want)
	}
	// A line that carries one sets it whatever it says.
	set := Loop{Iteration: 1}
	p.Apply(&Event{Action: "d", From: Idle, To: "loading", Loop: &set})
	if *p.Loop != set {
		t.Errorf("loop = %+v, want %+v", *p.Loop, set)
	}
	// Without a loop's record, nothing moves.
	var none Progress
	none.Apply(&events[0])
	if none.Loop != nil {
		t.Errorf("a record appeared: %+v", none.Loop)
	}
}
