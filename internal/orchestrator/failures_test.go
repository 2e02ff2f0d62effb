package orchestrator

import (
	"testing"

	"github.com/skillkit/skillkit/plan"
)

// TestSelectionReads: the loop leaves failed actions to a skill whose
// selection reads error_count or errors, as jsstatic reads the code; the
// words in a comment or a string are no reading.
func TestSelectionReads(t *testing.T) {
	cases := []struct {
		decision string
		want     bool
	}{
		{"function selectNextAction(state) {\n  if (state.error_count >= 3) return 'action-abort'\n  return null\n}", true},
		{"function selectNextAction(state) {\n  return state.errors?.length > 2 ? 'action-abort' : null\n}", true},
		{"function selectNextAction(state) {\n  if (state['error_count'] > 1) return 'action-abort'\n}", true},
		{"function selectNextAction(state) {\n  // error_count is the runtime's\n  return 'action-run'\n}", false},
		{"function selectNextAction(state) {\n  return state.status === 'errors' ? null : 'action-run'\n}", false},
		{"function selectNextAction(state) { return ", false},
	}
	for _, c := range cases {
		s := &plan.Skill{Orchestrator: &plan.Orchestrator{Decision: &plan.CodeBlock{Lang: "javascript", Text: c.decision}}}
		reads := selectionReads(s)
		if got := reads["error_count"] != nil || reads["errors"] != nil; got != c.want {
			t.Errorf("%q reads the errors: %v, want %v", c.decision, got, c.want)
		}
	}
	s := &plan.Skill{Actions: []*plan.Action{{ID: "action-x", Preconditions: []*plan.Precondition{{Expr: plan.Expr{JS: "state.completed_actions.length < 3"}}}}}}
	if !counts(selectionReads(s)["completed_actions"]) {
		t.Error("a precondition that counts completed_actions is not seen")
	}
}

// TestCountsCompletions: only a read that can tell one more completion of
// an action already done makes the same action again progress.
func TestCountsCompletions(t *testing.T) {
	for expr, want := range map[string]bool{
		"state.completed_actions.includes('action-init')":                                        false,
		"state.completed_actions.indexOf('a') < 0 && state.status === 'x'":                       false,
		"state.completed_actions.some(a => a === 'b')":                                           false,
		"state.completed_actions.length > 2":                                                     true,
		"state.completed_actions.filter(a => a === 'fix').length < 3":                            true,
		"state.completed_actions.includes('a') || state.completed_actions[0]":                    true,
		"(state.completed_actions || []).includes('a')":                                          false,
		"(state.completed_actions ?? []).some(a => a === 'b')":                                   false,
		"(state.completed_actions || []).length > 2":                                             true,
		"(state.completed_actions || state.done).includes('a')":                                  true,
		"(() => { const { completed_actions } = state; return completed_actions.length > 2 })()": true,
		"(() => { const { completed_actions: done = [] } = state; return done.length > 2 })()":   true,
		"state.status === 'pending'":                                                             false,
	} {
		s := &plan.Skill{Actions: []*plan.Action{{ID: "action-x", Preconditions: []*plan.Precondition{{Expr: plan.Expr{JS: expr}}}}}}
		if got := counts(selectionReads(s)["completed_actions"]); got != want {
			t.Errorf("%s counts completions: %v, want %v", expr, got, want)
		}
	}
}
