package run_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillkit/skillkit/internal/agent"
	"github.com/skillkit/skillkit/internal/run"
	"github.com/skillkit/skillkit/internal/runstore"
	"github.com/skillkit/skillkit/internal/runstore/fsstore"
	"github.com/skillkit/skillkit/internal/testfs"
	"github.com/skillkit/skillkit/parse"
)

// TestUnfiledActionGoesToTheAgent: a selection that reaches an action
// with no file (review-code's action-abort) hands the agent what the
// skill says of it, and the run goes on.
func TestUnfiledActionGoesToTheAgent(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "demo")
	testfs.WriteTree(t, dir, map[string]string{
		"SKILL.md": "---\nname: demo\ndescription: A demo.\n---\n# Demo\n",
		"phases/orchestrator.md": "# Orchestrator\n\n## Decision Logic\n\n```javascript\nfunction selectNextAction(state) {\n" +
			"  if (state.completed_actions.includes('action-abort')) return null;\n" +
			"  if (state.completed_actions.includes('action-a')) return 'action-abort';\n" +
			"  return 'action-a';\n}\n```\n",
		"specs/action-catalog.md": "# Action Catalog\n\n| Action | Purpose | Preconditions | Effects |\n|---|---|---|---|\n" +
			"| action-a | Do a | none | a done |\n| action-abort | Abort the review | an error | status cancelled |\n\n" +
			"```mermaid\ngraph TD\n  A[action-a] --> B[action-abort]\n```\n",
		"phases/actions/action-a.md": "# Action: a\n\n## Execution\n\n```javascript\nasync function execute(state) {\n  return {};\n}\n```\n\n" +
			"## Next Actions\n\n- On failure: `action-abort`\n",
	})
	s, err := parse.Dir(dir)
	if err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(t.TempDir(), "prompts")
	base := t.TempDir()
	res, err := run.Run(context.Background(), run.Options{
		Skill: s, Store: fsstore.New(fsstore.Options{Base: base, NoSync: true}), ProjectDir: base,
		Agent: &agent.Agent{Command: "cat >> " + log + `; echo '{"stateUpdates": {}}'`, Timeout: time.Minute},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.State != runstore.RunCompleted {
		t.Fatalf("run %s", res.State)
	}
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	prompt := string(data)
	for _, want := range []string{
		"Action: action-abort (no action file)",
		"The skill names the action action-abort (phases/orchestrator.md:5:1) but has no file for it",
		"its row in the action catalog (specs/action-catalog.md:6:1); purpose: Abort the review; effects: status cancelled",
		"the graph's edge action-a --> action-abort",
		"a Next Actions hint of action-a (phases/actions/action-a.md:",
	} {
		if !strings.Contains(prompt, want) {
			t.Errorf("the prompt lacks %q:\n%s", want, prompt)
		}
	}
}
