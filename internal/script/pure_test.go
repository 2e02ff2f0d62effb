package script

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/skillkit/skillkit/plan"
)

func expr(js string) *plan.Expr {
	return &plan.Expr{Text: js, JS: js, Pos: plan.Pos{File: "phases/actions/action-x.md", Line: 14, Col: 7}}
}

var orchestratorDecls = []*plan.CodeBlock{
	block("phases/orchestrator.md", "const MAX_RETRIES = 3;\nfunction isDone(s) { return s.status === 'completed' }\nWrite('side-effect.txt', 'x');\nthrow new Error('top-level statements must not run');"),
}

func TestEvalExpr(t *testing.T) {
	env := PureEnv{
		State:  map[string]any{"status": "running", "error_count": 4.0, "pending_items": []any{"a"}, "context": nil},
		Inputs: map[string]string{"mode": "fast"},
		Decls:  orchestratorDecls,
	}
	tests := []struct {
		js   string
		want bool
	}{
		{"state.status === 'running'", true},
		{"state.pending_items.length > 0", true},
		{"state.error_count > MAX_RETRIES", true},
		{"!isDone(state)", true},
		{"state.context !== null", false},
		{"inputs.mode === 'fast'", true},
		{"typeof Read === 'undefined' && typeof Bash === 'undefined' && typeof console === 'undefined'", true},
		{"state.missing?.deep", false},
		{"", true},
	}
	for _, tt := range tests {
		got, err := EvalExpr(context.Background(), expr(tt.js), env)
		if err != nil || got != tt.want {
			t.Errorf("%s = %v, %v; want %v", tt.js, got, err, tt.want)
		}
	}
	prose := &plan.Expr{Text: "all dimensions reviewed"}
	if ok, err := EvalExpr(context.Background(), prose, env); !ok || err != nil {
		t.Errorf("prose = %v, %v; want true", ok, err)
	}
}

func TestEvalExprErrors(t *testing.T) {
	tests := []struct {
		js, want string
	}{
		{"state.a.b", "phases/actions/action-x.md:14:"},
		{"state.x ===", "phases/actions/action-x.md:15:1: SyntaxError"},
		{"a; b", "phases/actions/action-x.md:14:8: SyntaxError"},
		{"Read('x')", "ReferenceError: Read is not defined"},
	}
	for _, tt := range tests {
		_, err := EvalExpr(context.Background(), expr(tt.js), PureEnv{State: map[string]any{}})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %q", tt.js, err, tt.want)
		}
	}
}

func TestInfiniteLoopInPreconditionEndsAtItsDeadline(t *testing.T) {
	pcs := []*plan.Precondition{{Expr: *expr("(() => { while (true) {} })()")}}
	start := time.Now()
	_, err := Preconditions(context.Background(), pcs, PureEnv{State: map[string]any{}, Timeout: 100 * time.Millisecond})
	if !errors.Is(err, ErrTimeout) || !strings.HasPrefix(err.Error(), "phases/actions/action-x.md:14:") {
		t.Fatalf("err = %v, want a timeout at phases/actions/action-x.md:14", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := EvalExpr(ctx, expr("(() => { for (;;) {} })()"), PureEnv{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
}

func TestPreconditions(t *testing.T) {
	state := map[string]any{"status": "running", "n": 2.0}
	line := func(js string, anyOf ...*plan.Precondition) *plan.Precondition {
		return &plan.Precondition{Expr: *expr(js), AnyOf: anyOf}
	}
	tests := []struct {
		name string
		ps   []*plan.Precondition
		want bool
	}{
		{"none", nil, true},
		{"all hold", []*plan.Precondition{line("state.status === 'running'"), line("state.n > 1")}, true},
		{"one fails", []*plan.Precondition{line("state.status === 'running'"), line("state.n > 5")}, false},
		{"any of", []*plan.Precondition{line("", line("state.n > 5"), line("state.n === 2"))}, true},
		{"any of none", []*plan.Precondition{line("", line("state.n > 5"), line("state.x"))}, false},
		{"prose", []*plan.Precondition{{Expr: plan.Expr{Text: "critical failure detected"}}}, true},
	}
	for _, tt := range tests {
		got, err := Preconditions(context.Background(), tt.ps, PureEnv{State: state})
		if err != nil || got != tt.want {
			t.Errorf("%s: %v, %v; want %v", tt.name, got, err, tt.want)
		}
	}
}

func TestSelectNextAction(t *testing.T) {
	decision := block("phases/orchestrator.md", "function selectNextAction(state) {\n  if (state.error_count > MAX_RETRIES) return 'action-abort';\n  if (isDone(state)) return null;\n  if (state.n === 7) return 42;\n  return 'action-process';\n}")
	decision.Body.Line = 40
	o := &plan.Orchestrator{Decision: decision, Declarations: append([]*plan.CodeBlock{}, orchestratorDecls[0], decision)}
	tests := []struct {
		state map[string]any
		id    string
		ok    bool
		err   string
	}{
		{state: map[string]any{"status": "running", "error_count": 0.0}, id: "action-process", ok: true},
		{state: map[string]any{"status": "running", "error_count": 5.0}, id: "action-abort", ok: true},
		{state: map[string]any{"status": "completed"}, ok: false},
		{state: map[string]any{"n": 7.0}, err: "phases/orchestrator.md:40:1: selectNextAction returned 42"},
	}
	for _, tt := range tests {
		id, ok, err := SelectNextAction(context.Background(), o, tt.state)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%v: err = %v, want %q", tt.state, err, tt.err)
			}
			continue
		}
		if err != nil || id != tt.id || ok != tt.ok {
			t.Errorf("%v: got %q %v %v, want %q %v", tt.state, id, ok, err, tt.id, tt.ok)
		}
	}
	if _, _, err := SelectNextAction(context.Background(), &plan.Orchestrator{}, nil); err == nil {
		t.Error("want an error without Decision Logic")
	}
	bad := &plan.Orchestrator{Decision: block("phases/orchestrator.md", "function selectNextAction(state) {")}
	if _, _, err := SelectNextAction(context.Background(), bad, nil); err == nil || !strings.Contains(err.Error(), "phases/orchestrator.md:10") {
		t.Errorf("syntax error: err = %v", err)
	}
	none := &plan.Orchestrator{Decision: block("phases/orchestrator.md", "const x = 1")}
	if _, _, err := SelectNextAction(context.Background(), none, nil); err == nil || !strings.Contains(err.Error(), "defines no function selectNextAction") {
		t.Errorf("no function: err = %v", err)
	}
}
