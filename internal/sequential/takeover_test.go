package sequential_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillkit/skillkit/internal/agent"
	lifecycle "github.com/skillkit/skillkit/internal/run"
	"github.com/skillkit/skillkit/internal/runstore"
	"github.com/skillkit/skillkit/internal/testfs"
	"github.com/skillkit/skillkit/plan"
)

// A native step whose code fails goes to the agent, told how it failed;
// the step completes with the agent's work. Strict, or a block marked
// native, keeps the failure.
func TestAgentTakesOverFailedStep(t *testing.T) {
	step := func(info string) *plan.Step {
		b := code("js", `const notes = Read('notes-from-step-1.md'); return {stateUpdates: {notes}}`)
		b.Info = info
		return &plan.Step{Title: "read the notes", Code: []*plan.CodeBlock{b}, Class: plan.Class{Kind: plan.ClassNative}}
	}
	s := newSkill(t, phase("01-x.md", step("js")))
	o := opts(t, s)
	o.Agent = fakeAgent("done")
	res, err := lifecycle.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	prompt := testfs.ReadFile(t, filepath.Join(res.Dir, "prompt.txt"))
	if !strings.Contains(prompt, "skillkit ran this step's code as written, and it failed:") || !strings.Contains(prompt, "notes-from-step-1.md") {
		t.Errorf("the agent was not told of the failure:\n%s", prompt)
	}
	p := progress(t, res.Dir)
	if p.CompletedSteps.Len() != 1 || p.CompletedSteps.At(0).Result != runstore.StepCompleted {
		t.Errorf("steps = %+v", p.CompletedSteps)
	}

	for name, o := range map[string]lifecycle.Options{"strict": opts(t, s), "marked native": opts(t, newSkill(t, phase("01-x.md", step("js native"))))} {
		o.Agent = fakeAgent("done")
		o.Strict = name == "strict"
		res, err := lifecycle.Run(context.Background(), o)
		if err == nil || res.State != runstore.RunFailed || !strings.Contains(err.Error(), "notes-from-step-1.md") {
			t.Errorf("%s: %v, %v; want the run failed by the step's own error", name, res, err)
		}
	}
}

// Outputs the steps did not leave are the agent's to leave, as the
// Output section describes them; an output path with a placeholder is
// matched with * in its place.
func TestAgentLeavesOutputs(t *testing.T) {
	ph := phase("01-x.md", bashStep("scan", "echo scanned > scan.log"))
	ph.Outputs = []*plan.Output{
		{File: "report.json", Format: "JSON", Pos: plan.Pos{File: "phases/01-x.md", Line: 9, Col: 3}},
		{File: "sessions/[sessionId]/notes.md", Pos: plan.Pos{File: "phases/01-x.md", Line: 10, Col: 3}},
	}
	s := newSkill(t, ph)
	o := opts(t, s)
	o.Agent = &agent.Agent{Command: "cat > prompt.txt; echo '{}' > report.json; mkdir -p sessions/s-1; echo n > sessions/s-1/notes.md; echo done"}
	res, err := lifecycle.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	prompt := testfs.ReadFile(t, filepath.Join(res.Dir, "prompt.txt"))
	for _, want := range []string{"[OUTPUTS]\nreport.json\tJSON", "its outputs are not right yet", "output report.json: not found"} {
		if !strings.Contains(prompt, want) {
			t.Errorf("prompt lacks %q:\n%s", want, prompt)
		}
	}
	o = opts(t, s)
	o.Agent, o.Strict = fakeAgent("done"), true
	if _, err := lifecycle.Run(context.Background(), o); err == nil || !strings.Contains(err.Error(), "phases/01-x.md:9:3: output report.json: not found") {
		t.Errorf("under Strict: %v, want the missing output", err)
	}
}
