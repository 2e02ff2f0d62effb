package jsstatic

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		line, col int // of the error; 0 = parses
	}{
		{"top-level await and return", "const x = await Read('a')\nreturn { stateUpdates: { x } }", 0, 0},
		{"async execute", "async function execute(state, workDir) {\n  return {}\n}", 0, 0},
		{"syntax error on line 2", "const a = 1\nconst = 2", 2, 7},
		{"syntax error on line 1 column", "let ) = 1", 1, 5},
		{"unterminated at end", "function f() {\n  return 1", 2, 11},
		{"escaping the wrapper", "}); (function(){", 1, 1},
		{"typescript annotation", "const x: number = 1", 1, 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(tc.src)
			if tc.line == 0 {
				if err != nil {
					t.Fatalf("Parse: %v", err)
				}
				return
			}
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Parse = %v, want a SyntaxError", err)
			}
			if se.Line != tc.line || se.Col != tc.col {
				t.Errorf("error at %d:%d (%s), want %d:%d", se.Line, se.Col, se.Msg, tc.line, tc.col)
			}
		})
	}
}

// TestNullTests finds strict comparisons of state fields with null,
// either way round, and nothing else.
func TestNullTests(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want []string
	}{
		{"state.skill_state === null && null !== state.ctx?.n", []string{"skill_state@1:1", "ctx.n@1:40"}},
		{"state.a == null || state.b === undefined || state.c === 0 || x === null", nil},
	} {
		p, _, err := ParseExpression(tc.src)
		if err != nil {
			t.Fatalf("%s: %v", tc.src, err)
		}
		var got []string
		for _, r := range p.NullTests() {
			got = append(got, fmt.Sprintf("%s@%d:%d", r, r.Line, r.Col))
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: null tests %v, want %v", tc.src, got, tc.want)
		}
	}
}

func TestStateReads(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want []string
	}{
		{"state.status === 'running' && state.items.length > 0", []string{"status@1:1", "items.length@1:31"}},
		{"state.a[i].b", []string{"a@1:1"}},
		{"state.a[state.b.c]", []string{"a@1:1", "b.c@1:9"}},
		{"state['x'].y", []string{"x.y@1:1"}},
		{"state?.ctx?.n", []string{"ctx.n@1:1"}},
		{"state.items.filter(x => x.done).length", []string{"items.filter@1:1"}},
		{"other.status + state", nil},
	} {
		p, _, err := ParseExpression(tc.src)
		if err != nil {
			t.Fatalf("%s: %v", tc.src, err)
		}
		var got []string
		for _, r := range p.StateReads(nil) {
			got = append(got, fmt.Sprintf("%s@%d:%d", r, r.Line, r.Col))
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: reads %v, want %v", tc.src, got, tc.want)
		}
	}
}

func TestFunctionReturns(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string
		null, dyn bool
	}{
		{"literals and null", `function selectNextAction(state) {
  if (state.status === 'pending') return 'action-init';
  if (state.done) return null;
  return state.x ? 'action-a' : 'action-b';
}`, []string{"action-init", "action-a", "action-b"}, true, false},
		{"runs off the end", `function selectNextAction(state) {
  if (state.x) return 'action-a';
}`, []string{"action-a"}, true, false},
		{"computed", `const selectNextAction = (state) => { return 'action-' + state.next; }`, nil, false, true},
		{"local variable", `function selectNextAction(state) {
  let next = null;
  if (state.a) next = 'action-a';
  else next = 'action-b';
  return next;
}`, []string{"action-a", "action-b"}, true, false},
		{"nested returns are not its own", `function selectNextAction(state) {
  const pick = () => { return 'action-nested'; };
  return 'action-top';
}`, []string{"action-top"}, false, false},
		{"switch falls through", `function selectNextAction(s) {
  switch (s.k) { case 1: return 'action-a'; default: return 'action-b'; }
}`, []string{"action-a", "action-b"}, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Parse(tc.src)
			if err != nil {
				t.Fatal(err)
			}
			r := p.FunctionReturns("selectNextAction")
			if !r.Found {
				t.Fatal("function not found")
			}
			var got []string
			for _, s := range r.Strings {
				got = append(got, s.Value)
			}
			if !slices.Equal(got, tc.want) || r.Null != tc.null || r.Dynamic != tc.dyn {
				t.Errorf("returns %v null=%v dynamic=%v, want %v null=%v dynamic=%v", got, r.Null, r.Dynamic, tc.want, tc.null, tc.dyn)
			}
		})
	}
	p, _ := Parse("const x = 1")
	if p.FunctionReturns("selectNextAction").Found {
		t.Error("found a function in a block without one")
	}
}

func TestUpdates(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		expr      bool
		want      string
		strict    bool // only {stateUpdates: …} counts
	}{
		{"stateUpdates", `return { stateUpdates: { status: 'completed', n: -2, ok: true, x: null, list: [], 'a.b': f() } };`, false,
			"status=string:completed n=number:-2 ok=boolean:true x=null:<nil> list=array:<nil> a.b=:<nil>", false},
		{"execute returns", `async function execute(state) {
  const helper = () => ({ ignored: 1 });
  return { stateUpdates: { phase: 'done' } };
}
return { notThis: 1 };`, false, "phase=string:done", false},
		{"plain object", `return { count: 3 }`, false, "count=number:3", false},
		{"nested object", `return { stateUpdates: { ctx: { mode: 'auto', ...rest } } }`, false, "ctx=object:<nil> ctx.mode=string:auto", false},
		{"local object", `const updates = { k: 'v' };
return { stateUpdates: updates };`, false, "k=string:v", false},
		{"expression", `{ stateUpdates: { status: 'running' } }`, true, "status=string:running", false},
		{"computed result", `return { stateUpdates: build() }`, false, "", false},
		{"plain object not counted", `return { continue: false }`, false, "", true},
		{"stateUpdates counted when strict", `return { stateUpdates: { a: 1 }, message: 'x' }`, false, "a=number:1", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var p *Program
			var err error
			if tc.expr {
				p, _, err = ParseExpression(tc.src)
			} else {
				p, err = Parse(tc.src)
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, u := range p.Updates(!tc.strict) {
				got = append(got, fmt.Sprintf("%s=%s:%v", u.Key, u.Kind, u.Value))
			}
			if s := strings.Join(got, " "); s != tc.want {
				t.Errorf("updates\n%s\nwant\n%s", s, tc.want)
			}
		})
	}
}
