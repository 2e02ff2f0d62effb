package orchestrator_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	lifecycle "github.com/skillkit/skillkit/internal/run"

	"github.com/skillkit/skillkit/plan"
)

func TestRunDispatchesByMode(t *testing.T) {
	seq := options(t, load(t, "../../examples/sequential"))
	seq.Inputs = map[string]string{"dir": "../../docs"}
	if res, err := run(t, seq); err != nil || res.State != "completed" {
		t.Fatalf("sequential example: %v, %v", res, err)
	}
	none := options(t, &plan.Skill{Dir: t.TempDir(), Name: "empty", Mode: plan.ModeUnknown})
	if _, err := lifecycle.Run(t.Context(), none); !errors.Is(err, lifecycle.ErrInvalid) || !strings.Contains(err.Error(), "no numbered phase, orchestrator or action to run") {
		t.Fatalf("a skill with nothing to run: %v", err)
	}
	if _, err := lifecycle.Run(t.Context(), lifecycle.Options{}); !errors.Is(err, lifecycle.ErrInvalid) {
		t.Fatalf("no skill: %v", err)
	}
}

// Lint sees an autonomous skill as it is, not with the phase the runner
// adds to run its loop.
func TestValidateSeesTheSkill(t *testing.T) {
	s := load(t, "../../examples/autonomous")
	o := options(t, s)
	var seen *plan.Skill
	o.Validate = func(v *plan.Skill) error { seen = v; return nil }
	if _, err := run(t, o); err != nil {
		t.Fatal(err)
	}
	if seen != s || len(s.Phases) != 0 {
		t.Errorf("Validate saw %p with %d phases, want the parsed skill %p with none", seen, len(seen.Phases), s)
	}
}

func TestPlanShowsTheLoop(t *testing.T) {
	d, err := lifecycle.Plan(options(t, load(t, "../../examples/autonomous")))
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Phases) != 1 || d.Phases[0].ID != "orchestrator" || !d.Phases[0].IsOrchestrator || d.Mode != "autonomous" {
		t.Fatalf("dry run = %+v", d)
	}
	var out bytes.Buffer
	if err := d.Write(&out, false); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "phase 1/1 orchestrator: Orchestrator\n  runs the orchestrator (autonomous loop)") {
		t.Errorf("dry run output:\n%s", &out)
	}
}

// TestPlanListsTheActions: a dry run of a loop names its selection and
// every action with its kind and preconditions, and shows what an agent
// action would be sent.
func TestPlanListsTheActions(t *testing.T) {
	d, err := lifecycle.Plan(options(t, load(t, "../../examples/agent-driven")))
	if err != nil {
		t.Fatal(err)
	}
	if d.Loop == nil || len(d.Loop.Actions) != 3 || !strings.HasPrefix(d.Loop.Selection, "selectNextAction at phases/orchestrator.md:") {
		t.Fatalf("loop = %+v", d.Loop)
	}
	for _, a := range d.Loop.Actions {
		if a.Kind != "agent" || a.Prompt == "" || len(a.Preconditions) == 0 {
			t.Errorf("action %+v: want an agent action with its prompt and preconditions", a)
		}
	}
	var out bytes.Buffer
	if err := d.Write(&out, false); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"  action action-outline: agent\n    agent: prose: no runnable block (phases/actions/action-outline.md:",
		"    when: state.outline === null\n    needs an agent (--agent CMD); it would be sent:\n",
		"      | Choose three to five section titles",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("dry run output lacks %q:\n%s", want, &out)
		}
	}
	a, err := lifecycle.Plan(options(t, load(t, "../../examples/autonomous")))
	if err != nil {
		t.Fatal(err)
	}
	for _, act := range a.Loop.Actions {
		if act.Kind != "js" || act.Class.Kind != plan.ClassNative || act.Prompt != "" {
			t.Errorf("autonomous example action %+v: want native js with no prompt", act)
		}
	}
}
