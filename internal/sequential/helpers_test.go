package sequential_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	lifecycle "github.com/skillkit/skillkit/internal/run"

	"github.com/skillkit/skillkit/internal/agent"
	"github.com/skillkit/skillkit/internal/runstore"
	"github.com/skillkit/skillkit/internal/runstore/fsstore"
	"github.com/skillkit/skillkit/internal/script"
	"github.com/skillkit/skillkit/plan"
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

// fakeConfirm answers every question alike, or fails.
type fakeConfirm struct {
	answer plan.ConfirmAnswer
	err    error
}

func (f fakeConfirm) Ask(context.Context, []script.Question) (map[string]string, error) {
	return nil, script.ErrNoAnswer
}

func (f fakeConfirm) Confirm(_ context.Context, c *plan.Confirm) (plan.ConfirmAnswer, error) {
	return f.answer, f.err
}

// fakeAgent is an agent command that reads the prompt into prompt.txt in
// the work dir and replies with reply.
func fakeAgent(reply string) *agent.Agent {
	return &agent.Agent{Command: "cat > prompt.txt; printf '%s\\n' '" + reply + "'"}
}

// opts are the options of a test run in a fresh base folder.
func opts(t testing.TB, s *plan.Skill) lifecycle.Options {
	return lifecycle.Options{Skill: s, Store: store(t.TempDir()), Backoff: 1}
}

// store is the filesystem store under base, without fsyncs.
func store(base string) runstore.Store { return fsstore.New(fsstore.Options{Base: base, NoSync: true}) }

// progress reads the progress of the run in dir from its record.
func progress(t testing.TB, dir string) *runstore.Progress {
	t.Helper()
	sum, err := store(".").Status(dir)
	if err != nil {
		t.Fatal(err)
	}
	return &sum.Progress
}

// readState reads the state.json snapshot of the run in dir.
func readState(dir string) (map[string]any, error) {
	data, err := os.ReadFile(filepath.Join(dir, fsstore.StateFile))
	if err != nil {
		return nil, err
	}
	var st map[string]any
	err = json.Unmarshal(data, &st)
	return st, err
}
