package orchestrator_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	lifecycle "github.com/skillkit/skillkit/internal/run"
	"github.com/skillkit/skillkit/internal/runstore/fsstore"

	"github.com/skillkit/skillkit/internal/runstore"
	"github.com/skillkit/skillkit/internal/testfs"
	"github.com/skillkit/skillkit/parse"
	"github.com/skillkit/skillkit/plan"
)

// load parses a skill folder.
func load(t testing.TB, dir string) *plan.Skill {
	t.Helper()
	s, err := parse.Dir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// writeSkill writes files (path → content) into a fresh folder named
// name and parses it.
func writeSkill(t testing.TB, name string, files map[string]string) *plan.Skill {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	testfs.WriteTree(t, dir, files)
	return load(t, dir)
}

// options are those of a test run of s with the real JS host, in a fresh
// base folder, without fsyncs.
func options(t testing.TB, s *plan.Skill) lifecycle.Options {
	base := t.TempDir()
	return lifecycle.Options{Skill: s, Store: store(base), ProjectDir: base, Backoff: 1}
}

// store is the filesystem store under base, without fsyncs.
func store(base string) runstore.Store { return fsstore.New(fsstore.Options{Base: base, NoSync: true}) }

func run(t testing.TB, o lifecycle.Options) (*lifecycle.Result, error) {
	t.Helper()
	res, err := lifecycle.Run(context.Background(), o)
	if res == nil && err != nil {
		t.Fatalf("no run: %v", err)
	}
	return res, err
}

// state reads the state.json snapshot of the run in dir.
func state(t testing.TB, dir string) map[string]any {
	t.Helper()
	var st map[string]any
	data, err := os.ReadFile(filepath.Join(dir, fsstore.StateFile))
	if err == nil {
		err = json.Unmarshal(data, &st)
	}
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// progress reads the progress of the run in dir from its record.
func progress(t testing.TB, dir string) *runstore.Progress {
	t.Helper()
	sum, err := store(".").Status(dir)
	if err != nil {
		t.Fatal(err)
	}
	return &sum.Progress
}

// completed is the state's completed_actions.
func completed(st map[string]any) []string {
	var out []string
	list, _ := st["completed_actions"].([]any)
	for _, a := range list {
		if s, ok := a.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// actions is the state's completed_actions joined by spaces.
func actions(st map[string]any) string { return strings.Join(completed(st), " ") }

// skillFiles are the files of a small autonomous test skill: an
// orchestrator with the given Decision Logic (none when empty), a catalog
// (when given), one JS action per entry of acts (id → execute body), and
// the base state schema with the given extra TypeScript fields.
type skillFiles struct {
	decision string
	catalog  string
	acts     map[string]string
	// attrs are attribute lines under an action's Execution heading.
	attrs   map[string]string
	fields  string
	initial string
	// more are further JS blocks of orchestrator.md, after the Decision
	// Logic: helpers, the skill's own loop.
	more []string
}

func (f skillFiles) write(t testing.TB) *plan.Skill {
	t.Helper()
	files := map[string]string{
		"SKILL.md": "---\nname: loop\ndescription: A test skill.\n---\n# Loop\n",
	}
	orch := "# Orchestrator\n\n"
	if f.decision != "" {
		orch += "## Decision Logic\n\n```javascript\n" + f.decision + "\n```\n\n"
	}
	for _, b := range f.more {
		orch += "## More\n\n```javascript\n" + b + "\n```\n\n"
	}
	if f.catalog != "" {
		orch += "## Action Catalog\n\n" + f.catalog + "\n"
	}
	files["phases/orchestrator.md"] = orch
	for id, body := range f.acts {
		attrs := ""
		if a := f.attrs[id]; a != "" {
			attrs = a + "\n\n"
		}
		files["phases/actions/"+id+".md"] = "# Action: " + id + "\n\n## Execution\n\n" + attrs + "```javascript\nasync function execute(state, workDir) {\n" + body + "\n}\n```\n"
	}
	initial := f.initial
	if initial == "" {
		initial = `{"status": "running", "current_action": null, "completed_actions": [], "errors": [], "error_count": 0}`
	}
	files["phases/state-schema.md"] = "# State\n\n```typescript\ninterface LoopState {\n" +
		"  status: 'pending' | 'running' | 'completed' | 'failed';\n" +
		"  started_at?: string;\n  updated_at?: string;\n  current_action: string | null;\n" +
		"  completed_actions: string[];\n  errors: Array<{ action: string; message: string; timestamp: string }>;\n" +
		"  error_count: number;\n" + f.fields + "\n}\n```\n\n## Initial State\n\n```json\n" + initial + "\n```\n"
	return writeSkill(t, "loop", files)
}
