package sequential

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillkit/skillkit/agent"
	"github.com/skillkit/skillkit/engine"
	"github.com/skillkit/skillkit/plan"
	"github.com/skillkit/skillkit/store"
)

// The tests build plans by hand: the runner's behaviour is what they check,
// not the parser's.

func code(lang, text string) *plan.CodeBlock {
	return &plan.CodeBlock{Lang: lang, Info: lang, Text: text, Pos: plan.Pos{File: "phases/x.md", Line: 5, Col: 1}}
}

func bashStep(title, text string) *plan.Step {
	return &plan.Step{Title: title, Code: []*plan.CodeBlock{code("bash", text)}, Text: "### " + title}
}

func proseStep(title, text string) *plan.Step {
	return &plan.Step{Title: title, Text: "### " + title + "\n" + text}
}

func phase(file string, steps ...*plan.Step) *plan.Phase {
	for _, s := range steps {
		s.Pos = plan.Pos{File: "phases/" + file, Line: 3, Col: 1}
	}
	return &plan.Phase{Doc: &plan.Doc{File: "phases/" + file}, Title: strings.TrimSuffix(file, ".md"), Steps: steps}
}

func newSkill(t testing.TB, phases ...*plan.Phase) *plan.Skill {
	t.Helper()
	return &plan.Skill{Dir: t.TempDir(), Name: "demo", Mode: plan.ModeSequential, Phases: phases, Hash: "h1"}
}

// fakeScript runs JS blocks whose text is a JSON object of state updates
// (or "throw: msg"), and evaluates conditions from a table.
type fakeScript struct {
	conds map[string]bool
}

func (f fakeScript) RunJS(_ context.Context, c *plan.CodeBlock, _ map[string]any) (map[string]any, error) {
	if msg, ok := strings.CutPrefix(c.Text, "throw: "); ok {
		return nil, errors.New(msg)
	}
	var m map[string]any
	err := json.Unmarshal([]byte(c.Text), &m)
	return m, err
}

func (f fakeScript) Eval(_ context.Context, e *plan.Expr, _ map[string]any) (bool, error) {
	v, ok := f.conds[e.JS]
	if !ok {
		return false, fmt.Errorf("ReferenceError: %s is not defined", e.JS)
	}
	return v, nil
}

func fakeHost(conds map[string]bool) func(HostInfo) (engine.Script, []string, error) {
	return func(h HostInfo) (engine.Script, []string, error) {
		return fakeScript{conds: conds}, []string{"SKILL_WORKDIR=" + h.WorkDir, "SKILL_RUN_ID=" + h.RunID}, nil
	}
}

// fakeConfirm answers every question alike, or fails.
type fakeConfirm struct {
	answer string
	err    error
	asked  *[]string
}

func (f fakeConfirm) Confirm(_ context.Context, step string, c *plan.Confirm) (string, error) {
	if f.asked != nil {
		*f.asked = append(*f.asked, step)
	}
	return f.answer, f.err
}

// fakeAgent replies with a fixed text and keeps the prompts.
type fakeAgent struct {
	reply   string
	prompts *[]string
}

func (f fakeAgent) Ask(_ context.Context, req agent.Request, prompt string) (string, error) {
	if f.prompts != nil {
		*f.prompts = append(*f.prompts, string(req)+": "+prompt)
	}
	return f.reply, nil
}

// opts are the options of a test run in a fresh base folder.
func opts(t testing.TB, s *plan.Skill) Options {
	return Options{Skill: s, Base: t.TempDir(), NewHost: fakeHost(nil), NoSync: true, Backoff: 1}
}

func progress(t testing.TB, dir string) *store.Progress {
	t.Helper()
	p, err := store.ReadProgress(dir)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func statuses(p *store.Progress) map[string]string {
	out := map[string]string{}
	for _, s := range p.CompletedSteps {
		out[s.Step] = s.Status
	}
	return out
}

func readFile(t testing.TB, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
