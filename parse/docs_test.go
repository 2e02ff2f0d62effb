package parse

import (
	"os"
	"regexp"
	"testing"

	"github.com/skillkit/skillkit/plan"
)

// docExample matches the example files of docs/format.md: a four-backtick
// markdown block whose info string names the file.
var docExample = regexp.MustCompile("(?s)````markdown ([^\\n]+)\\n(.*?)\\n````\\n")

// TestFormatDocExamples builds a skill from the examples of docs/format.md
// and checks the parser reads them as the page says.
func TestFormatDocExamples(t *testing.T) {
	doc, err := os.ReadFile("../docs/format.md")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, m := range docExample.FindAllStringSubmatch(string(doc), -1) {
		files[m[1]] = m[2] + "\n"
	}
	if len(files) != 2 {
		t.Fatalf("found %d examples in docs/format.md, want 2", len(files))
	}
	s := mustDir(t, writeSkill(t, files))
	if len(s.Diagnostics) != 0 {
		t.Errorf("diagnostics: %v", s.Diagnostics)
	}
	if s.Mode != plan.ModeHybrid || len(s.Phases) != 1 || len(s.Actions) != 1 {
		t.Fatalf("mode %s, %d phases, %d actions", s.Mode, len(s.Phases), len(s.Actions))
	}
	ph := s.Phases[0]
	if len(ph.Steps) != 2 || ph.Steps[0].Kind() != plan.StepCode || ph.Steps[1].Kind() != plan.StepAgent {
		t.Errorf("steps = %+v", ph.Steps)
	}
	a := ph.Steps[0].Attrs
	if !a.Condition.Checkable() || a.OnError.Retries != 3 || a.Timeout == nil {
		t.Errorf("attributes = %+v", a)
	}
	if len(ph.Outputs) != 1 || ph.Outputs[0].File != "count.txt" {
		t.Errorf("outputs = %+v", ph.Outputs)
	}
	act := s.Actions[0]
	if act.ID != "action-process" || act.Execution.Kind != plan.ExecJS || len(act.Hints) != 2 {
		t.Errorf("action = %+v", act)
	}
	for _, p := range act.Preconditions {
		if !p.Checkable() {
			t.Errorf("precondition %q not checkable", p.Text)
		}
	}
}
