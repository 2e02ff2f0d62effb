package orchestrator_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillkit/skillkit/internal/agent"
	"github.com/skillkit/skillkit/internal/orchestrator"
	lifecycle "github.com/skillkit/skillkit/internal/run"
	"github.com/skillkit/skillkit/internal/runstore"
	"github.com/skillkit/skillkit/internal/testfs"
	"github.com/skillkit/skillkit/plan"
)

// scriptAgent is a stand-in agent: a shell script that appends each
// request's kind and prompt to agent.log in the work dir and answers with
// the reply for that kind (the select replies in turn, one per call).
func scriptAgent(t *testing.T, selects []string) *agent.Agent {
	t.Helper()
	dir := t.TempDir()
	for i, r := range selects {
		testfs.WriteFile(t, filepath.Join(dir, "select-"+string(rune('1'+i))), r+"\n")
	}
	script := filepath.Join(dir, "agent.sh")
	testfs.WriteFile(t, script, `#!/bin/sh
{ echo "=== $SKILLKIT_REQUEST"; cat; } >> agent.log
case "$SKILLKIT_REQUEST" in
select)
  n=$(grep -c '^=== select' agent.log)
  cat "`+dir+`/select-$n" 2>/dev/null || echo '{"action": null}' ;;
action) echo '{"stateUpdates": {"touched": true}}' ;;
*) echo done ;;
esac
`)
	if err := os.Chmod(script, 0o755); err != nil {
		t.Fatal(err)
	}
	return &agent.Agent{Command: script}
}

// Decision Logic that is not code skillkit runs (it calls a helper nothing
// declares) goes to the agent, which selects from the catalog, told which
// actions' preconditions hold; null ends the loop.
func TestAgentSelects(t *testing.T) {
	s := skillFiles{
		decision: "function selectNextAction(state) {\n  return pickNext(state); // a helper the model knows\n}",
		catalog:  "| Action | Purpose | Preconditions |\n|---|---|---|\n| action-a | Collect | `state.status === 'running'` |\n| action-b | Report | `state.touched === true` |\n",
		acts:     map[string]string{"action-a": "return { stateUpdates: { touched: true } };", "action-b": "return {};"},
		fields:   "  touched?: boolean;",
	}.write(t)
	if c := s.Orchestrator.Class; c.Kind != plan.ClassAgent || !strings.Contains(c.Reason, "pickNext") {
		t.Fatalf("Decision Logic class = %+v, want agent naming pickNext", c)
	}
	o := options(t, s)
	o.Agent = scriptAgent(t, []string{`I pick a. {"action": "action-a"}`, `{"action": "b"}`, `{"action": null}`})
	res, err := run(t, o)
	if err != nil {
		t.Fatal(err)
	}
	if got := actions(state(t, res.Dir)); got != "action-a action-b" {
		t.Errorf("completed actions %q, want action-a action-b", got)
	}
	log := testfs.ReadFile(t, filepath.Join(res.Dir, "agent.log"))
	first, _, _ := strings.Cut(strings.SplitN(log, "=== select", 3)[1], "[RETURN]")
	if !strings.Contains(first, "[ACTIONS]\naction-a\tCollect\tyes\naction-b\tReport\tno") {
		t.Errorf("first select prompt:\n%s", first)
	}

	o = options(t, s)
	o.Agent = scriptAgent(t, []string{`{"action": "action-zzz"}`})
	_, err = run(t, o)
	if err == nil || !strings.Contains(err.Error(), `the agent selected "action-zzz", which is not an action of the catalog (action-a, action-b)`) {
		t.Errorf("a selection outside the catalog: %v", err)
	}
	o = options(t, s)
	o.Agent = scriptAgent(t, []string{"I would rather not say."})
	if _, err = run(t, o); !errors.Is(err, agent.ErrNoSelection) {
		t.Errorf("a reply that selects nothing: %v", err)
	}
}

// A catalog without Decision Logic whose actions are due on prose (the
// Codex ccw-loop's "needs debugging") is the agent's to select from, in a
// run with an agent; without one, or under Strict, the runtime selects,
// prose counting as true.
func TestAgentSelectsOnProse(t *testing.T) {
	s := skillFiles{
		catalog: "| Action | Purpose | Preconditions |\n|---|---|---|\n| action-a | Collect | `!state.touched` |\n| action-b | Report | when a report is needed |\n",
		acts:    map[string]string{"action-a": "return { stateUpdates: { touched: true } };", "action-b": "return {};"},
		fields:  "  touched?: boolean;",
	}.write(t)
	var sum strings.Builder
	if err := s.WriteSummary(&sum); err != nil || !strings.Contains(sum.String(), "(declarative selection from the catalog; with an agent, the agent selects: a precondition is prose)") {
		t.Errorf("plan does not say the agent selects: %v\n%s", err, sum.String())
	}
	o := options(t, s)
	o.Agent = scriptAgent(t, []string{`{"action": "action-b"}`, `{"action": null}`})
	res, err := run(t, o)
	if err != nil {
		t.Fatal(err)
	}
	if got := actions(state(t, res.Dir)); got != "action-b" {
		t.Errorf("with an agent: completed actions %q, want the agent's action-b", got)
	}
	log := testfs.ReadFile(t, filepath.Join(res.Dir, "agent.log"))
	if !strings.Contains(log, "[ACTIONS]\naction-a\tCollect\tyes\naction-b\tReport\tunknown") {
		t.Errorf("select prompt:\n%s", log)
	}
	o = options(t, s)
	o.Agent, o.Strict = scriptAgent(t, []string{`{"action": "action-b"}`}), true
	for name, o := range map[string]lifecycle.Options{"without an agent": options(t, s), "under Strict": o} {
		res, err = run(t, o)
		if err != nil {
			t.Fatal(err)
		}
		if got := actions(state(t, res.Dir)); got != "action-a action-b" {
			t.Errorf("%s: completed actions %q, want the catalog's order", name, got)
		}
	}
}

// A native action whose code fails is the agent's to do, told why; under
// Strict it fails the run.
func TestAgentTakesOverFailedAction(t *testing.T) {
	s := skillFiles{
		decision: "function selectNextAction(state) { return state.touched ? null : 'action-a'; }",
		acts:     map[string]string{"action-a": "return { stateUpdates: { touched: Read('missing.json').length > 0 } };"},
		fields:   "  touched?: boolean;",
	}.write(t)
	o := options(t, s)
	o.Agent = scriptAgent(t, nil)
	res, err := run(t, o)
	if err != nil {
		t.Fatal(err)
	}
	log := testfs.ReadFile(t, filepath.Join(res.Dir, "agent.log"))
	if !strings.Contains(log, "=== action") || !strings.Contains(log, "skillkit ran this action's code as written, and it failed:") || !strings.Contains(log, "missing.json") {
		t.Errorf("the agent was not told of the failure:\n%s", log)
	}
	o = options(t, s)
	o.Agent, o.Strict = scriptAgent(t, nil), true
	if res, err := run(t, o); err == nil || res.State != runstore.RunFailed {
		t.Errorf("under Strict: %v, %v; want the run failed", res, err)
	}
}

// An action that completes again and again without changing the state,
// while the selection keeps choosing it, stops the run early.
func TestIdleActionStops(t *testing.T) {
	s := skillFiles{
		decision: "function selectNextAction(state) { return state.ready ? null : 'action-wait'; }",
		acts:     map[string]string{"action-wait": "return {};"},
		fields:   "  ready?: boolean;",
	}.write(t)
	res, err := run(t, options(t, s))
	if !errors.Is(err, orchestrator.ErrNoProgress) || !strings.Contains(err.Error(), "orchestrator.md:5:1: ") ||
		!strings.Contains(err.Error(), "action action-wait completed 3 times in a row without changing the state") ||
		!strings.Contains(err.Error(), "it reads state.ready (read at phases/orchestrator.md:6:43), still unset: no action that ran sets it in the state") {
		t.Fatalf("err = %v", err)
	}
	if got := len(completed(state(t, res.Dir))); got != 3 {
		t.Errorf("%d actions ran, want 3", got)
	}
	if !errors.As(err, new(*lifecycle.RunError)) {
		t.Errorf("err %v, want a failed run", err)
	}
}

// A selection that only asks whether an action is done
// (completed_actions.includes) sees nothing new when the same action
// completes again, so that is no progress, though the skill's own loop in
// another block copies completed_actions; one whose helper, in another
// block, counts completions runs its passes. The old skill-tuning asked
// includes() and its init ran a hundred times, an agent call each.
func TestIdleActionStopsThoughTheSelectionAsksIncludes(t *testing.T) {
	ownLoop := "function runOrchestrator(state, id) {\n  return { ...state, completed_actions: [...state.completed_actions, id] };\n}"
	s := skillFiles{
		decision: "function selectNextAction(state) {\n  if (!state.ready) return 'action-wait';\n  return state.completed_actions.includes('action-wait') ? null : 'action-wait';\n}",
		acts:     map[string]string{"action-wait": "return {};"},
		fields:   "  ready?: boolean;",
		more:     []string{ownLoop},
	}.write(t)
	res, err := run(t, options(t, s))
	if !errors.Is(err, orchestrator.ErrNoProgress) || !strings.Contains(err.Error(), "action action-wait completed 3 times in a row without changing the state") {
		t.Fatalf("err = %v", err)
	}
	if got := len(completed(state(t, res.Dir))); got != 3 {
		t.Errorf("%d actions ran, want 3", got)
	}
	// The same, asked as defensive code asks it: (… || []).includes.
	s = skillFiles{
		decision: "function selectNextAction(state) {\n  if (!state.ready) return 'action-wait';\n  return (state.completed_actions || []).includes('action-wait') ? null : 'action-wait';\n}",
		acts:     map[string]string{"action-wait": "return {};"},
		fields:   "  ready?: boolean;",
	}.write(t)
	res, err = run(t, options(t, s))
	if !errors.Is(err, orchestrator.ErrNoProgress) {
		t.Fatalf("a selection asking (completed_actions || []).includes: err = %v", err)
	}
	if got := len(completed(state(t, res.Dir))); got != 3 {
		t.Errorf("%d actions ran, want 3", got)
	}
	s = skillFiles{
		decision: "function selectNextAction(state) {\n  return passesLeft(state) ? 'action-pass' : null;\n}",
		acts:     map[string]string{"action-pass": "return {};"},
		more:     []string{"function passesLeft(state) {\n  return state.completed_actions.filter(a => a === 'action-pass').length < 5;\n}", ownLoop},
	}.write(t)
	res, err = run(t, options(t, s))
	if err != nil {
		t.Fatalf("a selection that counts passes in a helper: %v", err)
	}
	if got := len(completed(state(t, res.Dir))); got != 5 {
		t.Errorf("%d passes ran, want 5", got)
	}
	// The same, the state destructured.
	s = skillFiles{
		decision: "function selectNextAction(state) {\n  const { completed_actions } = state;\n  return completed_actions.length < 5 ? 'action-pass' : null;\n}",
		acts:     map[string]string{"action-pass": "return {};"},
	}.write(t)
	res, err = run(t, options(t, s))
	if err != nil {
		t.Fatalf("a selection that destructures the state to count passes: %v", err)
	}
	if got := len(completed(state(t, res.Dir))); got != 5 {
		t.Errorf("%d passes ran, want 5", got)
	}
}

// A native action whose result the state schema refuses (review-code's
// quick scan of a project with no source files: 0/0 is NaN, which JSON
// writes as null, for a number) is the agent's to do, told what the
// schema refused, as code that throws is. Without an agent the refusal
// fails the action.
func TestAgentTakesOverRefusedUpdate(t *testing.T) {
	s := skillFiles{
		decision: "function selectNextAction(state) { return state.touched ? null : 'action-a'; }",
		acts:     map[string]string{"action-a": "const files = []; return { stateUpdates: { scan: { score: files.length / files.length } } };"},
		fields:   "  touched?: boolean;\n  scan?: { score: number };",
	}.write(t)
	o := options(t, s)
	o.Agent = scriptAgent(t, nil)
	res, err := run(t, o)
	if err != nil {
		t.Fatal(err)
	}
	log := testfs.ReadFile(t, filepath.Join(res.Dir, "agent.log"))
	if !strings.Contains(log, "skillkit ran this action's code as written, and it failed:") || !strings.Contains(log, "scan.score: expected number, but got null") {
		t.Errorf("the agent was not told of the refusal:\n%s", log)
	}
	if st := state(t, res.Dir); st["touched"] != true {
		t.Errorf("the agent's update was not applied: %v", st)
	}
	_, err = run(t, options(t, s))
	if err == nil || !strings.Contains(err.Error(), "scan.score: expected number, but got null") {
		t.Errorf("without an agent: %v, want the refusal", err)
	}
}

// An action the agent does is told what the loop's selection waits for:
// the fields native Decision Logic reads that are unset, with where it
// reads them (ccw-loop's selectNextAction waits for skill_state, which
// nothing in the action says).
func TestAgentToldWhatSelectionWaitsFor(t *testing.T) {
	s := skillFiles{
		decision: "function selectNextAction(state) { return state.ready ? null : 'action-wait'; }",
		acts:     map[string]string{"action-wait": "return { stateUpdates: { ready: pollReady() } };"},
		fields:   "  ready?: boolean;\n  touched?: boolean;",
	}.write(t)
	o := options(t, s)
	o.Agent = scriptAgent(t, nil)
	res, _ := run(t, o)
	log := testfs.ReadFile(t, filepath.Join(res.Dir, "agent.log"))
	want := "The loop selects the next action with selectNextAction (phases/orchestrator.md:5:1), from the state your stateUpdates leave. It reads state.ready (read at phases/orchestrator.md:6:43), unset now"
	if !strings.Contains(log, want) {
		t.Errorf("the action prompt does not say what the selection waits for:\n%s", log)
	}
}
