package orchestrator_test

import (
	"cmp"
	"errors"
	"strings"
	"testing"

	lifecycle "github.com/skillkit/skillkit/internal/run"

	"github.com/skillkit/skillkit/internal/orchestrator"

	"github.com/skillkit/skillkit/internal/runstore"
	"github.com/skillkit/skillkit/internal/testfs"
)

// Declarative selection: the catalog's rows by Priority (highest first,
// ties in catalog order), each needing its row's and its file's checkable
// preconditions; an action with none runs once.
func TestDeclarativeSelection(t *testing.T) {
	tests := []struct {
		name    string
		catalog string
		pre     map[string]string // action → its file's precondition
		want    string
	}{
		{
			name: "catalog order, preconditions from the rows",
			catalog: "| Action | Preconditions |\n|---|---|\n" +
				"| action-a | n<2 |\n| action-b | n>=2, !b_done |\n| action-once | |\n",
			want: "action-a action-a action-b action-once",
		},
		{
			name: "priority first, ties in order",
			catalog: "| Action | Priority | Preconditions |\n|---|---|---|\n" +
				"| action-once | | |\n| action-b | 5 | n>=2, !b_done |\n| action-a | 5 | n<2 |\n",
			want: "action-a action-a action-b action-once",
		},
		{
			name:    "the file's preconditions hold too",
			catalog: "| Action | Preconditions |\n|---|---|\n| action-a | n<3 |\n| action-b | !b_done |\n| action-once | |\n",
			pre:     map[string]string{"action-b": "state.n >= 3"},
			want:    "action-a action-a action-a action-b action-once",
		},
		{
			name: "without a catalog: every action by id",
			pre:  map[string]string{"action-a": "state.n < 1", "action-b": "!state.b_done"},
			want: "action-a action-b action-once",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := skillFiles{
				catalog: tt.catalog,
				acts: map[string]string{
					"action-a":    "return { n: state.n + 1 };",
					"action-b":    "return { b_done: true };",
					"action-once": "return { once: (state.once || 0) + 1 };",
				},
				fields:  "  n: number;\n  b_done?: boolean;\n  once?: number;",
				initial: `{"status": "running", "current_action": null, "completed_actions": [], "errors": [], "error_count": 0, "n": 0}`,
			}
			s := f.write(t)
			for id, pre := range tt.pre {
				testfs.WriteFile(t, s.Dir+"/phases/actions/"+id+".md", "# Action: "+id+"\n\n## Preconditions\n\n- [ ] `"+pre+"`\n\n## Execution\n\n```javascript\nasync function execute(state) {\n"+f.acts[id]+"\n}\n```\n")
			}
			s = load(t, s.Dir)
			res, err := run(t, options(t, s))
			if err != nil {
				t.Fatal(err)
			}
			if got := actions(state(t, res.Dir)); got != tt.want {
				t.Errorf("actions = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestSelectionErrors(t *testing.T) {
	tests := []struct {
		name  string
		f     skillFiles
		want  string
		state runstore.RunState // RunFailed when not set
	}{
		{
			name: "selectNextAction returns prose",
			f: skillFiles{decision: "function selectNextAction(state) { return 'run the checks'; }",
				acts: map[string]string{"action-a": "return {};"}},
			want: `phases/orchestrator.md:5:1: selectNextAction returned "run the checks", which is no action of the skill`,
		},
		{
			// Without an agent, an action with no file stops the run where
			// it was selected, resumable.
			name: "selectNextAction names an action with no file",
			f: skillFiles{decision: "function selectNextAction(state) { return 'action-nope'; }",
				acts: map[string]string{"action-a": "return {};"}},
			want:  `phases/orchestrator.md:5:1: action action-nope: the action goes to the agent (no action file: the agent does it from what the skill says of it): this needs an agent`,
			state: runstore.RunInterrupted,
		},
		{
			name: "selectNextAction throws",
			f: skillFiles{decision: "function selectNextAction(state) { return state.context.items[0]; }",
				acts: map[string]string{"action-a": "return {};"}},
			want: "phases/orchestrator.md:6:",
		},
		{
			name: "a catalog row without its file",
			f: skillFiles{catalog: "| Action | Preconditions |\n|---|---|\n| action-ghost | status=running |\n",
				acts: map[string]string{"action-a": "return {};"}},
			want:  "phases/orchestrator.md:7:1: action action-ghost: the action goes to the agent (no action file",
			state: runstore.RunInterrupted,
		},
		{
			name: "nothing selectable and a precondition throws",
			f: skillFiles{catalog: "| Action | Preconditions |\n|---|---|\n| action-a | `state.context.items.length > 0` |\n",
				acts: map[string]string{"action-a": "return {};"}},
			want: "no action can be selected, and some preconditions failed: preconditions of action-a:",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := run(t, options(t, tt.f.write(t)))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
			want := cmp.Or(tt.state, runstore.RunFailed)
			if res != nil && res.State != want {
				t.Errorf("run %s, want %s", res.State, want)
			}
		})
	}
}

// A skill whose selection reads error_count handles failures itself: a
// failed action is recorded and the loop goes on, here to an abort action
// that marks the run failed.
func TestSkillHandlesFailures(t *testing.T) {
	s := skillFiles{
		decision: `const MAX_ERRORS = 2;
function selectNextAction(state) {
  if (state.status === 'failed') return null;
  if (state.error_count >= MAX_ERRORS) return 'action-abort';
  return 'action-broken';
}`,
		acts: map[string]string{
			"action-broken": "throw new Error('disk on fire');",
			"action-abort":  "return { status: 'failed' };",
		},
	}.write(t)
	res, err := run(t, options(t, s))
	if !errors.As(err, new(*lifecycle.RunError)) || !errors.Is(err, orchestrator.ErrSkillFailed) {
		t.Fatalf("%v", err)
	}
	if !strings.Contains(err.Error(), "last error, in action-broken: ") || !strings.Contains(err.Error(), "disk on fire") {
		t.Errorf("err = %v, want the last error named", err)
	}
	st := state(t, res.Dir)
	if actions(st) != "action-abort" || st["error_count"] != 2.0 {
		t.Errorf("state = %v", st)
	}
}

// A skill that sets status completed ends the loop even when its
// selection would go on.
func TestStatusCompletedStops(t *testing.T) {
	s := skillFiles{
		decision: "function selectNextAction(state) { return 'action-finish'; }",
		acts:     map[string]string{"action-finish": "return { status: 'completed' };"},
	}.write(t)
	res, err := run(t, options(t, s))
	if err != nil || res.State != runstore.RunCompleted {
		t.Fatalf("run %s: %v", res.State, err)
	}
	if got := actions(state(t, res.Dir)); got != "action-finish" {
		t.Errorf("actions = %q", got)
	}
}
