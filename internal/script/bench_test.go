package script

import (
	"context"
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
