package script

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/skillkit/skillkit/internal/agent"
	"github.com/skillkit/skillkit/parse"
	"github.com/skillkit/skillkit/plan"
)

// docBlock finds the fenced blocks of docs/host-api.md by language.
func docBlocks(t *testing.T, lang string) []string {
	t.Helper()
	doc, err := os.ReadFile("../../docs/host-api.md")
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile("(?sm)^```" + lang + "\n(.*?)^```$")
	var out []string
	for _, m := range re.FindAllStringSubmatch(string(doc), -1) {
		out = append(out, m[1])
	}
	return out
}

// TestHostAPIDocExamples runs the examples of docs/host-api.md: the
// action-count execution against a small project, the Tasks side by
// side, the answers file, the agent reply and the fake agent script.
func TestHostAPIDocExamples(t *testing.T) {
	js := docBlocks(t, "javascript")
	if len(js) != 2 {
		t.Fatalf("docs/host-api.md has %d javascript examples, want 2", len(js))
	}
	project := t.TempDir()
	for name, content := range map[string]string{
		"src/a.ts":     "// TODO: one\nexport const a = 1;\n",
		"src/lib/b.js": "// FIXME two\n// TODO three\n",
		"src/c.ts":     "export const c = 3;\n",
		"README.md":    "# not in src\n",
	} {
		p := filepath.Join(project, filepath.FromSlash(name))
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(content), 0o644))
	}
	skill := filepath.Join(t.TempDir(), "demo")
	must(t, os.MkdirAll(filepath.Join(skill, "phases", "actions"), 0o755))
	must(t, os.WriteFile(filepath.Join(skill, "phases", "actions", "action-count.md"),
		[]byte("# Action: Count\n## Execution\n```javascript\n"+js[0]+"```\n"), 0o644))
	s, err := parse.Dir(skill)
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	h, err := NewHost(Options{WorkDir: work, SkillDir: skill, ProjectDir: project})
	if err != nil {
		t.Fatal(err)
	}
	updates, err := h.RunAction(context.Background(), s.Action("action-count"), map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	if updates["context.file_count"] != int64(3) && updates["context.file_count"] != 3.0 && updates["context.file_count"] != 3 {
		t.Errorf("context.file_count = %#v, want 3", updates["context.file_count"])
	}
	if tf := updates["todo_files"]; tf != int64(2) && tf != 2.0 && tf != 2 {
		t.Errorf("todo_files = %#v, want 2", tf)
	}
	if _, err := os.Stat(filepath.Join(work, "todos.json")); err != nil {
		t.Errorf("todos.json not written: %v", err)
	}

	reviewer := &agent.Agent{Command: `printf 'reviewed %s' "$SKILLKIT_CALL"`, Session: &agent.Session{}}
	h, err = NewHost(Options{WorkDir: work, SkillDir: skill, ProjectDir: project, Agent: reviewer})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.RunStep(context.Background(), block("phases/01-review.md", js[1]), map[string]any{}, nil); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(filepath.Join(work, "reviews.json")); err != nil || string(got) != "[\n  \"reviewed 1\",\n  \"reviewed 2\"\n]" {
		t.Errorf("reviews.json = %q, %v", got, err)
	}

	yaml := docBlocks(t, "yaml")
	if len(yaml) != 1 {
		t.Fatalf("docs/host-api.md has %d yaml examples, want 1", len(yaml))
	}
	answers := filepath.Join(t.TempDir(), "answers.yaml")
	must(t, os.WriteFile(answers, []byte(yaml[0]), 0o644))
	fa, err := LoadAnswers(answers)
	if err != nil {
		t.Fatal(err)
	}
	got, err := fa.Confirm(context.Background(), &plan.Confirm{Question: "Overwrite report?", Default: plan.ConfirmYes})
	if err != nil || got != plan.ConfirmSkip {
		t.Errorf("Confirm(Overwrite report?) = %q, %v; want skip", got, err)
	}

	reply := docBlocks(t, "json")
	if len(reply) != 1 {
		t.Fatalf("docs/host-api.md has %d json examples, want 1", len(reply))
	}
	up, err := agent.ParseStateUpdates("I scanned the three files.\n```json\n" + reply[0] + "```\n")
	if err != nil || up["scan_completed"] != true || up["context.risk"] != "low" {
		t.Errorf("ParseStateUpdates = %v, %v", up, err)
	}

	sh := docBlocks(t, "sh")
	if len(sh) != 2 {
		t.Fatalf("docs/host-api.md has %d sh examples, want 2", len(sh))
	}
	fake := filepath.Join(t.TempDir(), "fake-agent.sh")
	must(t, os.WriteFile(fake, []byte(sh[1]), 0o755))
	must(t, os.WriteFile(filepath.Join(skill, "phases", "actions", "action-finish.md"),
		[]byte("# Action: Finish\n## Execution\nSay that the work is done.\n"), 0o644))
	if s, err = parse.Dir(skill); err != nil {
		t.Fatal(err)
	}
	// The loop hands a prose action to the agent like this.
	p, err := agent.ActionPrompt(agent.Context{Skill: s.Name, WorkDir: work, State: map[string]any{"status": "running"}}, s.Action("action-finish"))
	if err != nil {
		t.Fatal(err)
	}
	ag := &agent.Agent{Command: fake, Dir: work, Env: []string{"SKILL_WORKDIR=" + work}}
	answer, err := ag.Ask(context.Background(), p)
	if err == nil {
		up, err = agent.ParseStateUpdates(answer)
	}
	if err != nil || up["status"] != "completed" {
		t.Errorf("prose action through the fake agent = %v, %v", up, err)
	}
	prompt, err := os.ReadFile(filepath.Join(work, "last-prompt.txt"))
	if err != nil || !regexp.MustCompile(`(?s)\[ACTION\].*Say that the work is done.*\[STATE\].*\[RETURN\]`).Match(prompt) {
		t.Errorf("the fake agent kept %q, %v", prompt, err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
