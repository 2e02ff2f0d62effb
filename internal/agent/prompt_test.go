package agent

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/skillkit/skillkit/plan"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/")

func testAction() *plan.Action {
	return &plan.Action{
		ID:        "action-summarize",
		Title:     "Summarize",
		Purpose:   "Write a summary of the findings.",
		Execution: plan.Execution{Kind: plan.ExecProse, Text: "Read findings.json and write summary.md."},
	}
}

func TestPrompts(t *testing.T) {
	c := Context{
		Skill:   "review-code",
		WorkDir: "/runs/review-code/r1",
		Inputs:  map[string]string{"target": "src", "depth": "2"},
		State:   map[string]any{"status": "running", "context": map[string]any{"files": []any{"a.go"}}},
	}
	step := &plan.Step{Number: "2", Title: "Summarize", Text: "### Step 2: Summarize\nWrite summary.md from count.txt."}
	build := map[string]func() (string, error){
		"step":   func() (string, error) { return StepPrompt(c, "Phase 2: Analyze", step) },
		"action": func() (string, error) { return ActionPrompt(c, testAction()) },
		"task": func() (string, error) {
			return TaskPrompt(Context{WorkDir: c.WorkDir}, Task{Description: "Explore", SubagentType: "Explore", Prompt: "List the entry points."})
		},
		"confirm": func() (string, error) { return ConfirmPrompt(c, "Overwrite report?", step) },
	}
	for name, f := range build {
		t.Run(name, func(t *testing.T) {
			got, err := f()
			if err != nil {
				t.Fatal(err)
			}
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
		})
	}
}

func TestPromptRejectsUnencodableState(t *testing.T) {
	_, err := StepPrompt(Context{State: map[string]any{"f": func() {}}}, "p", &plan.Step{})
	if err == nil {
		t.Fatal("want an error for a state that is not JSON")
	}
}
