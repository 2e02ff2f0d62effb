package orchestrator_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	lifecycle "github.com/skillkit/skillkit/internal/run"

	"github.com/skillkit/skillkit/internal/orchestrator"
	"github.com/skillkit/skillkit/internal/runstore/fsstore"

	"github.com/skillkit/skillkit/internal/engine"
	"github.com/skillkit/skillkit/internal/runstore"
	"github.com/skillkit/skillkit/internal/testfs"
)

// An update the state schema refuses fails the action with the field and
// the rule named, and state.json keeps its last valid content: the bytes
// at the refusal are those the action started from.
func TestSchemaRefusesUpdate(t *testing.T) {
	s := skillFiles{
		decision: "function selectNextAction(state) { return state.step === 1 ? 'action-finish' : 'action-start'; }",
		acts: map[string]string{
			"action-start":  "return { stateUpdates: { step: 1, note: 'started' } };",
			"action-finish": "return { stateUpdates: { status: 'done', note: 'finished' } };",
		},
		fields:  "  step: number;\n  note: string;",
		initial: `{"status": "running", "current_action": null, "completed_actions": [], "errors": [], "error_count": 0, "step": 0, "note": ""}`,
	}.write(t)
	o := options(t, s)
	o.WorkDir = filepath.Join(t.TempDir(), "run")
	var before, atRefusal []byte
	o.Observe = func(e runstore.Event) {
		if e.Action != "action-finish" {
			return
		}
		switch e.To {
		case runstore.State(engine.UnitExecuting):
			before, _ = os.ReadFile(filepath.Join(o.WorkDir, fsstore.StateFile))
		case runstore.State(engine.UnitError):
			atRefusal, _ = os.ReadFile(filepath.Join(o.WorkDir, fsstore.StateFile))
		}
	}
	res, err := run(t, o)
	if !errors.As(err, new(*lifecycle.RunError)) || res.State != runstore.RunFailed {
		t.Fatalf("run %s: %v", res.State, err)
	}
	for _, want := range []string{
		"phases/actions/action-finish.md:5:1: action action-finish:",
		`status: value must be one of "pending", "running", "completed", "failed" [enum]`,
		"state.json keeps its last valid content",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if before == nil || !bytes.Equal(before, atRefusal) {
		t.Errorf("state.json changed at the refusal:\n%s\nwant:\n%s", atRefusal, before)
	}
	st := state(t, res.Dir)
	if st["note"] != "started" || st["step"] != 1.0 || actions(st) != "action-start" || st["status"] != "failed" {
		t.Errorf("state after the run = %v", st)
	}
	if st["error_count"] != 1.0 || !strings.Contains(errorMessage(st, 0), "status: value must be one of") {
		t.Errorf("errors = %v, error_count %v", st["errors"], st["error_count"])
	}
	if p := progress(t, res.Dir); p.Error == nil || p.Error.ID != "action-finish" {
		t.Errorf("skill-state.yaml error = %+v, want one naming action-finish", p.Error)
	}
}

// A nested field, an array item and a type: each violation names its
// dotted field and rule; a field the update did not touch is not blamed.
func TestSchemaViolationsNameFields(t *testing.T) {
	tests := []struct {
		name    string
		updates string
		want    []string
	}{
		{"wrong type", "{ count: 'three' }", []string{"count: expected number, but got string [type]"}},
		{"nested field", "{ 'context.mode': 'loud' }", []string{`context.mode: value must be one of "quiet", "verbose" [enum]`}},
		{"array item", "{ tags: ['a', 2] }", []string{"tags.1: expected string, but got number [type]"}},
		{"two at once", "{ count: null, tags: 'a' }", []string{"count: expected number, but got null [type]", "tags: expected array, but got string [type]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := skillFiles{
				decision: "function selectNextAction(state) { return state.completed_actions.length ? null : 'action-set'; }",
				acts:     map[string]string{"action-set": "return { stateUpdates: " + tt.updates + " };"},
				fields:   "  count: number;\n  tags: string[];\n  context: { mode: 'quiet' | 'verbose' };\n  legacy: number;",
				// legacy breaks the schema from the start: no update is
				// blamed for it.
				initial: `{"status": "running", "current_action": null, "completed_actions": [], "errors": [], "error_count": 0, "count": 0, "tags": [], "context": {"mode": "quiet"}, "legacy": "old"}`,
			}.write(t)
			_, err := run(t, options(t, s))
			if err == nil {
				t.Fatal("want the update refused")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "legacy") {
				t.Errorf("error %q blames a field the update did not touch", err)
			}
		})
	}
}

// A selection that never ends stops at the iteration limit: the run fails
// (exit 1) with a message that says what to do.
func TestIterationLimit(t *testing.T) {
	s := skillFiles{
		decision: "function selectNextAction(state) { return 'action-spin'; }",
		acts:     map[string]string{"action-spin": "return { stateUpdates: { spins: (state.spins || 0) + 1 } };"},
		fields:   "  spins?: number;",
	}.write(t)
	o := options(t, s)
	o.Loop.MaxIterations = 7
	res, err := run(t, o)
	if !errors.As(err, new(*lifecycle.RunError)) || !errors.Is(err, orchestrator.ErrNoProgress) {
		t.Fatalf("%v", err)
	}
	for _, want := range []string{"phases/orchestrator.md:5:1:", "no progress: the loop started 7 actions and selectNextAction never ended it", "--max-iterations"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	st := state(t, res.Dir)
	if st["spins"] != 7.0 || len(completed(st)) != 7 || st["status"] != "failed" {
		t.Errorf("state = %v", st)
	}
	if l := progress(t, res.Dir).Loop; l.Iteration != 7 || l.MaxIterations != 7 {
		t.Errorf("loop progress = %+v", l)
	}
}

// A selection that waits for a field no action sets says which, and where
// it reads it.
func TestIterationLimitNamesUnsetField(t *testing.T) {
	s := skillFiles{
		decision: "function selectNextAction(state) { if (!state.ready) return 'action-spin'; return null; }",
		acts:     map[string]string{"action-spin": "return { stateUpdates: { spins: (state.spins || 0) + 1 } };"},
		fields:   "  spins?: number;\n  ready?: boolean;",
	}.write(t)
	o := options(t, s)
	o.Loop.MaxIterations = 5
	_, err := run(t, o)
	if want := "it reads state.ready (read at phases/orchestrator.md:6:"; err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error %v lacks %q", err, want)
	}
}

// A failing action is tried again as its retries allow; every failed
// attempt lands in errors[] and error_count.
func TestActionRetries(t *testing.T) {
	// The action fails until its third attempt, counting attempts in a
	// file (state updates of a failed attempt are not applied).
	flaky := `const n = Number(Bash('n=$(cat tries 2>/dev/null || echo 0); echo $((n+1)) | tee tries'));
if (n < 3) throw new Error('attempt ' + n + ' failed');
return { stateUpdates: { done: true } };`
	tests := []struct {
		name      string
		retries   int
		attr      string // the action's own On error line
		wantState runstore.RunState
		wantErrs  int
	}{
		{"retries suffice", 2, "", runstore.RunCompleted, 2},
		{"retries run out", 1, "", runstore.RunFailed, 2},
		{"no retries", 0, "", runstore.RunFailed, 1},
		{"the action's own retry", 0, "- **On error**: retry 2 backoff 1ms", runstore.RunCompleted, 2},
		{"the action's retry outweighs --retries", 5, "- **On error**: retry 1", runstore.RunFailed, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := skillFiles{
				decision: "function selectNextAction(state) { return state.done ? null : 'action-flaky'; }",
				acts:     map[string]string{"action-flaky": flaky},
				attrs:    map[string]string{"action-flaky": tt.attr},
				fields:   "  done?: boolean;",
			}.write(t)
			o := options(t, s)
			o.Loop.Retries = tt.retries
			res, err := run(t, o)
			if res.State != tt.wantState {
				t.Fatalf("run %s: %v", res.State, err)
			}
			st := state(t, res.Dir)
			if st["error_count"] != float64(tt.wantErrs) || len(st["errors"].([]any)) != tt.wantErrs {
				t.Fatalf("error_count %v, errors %v; want %d", st["error_count"], st["errors"], tt.wantErrs)
			}
			if msg := errorMessage(st, 0); !strings.Contains(msg, "attempt 1 failed") || !strings.Contains(msg, "action-flaky.md:") {
				t.Errorf("errors[0].message = %q", msg)
			}
			if e := st["errors"].([]any)[0].(map[string]any); e["action"] != "action-flaky" || e["timestamp"] == "" {
				t.Errorf("errors[0] = %v", e)
			}
			if l := progress(t, res.Dir).Loop; l.ErrorCount != tt.wantErrs {
				t.Errorf("loop progress error count %d, want %d", l.ErrorCount, tt.wantErrs)
			}
			if tt.wantState == runstore.RunFailed && (err == nil || !strings.Contains(err.Error(), "action action-flaky")) {
				t.Errorf("err = %v", err)
			}
		})
	}
}

// An action's Timeout ends it: the action fails with the time named, and
// the run with it.
func TestActionTimeout(t *testing.T) {
	s := skillFiles{
		decision: "function selectNextAction(state) { return state.done ? null : 'action-slow'; }",
		acts:     map[string]string{"action-slow": "Bash('sleep 60');\nreturn { stateUpdates: { done: true } };"},
		attrs:    map[string]string{"action-slow": "- **Timeout**: 200ms"},
		fields:   "  done?: boolean;",
	}.write(t)
	// Without its timeout the action would complete, in a minute.
	res, err := run(t, options(t, s))
	if res.State != runstore.RunFailed || err == nil {
		t.Fatalf("run %s: %v", res.State, err)
	}
	if msg := errorMessage(state(t, res.Dir), 0); !strings.Contains(msg, "action-slow.md:") {
		t.Errorf("errors[0].message = %q", msg)
	}
}

func errorMessage(st map[string]any, i int) string {
	list, _ := st["errors"].([]any)
	if i >= len(list) {
		return ""
	}
	m, _ := list[i].(map[string]any)
	s, _ := m["message"].(string)
	return s
}

// A bash action's JSON stdout is its result; the skill's post_action and
// on_error hooks run for actions with SKILL_UNIT_KIND=action.
func TestBashActionAndHooks(t *testing.T) {
	s := skillFiles{
		decision: `function selectNextAction(state) {
  if (!state.listed) return 'action-list';
  if (state.error_count === 0) return 'action-broken';
  return null;
}`,
		acts:   map[string]string{"action-broken": "throw new Error('no');"},
		fields: "  listed?: boolean;\n  files?: number;",
	}.write(t)
	testfs.WriteFile(t, s.Dir+"/phases/actions/action-list.md", "# Action: List\n\n## Execution\n\n```bash\nprintf 'a\\nb\\n' > list.txt\necho '{\"stateUpdates\": {\"listed\": true, \"files\": '$(wc -l < list.txt)'}}'\n```\n")
	testfs.WriteFile(t, s.Dir+"/skillkit.yaml", "hooks:\n  post_action: echo \"done $SKILL_UNIT_KIND $SKILL_UNIT\" >> hooks.txt\n  on_error: echo \"error $SKILL_UNIT\" >> hooks.txt\n")
	res, err := run(t, options(t, load(t, s.Dir)))
	if err != nil {
		t.Fatal(err)
	}
	st := state(t, res.Dir)
	if st["listed"] != true || st["files"] != 2.0 {
		t.Errorf("state = %v", st)
	}
	if got := testfs.ReadFile(t, res.Dir+"/hooks.txt"); got != "done action action-list\nerror action-broken\n" {
		t.Errorf("hooks.txt = %q", got)
	}
}

// A selection that handles failures (it reads error_count) but keeps
// choosing an action that keeps failing the same way stops at the third
// such failure, not at the iteration limit; the error names the action,
// the error and the count. The failures differ only in their attempt
// counter; a different error starts the count again.
func TestSameFailureStops(t *testing.T) {
	s := skillFiles{
		decision: "function selectNextAction(state) { if (state.error_count > 50) return null; return state.tick ? 'action-tick' : 'action-update'; }",
		acts: map[string]string{
			"action-update": "const n = state.error_count + 1; if (n === 2) throw new Error('disk busy'); throw new Error('update refused (attempt ' + n + ')');",
			"action-tick":   "return { stateUpdates: { tick: false } };",
		},
		fields: "  tick?: boolean;",
	}.write(t)
	o := options(t, s)
	o.Loop.MaxIterations = 20
	res, err := run(t, o)
	if !errors.As(err, new(*lifecycle.RunError)) || !errors.Is(err, orchestrator.ErrSameFailure) || res.State != runstore.RunFailed {
		t.Fatalf("%v, %v; want the run failed with ErrSameFailure", res, err)
	}
	for _, want := range []string{"action action-update: ", "it failed 3 times in a row (--max-same-failures 3)", "update refused (attempt 5)"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	// 1: refused, 2: disk busy (a new streak), 3, 4, 5: refused.
	if st := state(t, res.Dir); st["error_count"] != 5.0 {
		t.Errorf("error_count = %v, want 5", st["error_count"])
	}
	if p := progress(t, res.Dir); p.Error == nil || p.Error.ID != "action-update" {
		t.Errorf("progress error = %+v", p.Error)
	}

	o = options(t, s)
	o.Loop.MaxIterations = 20
	o.Loop.MaxSameFailures = 5
	if _, err := run(t, o); !errors.Is(err, orchestrator.ErrSameFailure) || !strings.Contains(err.Error(), "failed 5 times") {
		t.Errorf("--max-same-failures 5: %v", err)
	}
}

// Execution modes' State Updates template appends the action to
// completed_actions itself; the loop does not append it a second time,
// but still records an action whose update appended something else.
func TestSelfAppendedActionRecordedOnce(t *testing.T) {
	s := skillFiles{
		decision: "function selectNextAction(state) {\n" +
			"  if (state.n < 2) return 'action-a';\n" +
			"  if (!state.completed_actions.includes('action-b')) return 'action-b';\n" +
			"  return null;\n}",
		acts: map[string]string{
			"action-a": "return { completed_actions: [...state.completed_actions, 'action-a'], n: state.n + 1 };",
			"action-b": "return { completed_actions: [...state.completed_actions, 'note'] };",
		},
		fields:  "  n: number;",
		initial: `{"status": "running", "current_action": null, "completed_actions": [], "errors": [], "error_count": 0, "n": 0}`,
	}.write(t)
	res, err := run(t, options(t, s))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := actions(state(t, res.Dir)), "action-a action-a note action-b"; got != want {
		t.Errorf("completed_actions = %q, want %q", got, want)
	}
}
