package agent

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillkit/skillkit/plan"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/")

func testAction() *plan.Action {
	return &plan.Action{
		ID:            "action-summarize",
		Title:         "Summarize",
		Purpose:       "Write a summary of the findings.",
		Preconditions: []*plan.Precondition{{Expr: plan.Expr{Text: "state.findings.length > 0"}}},
		Execution:     plan.Execution{Kind: plan.ExecProse, Text: "Read findings.json and write summary.md for $ARGUMENTS."},
	}
}

// TestPrompts pins the layout of every request kind (DESIGN §3.4) in
// testdata/prompt-<kind>.golden; -update rewrites them.
func TestPrompts(t *testing.T) {
	vars := Vars{Args: []string{"src", "deep"}, Names: []string{"target"}, SkillDir: "/skills/review-code", SessionID: "0b5e7a52-4f0c-4a51-9d27-6f3f1e0c2b11"}
	c := Context{
		Skill:        "review-code",
		SkillDir:     "/skills/review-code",
		WorkDir:      "/runs/review-code/r1",
		Instructions: vars.Instructions("# Review code\n\nReview the code under $target in ${CLAUDE_SKILL_DIR}."),
		State:        map[string]any{"status": "running", "context": map[string]any{"files": []any{"a.go"}}},
		Expand:       func(s string) (string, error) { return vars.Substitute(s), nil },
	}
	ph := &plan.Phase{
		Doc: &plan.Doc{File: "phases/02-analyze.md"}, Title: "Analyze",
		Objective: "Count what $0 holds.", Input: "- count.txt from phase 1",
		Outputs: []*plan.Output{{File: "summary.md", Format: "markdown"}, {File: "notes.txt"}},
	}
	step := &plan.Step{Number: "2", Title: "Summarize", Text: "### Step 2: Summarize\nWrite summary.md from count.txt, $ARGUMENTS[1] mode:\n\n```javascript\nconst n = countLines(Read('count.txt'))\n```\n\nThen stop."}
	yes, no := true, false
	build := map[string]func() (*Prompt, error){
		"step":   func() (*Prompt, error) { return StepPrompt(c, ph, step) },
		"action": func() (*Prompt, error) { return ActionPrompt(c, testAction()) },
		"select": func() (*Prompt, error) {
			return SelectPrompt(c, []Choice{
				{ID: "action-summarize", Purpose: "Write a\nsummary.", Ready: &yes},
				{ID: "action-complete", Purpose: "Finish.", Ready: &no},
				{ID: "action-ask", Purpose: "Ask the user."},
			})
		},
		"task": func() (*Prompt, error) {
			return TaskPrompt(c, Task{Description: "Explore", SubagentType: "Explore", Prompt: "List the entry points."})
		},
		"confirm": func() (*Prompt, error) { return ConfirmPrompt(c, "Overwrite $0/report.md?", "02-analyze", step) },
	}
	for name, f := range build {
		t.Run(name, func(t *testing.T) {
			p, err := f()
			if err != nil {
				t.Fatal(err)
			}
			if string(p.Request) != name {
				t.Errorf("request = %q, want %q", p.Request, name)
			}
			got := p.Text(true)
			golden := filepath.Join("testdata", "prompt-"+name+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("prompt differs from %s (run with -update to accept):\n%s", golden, got)
			}
			if without := p.Text(false); strings.Contains(without, "[CONTEXT]") || !strings.Contains(got, "[CONTEXT]\n# Review code") {
				t.Errorf("[CONTEXT] must be in Text(true) only:\n%s", without)
			}
		})
	}
}

// TestHandoffPrompt pins the hand-off request of a prompt sent past
// context_handoff (testdata/prompt-handoff.golden): [HANDOFF] comes
// before [RETURN], once however often the prompt is asked.
func TestHandoffPrompt(t *testing.T) {
	ph := &plan.Phase{Doc: &plan.Doc{File: "phases/01-work.md"}, Title: "Work", Outputs: []*plan.Output{{File: "out.md", Format: "markdown"}}}
	p, err := StepPrompt(Context{Skill: "long", WorkDir: "/runs/long/r1", State: map[string]any{"status": "running"}}, ph, &plan.Step{Number: "3", Title: "Work", Text: "Do part 3."})
	if err != nil {
		t.Fatal(err)
	}
	p.handoff(68, 75)
	p.handoff(70, 75)
	got := p.Text(true)
	golden := filepath.Join("testdata", "prompt-handoff.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("prompt differs from %s (run with -update to accept):\n%s", golden, got)
	}
}

func TestPromptRejectsUnencodableState(t *testing.T) {
	_, err := StepPrompt(Context{State: map[string]any{"f": func() {}}}, &plan.Phase{Doc: &plan.Doc{File: "p.md"}}, &plan.Step{})
	if err == nil {
		t.Fatal("want an error for a state that is not JSON")
	}
}

// TestRuntimeDocShowsStepPrompt keeps the step prompt of docs/runtime.md
// the one StepPrompt builds (testdata/prompt-step.golden).
func TestRuntimeDocShowsStepPrompt(t *testing.T) {
	doc, err := os.ReadFile("../../docs/runtime.md")
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join("testdata", "prompt-step.golden"))
	if err != nil {
		t.Fatal(err)
	}
	_, after, _ := strings.Cut(string(doc), "A step prompt, for a skill run with")
	_, block, _ := strings.Cut(after, "````text\n")
	if block, _, _ = strings.Cut(block, "\n````\n"); block+"\n" != string(want) {
		t.Errorf("docs/runtime.md shows this step prompt:\n%s\nStepPrompt builds:\n%s", block, want)
	}
}
