package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillkit/skillkit/internal/testfs"
)

// --yes answers AskUserQuestion with each question's first option; an
// --answers file wins over it.
func TestYesAnswersQuestions(t *testing.T) {
	skill := filepath.Join(t.TempDir(), "asker")
	testfs.WriteTree(t, skill, map[string]string{
		"SKILL.md": frontMatter("asker"),
		"phases/01-ask.md": "# Phase 1: Ask\n\n## Execution\n\n```javascript\n" +
			"const a = await AskUserQuestion({questions: [{question: 'Which target?', header: 'Target', options: [{label: 'src/'}, {label: 'docs/'}]}]});\n" +
			"Write('picked.txt', a.Target);\n```\n",
	})
	run := filepath.Join(t.TempDir(), "run")
	check(t, completes, "run", skill, "--workdir", run, "--yes")
	if got := testfs.ReadFile(t, filepath.Join(run, "picked.txt")); got != "src/" {
		t.Errorf("--yes picked %q, want the first option", got)
	}
	answers := filepath.Join(t.TempDir(), "answers.yaml")
	if err := os.WriteFile(answers, []byte("Target: docs/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run2 := filepath.Join(t.TempDir(), "run")
	check(t, completes, "run", skill, "--workdir", run2, "--yes", "--answers", answers)
	if got := testfs.ReadFile(t, filepath.Join(run2, "picked.txt")); strings.TrimSpace(got) != "docs/" {
		t.Errorf("--answers with --yes picked %q, want the file's answer", got)
	}
}
