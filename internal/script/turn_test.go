package script

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/skillkit/skillkit/plan"
)

// turnAction is a JS action whose Execution is src.
func turnAction(src string) *plan.Action {
	return &plan.Action{ID: "action-x", Execution: plan.Execution{Kind: plan.ExecJS, Code: block("phases/actions/action-x.md", src)}}
}

func TestTurnSelectsAndActsInOneRuntime(t *testing.T) {
	h := newFixture(t).host(t, nil)
	state := map[string]any{"n": 1.0, "ctx": map[string]any{"seen": false}, "current_action": nil}
	turn, err := h.Turn(context.Background(), state)
	if err != nil {
		t.Fatal(err)
	}
	defer turn.Close()
	// The selection sees no host API; what it sets at the top of the state
	// stays its own, what it changes under it is the same value the action
	// reads, in the same runtime.
	o := &plan.Orchestrator{Decision: block("phases/orchestrator.md", `function selectNextAction(state) {
  state.n = 99;
  state.ctx.seen = true;
  globalThis.picked = inputs.target;
  return typeof Bash === 'undefined' ? 'action-x' : 'action-bad';
}`)}
	id, ok, err := turn.SelectNextAction(context.Background(), o)
	if err != nil || !ok || id != "action-x" {
		t.Fatalf("selection: %q %v %v", id, ok, err)
	}
	acting := maps.Clone(state)
	acting["current_action"] = "action-x"
	a := turnAction(`return {stateUpdates: {n: state.n, seen: state.ctx.seen, picked, current: state.current_action, bash: typeof Bash}};`)
	got, err := turn.RunAction(context.Background(), a, acting)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"n": 1.0, "seen": true, "picked": "src", "current": "action-x", "bash": "function"}
	if !maps.Equal(got, want) {
		t.Errorf("the action read %v, want %v", got, want)
	}
	if state["ctx"].(map[string]any)["seen"] != false {
		t.Error("the selection changed the Go state")
	}
}

func TestTurnRetryGetsARuntimeOfItsOwn(t *testing.T) {
	h := newFixture(t).host(t, nil)
	turn, err := h.Turn(context.Background(), map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	defer turn.Close()
	a := turnAction(`globalThis.tries = (globalThis.tries || 0) + 1; return {stateUpdates: {tries}};`)
	for i := range 2 {
		got, err := turn.RunAction(context.Background(), a, map[string]any{})
		if err != nil || got["tries"] != 1.0 {
			t.Errorf("attempt %d: %v, %v; want tries 1", i+1, got, err)
		}
	}
}

func TestTurnEvaluationsAreBounded(t *testing.T) {
	h := newFixture(t).host(t, nil)
	turn, err := h.Turn(context.Background(), map[string]any{"n": 2.0})
	if err != nil {
		t.Fatal(err)
	}
	defer turn.Close()
	// A selection that never returns ends with its context, at its line.
	o := &plan.Orchestrator{Decision: block("phases/orchestrator.md", "function selectNextAction(state) {\n  for (;;) {}\n}")}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, _, err = turn.SelectNextAction(ctx, o)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.HasPrefix(err.Error(), "phases/orchestrator.md:1") {
		t.Fatalf("err = %v, want the deadline in the Decision Logic block", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
	// The interrupt that ended it does not stop the next evaluation.
	pcs := []*plan.Precondition{{Expr: *expr("state.n === 2")}}
	if ok, err := turn.Preconditions(context.Background(), pcs, nil); err != nil || !ok {
		t.Errorf("after a timeout: %v, %v; want true", ok, err)
	}
	done, stop := context.WithCancel(context.Background())
	stop()
	loops := []*plan.Precondition{{Expr: *expr("(() => { for (;;) {} })()")}}
	if _, err := turn.Preconditions(done, loops, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
	got, err := turn.RunAction(context.Background(), turnAction(`return {stateUpdates: {n: state.n + 1}};`), map[string]any{"n": 2.0})
	if err != nil || got["n"] != 3.0 {
		t.Errorf("the action after a cancelled selection: %v, %v", got, err)
	}
}

// The runtime of a Turn is made behind the one before it (turnRuntime):
// still a runtime of its own, with its time counted from its Turn, not
// from when it was made, and the goroutine that made the last one, never
// used, ends.
func TestTurnsMadeAheadAreFreshAndEnd(t *testing.T) {
	h := newFixture(t).host(t, func(o *Options) { o.Timeout = 300 * time.Millisecond })
	before := runtime.NumGoroutine()
	for i := range 3 {
		turn, err := h.Turn(context.Background(), map[string]any{"i": float64(i)})
		if err != nil {
			t.Fatal(err)
		}
		a := turnAction(`const was = typeof globalThis.mine; globalThis.mine = state.i; return {stateUpdates: {was, json: JSON.stringify([state.i])}};`)
		got, err := turn.RunAction(context.Background(), a, map[string]any{"i": float64(i)})
		turn.Close()
		if err != nil || got["was"] != "undefined" || got["json"] != fmt.Sprintf("[%d]", i) {
			t.Errorf("turn %d: %v, %v; want a fresh runtime", i+1, got, err)
		}
		// Longer than the timeout: the next runtime waits made, and its
		// evaluation's time starts with its Turn.
		time.Sleep(400 * time.Millisecond)
	}
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines after the turns, %d before", runtime.NumGoroutine(), before)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// The state objects of a turn hold the state's fields as JSON.parse would,
// own data properties, even after a selection put setters on
// Object.prototype in the same runtime, and "__proto__" is a field.
func TestTurnStateFieldsAreOwn(t *testing.T) {
	h := newFixture(t).host(t, nil)
	state := map[string]any{"n": 1.0, "__proto__": map[string]any{"polluted": true}, "sub": map[string]any{"k": 1.0}}
	turn, err := h.Turn(context.Background(), state)
	if err != nil {
		t.Fatal(err)
	}
	defer turn.Close()
	o := &plan.Orchestrator{Decision: block("phases/orchestrator.md", `function selectNextAction(state) {
  Object.defineProperty(Object.prototype, 'n', {set(v) { globalThis.stolen = v }, configurable: true});
  Object.defineProperty(Object.prototype, 'k', {set(v) { globalThis.stolen = v }, configurable: true});
  return 'action-x';
}`)}
	if _, _, err := turn.SelectNextAction(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	acting := maps.Clone(state)
	acting["n"], acting["sub"] = 2.0, map[string]any{"k": 2.0}
	a := turnAction(`return {stateUpdates: {n: state.n, k: state.sub.k, own: Object.keys(state).join(), polluted: ({}).polluted === undefined && state.__proto__.polluted, stolen: typeof stolen, proto: Object.getPrototypeOf(state) === Object.prototype && Object.getPrototypeOf(state.sub) === Object.prototype && state.hasOwnProperty('n')}};`)
	got, err := turn.RunAction(context.Background(), a, acting)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"n": 2.0, "k": 2.0, "own": "__proto__,n,sub", "polluted": true, "stolen": "undefined", "proto": true}
	if !maps.Equal(got, want) {
		t.Errorf("the action read %v, want %v", got, want)
	}
}

// A loop action's host call cut by the iteration's time limit fails with
// ErrTimeout, as a step's does (TestHostCallTimeoutNamesErrTimeout), and
// not with context.Canceled, which the engine takes for the user stopping
// the run.
func TestTurnActionTimeoutNamesErrTimeout(t *testing.T) {
	f := newFixture(t)
	h := f.host(t, func(o *Options) { o.Timeout = 300 * time.Millisecond })
	turn, err := h.Turn(context.Background(), map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	defer turn.Close()
	_, err = turn.RunAction(context.Background(), turnAction(`Bash("sleep 5"); return {stateUpdates: {}};`), map[string]any{})
	if !errors.Is(err, ErrTimeout) || errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want the action to fail with ErrTimeout, not context.Canceled", err)
	}
}

// Each turn has a runtime of its own: what one turn's selection and
// action do to the builtins, the host API and the globals, none of the
// next turn's code sees, and the next turn's builtins are guarded again
// (its fill is weighed, though the turn before put an unguarded one in
// its place).
func TestTurnsDoNotSeeEachOthersChanges(t *testing.T) {
	h := newFixture(t).host(t, func(o *Options) { o.JSMemory = 64 << 20 })
	o := &plan.Orchestrator{Decision: block("phases/orchestrator.md", `function selectNextAction(state) {
  if (state.i === 0) {
    Array.prototype.leak = 'array';
    Object.prototype.polluted = true;
    String.prototype.repeat = () => 'mine';
    Array.prototype.join = function () { return 'joined' };
    globalThis.fromSelection = 1;
  }
  return 'action-x';
}`)}
	mutate := turnAction(`Bash = () => 'not bash';
JSON.stringify = () => 'mine';
Array.prototype.fill = function () { return this };
Math.max = () => -1;
globalThis.fromAction = 1;
return {stateUpdates: {}};`)
	check := turnAction(`return {stateUpdates: {seen: [
  [].leak, ({}).polluted, 'ab'.repeat(2), [1, 2].join('-'), typeof fromSelection, typeof fromAction,
  Bash === Bash && String(Bash).indexOf('not bash') < 0, JSON.stringify([1]), Math.max(1, 2), state.i,
].map(String).join(' ')}};`)
	for i, a := range []*plan.Action{mutate, check} {
		state := map[string]any{"i": float64(i)}
		turn, err := h.Turn(context.Background(), state)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := turn.SelectNextAction(context.Background(), o); err != nil {
			t.Fatal(err)
		}
		got, err := turn.RunAction(context.Background(), a, state)
		turn.Close()
		if err != nil {
			t.Fatalf("turn %d: %v", i+1, err)
		}
		if want := "undefined undefined abab 1-2 undefined undefined true [1] 2 1"; i == 1 && got["seen"] != want {
			t.Errorf("the second turn saw %q, want %q", got["seen"], want)
		}
	}
	turn, err := h.Turn(context.Background(), map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	defer turn.Close()
	_, err = turn.RunAction(context.Background(), turnAction(`new Array(2 ** 26).fill(0); return {stateUpdates: {}};`), map[string]any{})
	if !errors.Is(err, ErrMemory) {
		t.Errorf("a fill past the budget after a turn replaced fill: err = %v, want ErrMemory", err)
	}
}

// An action run under a context of the caller's own (an action's timeout
// attribute) ends with it, its code and its host calls alike, though the
// turn's deadline is far.
func TestTurnActionEndsWithItsOwnContext(t *testing.T) {
	h := newFixture(t).host(t, nil)
	for _, src := range []string{`for (;;) {}`, `Bash("sleep 5"); return {stateUpdates: {}};`} {
		turn, err := h.Turn(context.Background(), map[string]any{})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		start := time.Now()
		_, err = turn.RunAction(ctx, turnAction(src), map[string]any{})
		cancel()
		turn.Close()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: err = %v, want the context's deadline", src, err)
		}
		if d := time.Since(start); d > 4*time.Second {
			t.Errorf("%s: took %v", src, d)
		}
	}
}
