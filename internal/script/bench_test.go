package script

import (
	"context"
	"maps"
	"testing"

	"github.com/dop251/goja"

	"github.com/skillkit/skillkit/plan"
)

func BenchmarkPrecondition(b *testing.B) {
	ps := []*plan.Precondition{{Expr: *expr("state.status === 'running' && state.pending_items.length > 0")}}
	env := PureEnv{State: map[string]any{"status": "running", "pending_items": []any{"a", "b"}}}
	ctx := context.Background()
	for b.Loop() {
		if ok, err := Preconditions(ctx, ps, env); err != nil || !ok {
			b.Fatal(ok, err)
		}
	}
}

func BenchmarkNewRuntime(b *testing.B) {
	for b.Loop() {
		_ = goja.New()
	}
}

func BenchmarkHostRuntime(b *testing.B) {
	h, err := NewHost(Options{WorkDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	state := map[string]any{"status": "running"}
	for b.Loop() {
		ev, err := h.start(context.Background(), state)
		if err != nil {
			b.Fatal(err)
		}
		ev.stop()
	}
}

func BenchmarkExecute(b *testing.B) {
	h, err := NewHost(Options{WorkDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	a := &plan.Action{ID: "action-process", Execution: plan.Execution{Kind: plan.ExecJS, Code: block("phases/actions/action-process.md",
		"async function execute(state, workDir) {\n  const item = state.pending_items[0];\n  return { stateUpdates: { pending_items: state.pending_items.slice(1), last: item } };\n}")}}
	state := map[string]any{"pending_items": []any{"a", "b", "c"}}
	ctx := context.Background()
	for b.Loop() {
		if _, err := h.RunAction(ctx, a, state); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTightLoop is what the heap tick at the head of each loop
// iteration (tick.go) costs a loop that does almost nothing else: read it
// per iteration (ns/op ÷ 100,000).
func BenchmarkTightLoop(b *testing.B) {
	h, err := NewHost(Options{WorkDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	src := block("phases/01-x.md", "let n = 0; for (let i = 0; i < 100000; i++) { n += i }; return {stateUpdates: {n}}")
	ctx := context.Background()
	for b.Loop() {
		if _, err := h.RunStep(ctx, src, map[string]any{}, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTurn is a no-op loop iteration's JavaScript: a Turn over a
// loop's state, its selection and its action, as the orchestrator runs
// them (testdata/noop-loop of internal/orchestrator). The runtime of the
// next Turn is made on a goroutine behind this one: ns/op is the
// iteration's own path, which a second core shortens.
func BenchmarkTurn(b *testing.B) {
	h, err := NewHost(Options{WorkDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	o := &plan.Orchestrator{Decision: block("phases/orchestrator.md",
		"function selectNextAction(state) {\n  return state.completed_actions.length < state.limit ? 'action-noop' : null;\n}")}
	a := turnAction("function execute(state) {\n  return {};\n}")
	done := make([]any, 100)
	for i := range done {
		done[i] = "action-noop"
	}
	state := map[string]any{"status": "running", "started_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z",
		"current_action": nil, "completed_actions": done, "errors": []any{}, "error_count": 0.0, "limit": 1000.0}
	acting := maps.Clone(state)
	acting["current_action"] = "action-noop"
	ctx := context.Background()
	for b.Loop() {
		t, err := h.Turn(ctx, state)
		if err != nil {
			b.Fatal(err)
		}
		if id, ok, err := t.SelectNextAction(ctx, o); err != nil || !ok || id != "action-noop" {
			b.Fatal(id, ok, err)
		}
		if _, err := t.RunAction(ctx, a, acting); err != nil {
			b.Fatal(err)
		}
		t.Close()
	}
}
