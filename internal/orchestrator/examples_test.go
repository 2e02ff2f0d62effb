package orchestrator_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/skillkit/skillkit/internal/orchestrator"

	"github.com/skillkit/skillkit/internal/agent"
	"github.com/skillkit/skillkit/internal/runstore"
	"github.com/skillkit/skillkit/internal/testfs"
)

func TestExampleAutonomous(t *testing.T) {
	o := options(t, load(t, "../../examples/autonomous"))
	o.Inputs = map[string]string{"items": "red, green,blue"}
	res, err := run(t, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.State != runstore.RunCompleted {
		t.Fatalf("run %s", res.State)
	}
	st := state(t, res.Dir)
	if got, want := actions(st), "action-init action-process action-process action-process action-complete"; got != want {
		t.Errorf("completed_actions = %q, want %q", got, want)
	}
	if st["status"] != "completed" || st["current_action"] != nil || st["error_count"] != 0.0 {
		t.Errorf("state = %v", st)
	}
	want := "# Notes\n\n- [red](notes/red.md) (8 words)\n- [green](notes/green.md) (8 words)\n- [blue](notes/blue.md) (8 words)\n"
	if got := testfs.ReadFile(t, filepath.Join(res.Dir, "index.md")); got != want {
		t.Errorf("index.md = %q, want %q", got, want)
	}
	if got := testfs.ReadFile(t, filepath.Join(res.Dir, "notes", "green.md")); got != "# green\n\ngreen is item 2 of 3.\n" {
		t.Errorf("notes/green.md = %q", got)
	}
	l := progress(t, res.Dir).Loop
	if l == nil || l.Iteration != 5 || l.Completed != 5 || l.LastAction != "action-complete" || l.CurrentAction != "" || l.MaxIterations != orchestrator.DefaultMaxIterations {
		t.Errorf("progress loop = %+v", l)
	}
}

func TestExampleHybrid(t *testing.T) {
	o := options(t, load(t, "../../examples/hybrid"))
	o.Inputs = map[string]string{"text": "The cat saw the other cat, and the dog"}
	res, err := run(t, o)
	if err != nil {
		t.Fatal(err)
	}
	p := progress(t, res.Dir)
	if res.State != runstore.RunCompleted || strings.Join(p.CompletedPhases, " ") != "01-collect 02-orchestrator 03-report" {
		t.Fatalf("run %s, phases %v", res.State, p.CompletedPhases)
	}
	st := state(t, res.Dir)
	counts := "action-count action-count action-count action-count action-count action-count action-rank"
	if got := actions(st); got != counts {
		t.Errorf("completed_actions = %q, want %q", got, counts)
	}
	want := "# Word frequencies\n\n9 words, 6 distinct.\n\n| word | count |\n|---|---|\n| the | 3 |\n| cat | 2 |\n| and | 1 |\n| dog | 1 |\n| other | 1 |\n| saw | 1 |\n"
	if got := testfs.ReadFile(t, filepath.Join(res.Dir, "report.md")); got != want {
		t.Errorf("report.md = %q, want %q", got, want)
	}
	if st["status"] != "completed" {
		t.Errorf("state.status = %v", st["status"])
	}
}

// TestExampleAgentDriven runs the prose actions of examples/agent-driven:
// first with no agent (the run stops, resumable, naming --agent), then
// resumed with the example's fake agent script.
func TestExampleAgentDriven(t *testing.T) {
	s := load(t, "../../examples/agent-driven")
	o := options(t, s)
	o.Inputs = map[string]string{"topic": "Resumable runs"}
	res, err := run(t, o)
	if res.State != runstore.RunInterrupted || !errors.Is(err, agent.ErrNoAgent) || !strings.Contains(err.Error(), "--agent") {
		t.Fatalf("without an agent: %s, %v", res.State, err)
	}
	if !strings.Contains(err.Error(), "phases/actions/action-outline.md") {
		t.Errorf("error %q does not name the action file", err)
	}
	script, err := filepath.Abs("../../examples/agent-driven/fake-agent.sh")
	if err != nil {
		t.Fatal(err)
	}
	o.Resume = res.ID
	o.Agent = &agent.Agent{Command: script}
	if res, err = run(t, o); err != nil || res.State != runstore.RunCompleted {
		t.Fatalf("with the fake agent: %v, %v", res.State, err)
	}
	st := state(t, res.Dir)
	if got := actions(st); got != "action-outline action-draft action-review" {
		t.Errorf("completed_actions = %q", got)
	}
	review, _ := st["review"].(map[string]any)
	if st["draft_file"] != "note.md" || review["verdict"] != "ok" || st["status"] != "completed" || fmt.Sprint(st["outline"]) != "[Why How What next]" {
		t.Errorf("the agent's stateUpdates were not applied: %v", st)
	}
	if note := testfs.ReadFile(t, filepath.Join(res.Dir, "note.md")); !strings.HasPrefix(note, "# Resumable runs\n") {
		t.Errorf("note.md = %q: the agent did not see SKILL_INPUT_TOPIC", note)
	}
	// A prompt opens with a line "=== <request> request"; "===" also
	// occurs inside prompts (JS preconditions).
	prompts := regexp.MustCompile(`(?m)^=== `).Split(testfs.ReadFile(t, filepath.Join(res.Dir, "agent-prompts.log")), -1)[1:]
	if len(prompts) != 3 {
		t.Fatalf("the agent got %d prompts, want 3", len(prompts))
	}
	for i, p := range prompts {
		if !strings.HasPrefix(p, "action request\n") {
			t.Errorf("prompt %d is not an action request: %q", i+1, firstLine(p))
		}
		for _, sec := range []string{"[STATE]\n", "[ACTION]\n", "[RETURN]\n"} {
			if !strings.Contains(p, sec) {
				t.Errorf("prompt %d lacks %s", i+1, strings.TrimSpace(sec))
			}
		}
	}
	if !strings.Contains(prompts[2], `"draft_file": "note.md"`) {
		t.Errorf("the review prompt's [STATE] lacks the draft's update:\n%s", prompts[2])
	}
	if !strings.Contains(prompts[0], "Action: action-outline (Outline)") || !strings.Contains(prompts[0], "Choose three to five section titles") {
		t.Errorf("the outline prompt lacks the action:\n%s", prompts[0])
	}
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}
