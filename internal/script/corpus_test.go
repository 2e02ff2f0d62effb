package script

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/skillkit/skillkit/internal/testfs"
	"github.com/skillkit/skillkit/parse"
	"github.com/skillkit/skillkit/plan"
)

// corpusSkill parses a skill of the shared corpus, skipping the test when
// the corpus is absent.
func corpusSkill(t *testing.T, rel string) *plan.Skill {
	t.Helper()
	dir := filepath.Join("..", "..", "shared", "corpus", rel)
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("corpus skill %s not available: %v", rel, err)
	}
	s, err := parse.Dir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestReviewCodeCorpus runs the real review-code skill's first two actions
// unmodified against testdata/review-project: collect-context (an
// AskUserQuestion answered from an answers file, Glob with braces, Read
// falling back to the project) and quick-scan; and its selectNextAction
// between them.
func TestReviewCodeCorpus(t *testing.T) {
	s := corpusSkill(t, "catlog22__Claude-Code-Workflow/.claude/skills/review-code")
	project, err := filepath.Abs("testdata/review-project")
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	answersFile := filepath.Join(work, "answers.yaml")
	testfs.WriteFile(t, answersFile, "审查目标: src/\n")
	answers, err := LoadAnswers(answersFile)
	if err != nil {
		t.Fatal(err)
	}
	h, err := NewHost(Options{WorkDir: work, SkillDir: s.Dir, ProjectDir: project, RunID: "r1", Answers: answers})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	state := map[string]any{"status": "pending", "context": nil, "error_count": 0.0}

	next := func(want string) {
		t.Helper()
		id, ok, err := SelectNextAction(ctx, s.Orchestrator, state)
		if err != nil || !ok || id != want {
			t.Fatalf("selectNextAction = %q, %v, %v; want %q", id, ok, err, want)
		}
	}
	run := func(id string) map[string]any {
		t.Helper()
		a := s.Action(id)
		if a == nil {
			t.Fatalf("no action %s", id)
		}
		updates, err := h.RunAction(ctx, a, state)
		if err != nil {
			t.Fatal(err)
		}
		if state, err = ApplyUpdates(state, updates); err != nil {
			t.Fatal(err)
		}
		return updates
	}

	next("action-collect-context")
	run("action-collect-context")
	c := state["context"].(map[string]any)
	wantFiles := []any{"src/app.js", "src/lib/math.py", "src/lib/render.ts"}
	if !reflect.DeepEqual(c["files"], wantFiles) || c["framework"] != nil || c["file_count"] != 3.0 || c["target_path"] != "src/" {
		t.Fatalf("context = %v", c)
	}
	if state["status"] != "running" {
		t.Fatalf("status = %v", state["status"])
	}

	ok, err := Preconditions(ctx, s.Action("action-quick-scan").Preconditions, PureEnv{State: state})
	if err != nil || !ok {
		t.Fatalf("quick-scan preconditions = %v, %v", ok, err)
	}
	next("action-quick-scan")
	updates := run("action-quick-scan")
	summary, ok := updates["scan_summary"].(map[string]any)
	if !ok || updates["scan_completed"] != true {
		t.Fatalf("updates = %v, want scan_summary", updates)
	}
	var messages []string
	for _, q := range summary["quick_issues"].([]any) {
		q := q.(map[string]any)
		messages = append(messages, q["file"].(string)+": "+q["message"].(string))
	}
	wantMessages := []string{
		"src/app.js: Potential hardcoded credential detected",
		"src/app.js: 4 console statements (should be removed in production)",
		"src/lib/render.ts: Potential XSS/injection risk: eval() or innerHTML usage",
		"src/lib/render.ts: Empty catch block detected",
	}
	if !reflect.DeepEqual(messages, wantMessages) {
		t.Errorf("quick issues:\n%s\nwant:\n%s", strings.Join(messages, "\n"), strings.Join(wantMessages, "\n"))
	}
	if summary["complexity_score"] != 100.0 {
		t.Errorf("complexity_score = %v", summary["complexity_score"])
	}
	var onDisk map[string]any
	data, err := os.ReadFile(filepath.Join(work, "scan-summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &onDisk); err != nil || !reflect.DeepEqual(onDisk, summary) {
		t.Errorf("scan-summary.json = %s, want the returned summary", data)
	}

	// The orchestrator then calls StateManager, which only exists in the
	// prose of state-manager.md: a ReferenceError at its line.
	_, _, err = SelectNextAction(ctx, s.Orchestrator, state)
	var serr *Error
	if !errors.As(err, &serr) || !strings.Contains(err.Error(), "StateManager is not defined") || serr.Pos.File != "phases/orchestrator.md" || serr.Pos.Line != 70 {
		t.Errorf("err = %v, want a ReferenceError at phases/orchestrator.md:70", err)
	}
}
