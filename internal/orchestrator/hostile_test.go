package orchestrator_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	lifecycle "github.com/skillkit/skillkit/internal/run"

	"github.com/skillkit/skillkit/internal/runstore"
)

// hostileStep is a sequential skill whose one phase runs js as a step,
// with the given attribute lines; the step opens at line 7, its code at 8.
func hostileStep(attrs, js string) map[string]string {
	if attrs != "" {
		attrs += "\n"
	}
	return map[string]string{
		"SKILL.md":       "---\nname: hostile\ndescription: Hostile JS values.\n---\n# Hostile\n",
		"phases/01-a.md": "# Phase 1: A\n\n## Execution Steps\n\n### Step 1: Throw\n" + attrs + "```javascript\n" + js + "\n```\n",
	}
}

// hostileLoop is an autonomous skill with the given Decision Logic (none
// when empty) and one JS action, action-a, with a precondition.
func hostileLoop(decision, precondition, body string) map[string]string {
	orch := "# Orchestrator\n\n"
	if decision != "" {
		orch += "## Decision Logic\n\n```javascript\n" + decision + "\n```\n"
	}
	return map[string]string{
		"SKILL.md":               "---\nname: hostile\ndescription: Hostile JS values.\n---\n# Hostile\n",
		"phases/orchestrator.md": orch,
		"phases/actions/action-a.md": "# Action: A\n\n## Preconditions\n\n- [ ] `" + precondition + "`\n\n## Execution\n\n" +
			"```javascript\nasync function execute(state) {\n" + body + "\n}\n```\n",
	}
}

const selectOnce = "function selectNextAction(state) {\n  return state.completed_actions.length ? null : 'action-a';\n}"

// TestHostileValues runs skills whose JS throws, rejects with or returns
// values that fight their conversion to Go: no prototype, a toString or
// message that throws or never ends. Each used to panic the runner,
// leaving the run `running` and panicking again on every resume. Now the
// step (or the selection) fails with the position of the code and a
// message naming the value, the run is failed and not running, and a
// resume fails the same way.
func TestHostileValues(t *testing.T) {
	const nullProto = "Object.create(null)"
	cases := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"throw a null-prototype object", hostileStep("", "throw "+nullProto+";"),
			`01-a.md:7:1: \[object Object\], which cannot be shown: converting it to a string threw \[object Error\]`},
		{"toString throws", hostileStep("", "throw {toString() { throw "+nullProto+"; }};"),
			`01-a.md:7:1: \[object Object\], which cannot be shown: converting it to a string threw \[object Object\]`},
		{"toString never ends", hostileStep("- **Timeout**: 1s", "throw {toString() { for (;;) {} }};"),
			`01-a.md:7:1: step 01-a#1: timed out after 1s`},
		{"message getter throws", hostileStep("", "const e = new Error('x');\nObject.defineProperty(e, 'message', {get() { throw "+nullProto+"; }});\nthrow e;"),
			`01-a.md:7:1: \[object Error\], which cannot be shown: converting it to a string threw \[object Object\]`},
		{"message getter never ends", hostileStep("- **Timeout**: 1s", "const e = new Error('x');\nObject.defineProperty(e, 'message', {get() { for (;;) {} }});\nthrow e;"),
			`01-a.md:7:1: step 01-a#1: timed out after 1s`},
		{"promise rejected with a null-prototype object", hostileStep("", "return Promise.reject("+nullProto+");"),
			`01-a.md:7:1: \[object Object\], which cannot be shown`},
		{"selectNextAction returns a null-prototype object", hostileLoop("function selectNextAction(state) { return "+nullProto+"; }", "true", "return {};"),
			`orchestrator.md:\d+:\d+: selectNextAction returned \[object Object\], which cannot be shown`},
		{"selectNextAction throws a null-prototype object", hostileLoop("function selectNextAction(state) { throw "+nullProto+"; }", "true", "return {};"),
			`orchestrator.md:6:\d+: \[object Object\], which cannot be shown`},
		{"precondition throws a null-prototype object", hostileLoop("", "state.x ?? (() => { throw "+nullProto+"; })()", "return {};"),
			`preconditions of action-a: phases/actions/action-a.md:5:\d+: \[object Object\], which cannot be shown`},
		{"condition throws a null-prototype object", hostileStep("- **Condition**: state.x ?? (() => { throw "+nullProto+"; })()", "state.x = 1;"),
			`01-a.md:6:\d+: .*\[object Object\], which cannot be shown`},
		{"action throws an object whose toString throws", hostileLoop(selectOnce, "true", "throw {toString() { throw "+nullProto+"; }};"),
			`action-a.md:10:1: \[object Object\], which cannot be shown`},
		{"action returns an object with a throwing getter", hostileLoop(selectOnce, "true", "return {get x() { throw "+nullProto+"; }};"),
			`action-a.md:\d+:\d+: reading the result: \[object Object\], which cannot be shown`},
		{"state becomes a throwing getter", hostileStep("", "Object.defineProperty(globalThis, 'state', {get() { throw "+nullProto+"; }});"),
			`01-a.md:7:1: reading the state after the step: \[object Object\], which cannot be shown`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			o := options(t, writeSkill(t, "hostile", c.files))
			res, err := guarded(t, o)
			if err == nil || !regexp.MustCompile(c.want).MatchString(err.Error()) {
				t.Fatalf("run: %v\nwant an error matching %q", err, c.want)
			}
			if !errors.As(err, new(*lifecycle.RunError)) {
				t.Errorf("err %v, want a failed run (exit 1)", err)
			}
			if res == nil {
				t.Fatal("no run directory")
			}
			if p := progress(t, res.Dir); p.RunState != runstore.RunFailed {
				t.Errorf("run state %s, want failed", p.RunState)
			}
			// A failed run is final: a resume is refused, cleanly.
			o.Resume = res.Dir
			if _, err := guarded(t, o); err == nil || !strings.Contains(err.Error(), "terminal states are final") {
				t.Fatalf("resume: %v, want it refused", err)
			}
			if p := progress(t, res.Dir); p.RunState != runstore.RunFailed {
				t.Errorf("run state %s after a resume, want failed", p.RunState)
			}
		})
	}
}

// guarded runs o, failing the test on a panic or after a minute.
func guarded(t *testing.T, o lifecycle.Options) (*lifecycle.Result, error) {
	t.Helper()
	type result struct {
		res    *lifecycle.Result
		err    error
		panicV string
	}
	done := make(chan result, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- result{panicV: fmt.Sprintf("%v\n%s", p, debug.Stack())}
			}
		}()
		res, err := lifecycle.Run(context.Background(), o)
		done <- result{res: res, err: err}
	}()
	select {
	case r := <-done:
		if r.panicV != "" {
			t.Fatalf("the run panicked: %s", r.panicV)
		}
		return r.res, r.err
	case <-time.After(time.Minute):
		t.Fatal("the run did not end within a minute")
	}
	return nil, nil
}
