package lsp

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/skillkit/skillkit/internal/testfs"
	"github.com/skillkit/skillkit/lint"
)

// fixableRules reads the rules of docs/lint-rules.md's Fixes table: the
// fixes `lint --fix` knows.
func fixableRules(t *testing.T) []string {
	t.Helper()
	doc, err := os.ReadFile("../../docs/lint-rules.md")
	if err != nil {
		t.Fatal(err)
	}
	section := regexp.MustCompile(`(?s)\n## Fixes\n(.*?)\n## `).FindSubmatch(doc)
	if section == nil {
		t.Fatal("docs/lint-rules.md has no ## Fixes section")
	}
	var rules []string
	for _, row := range regexp.MustCompile("(?m)^\\| (`[^|]*)\\|").FindAllSubmatch(section[1], -1) {
		for _, id := range regexp.MustCompile("`([a-z0-9-]+)`").FindAllSubmatch(row[1], -1) {
			rules = append(rules, string(id[1]))
		}
	}
	if len(rules) < 8 {
		t.Fatalf("the Fixes table lists %d rules: %v", len(rules), rules)
	}
	return rules
}

// TestCodeActionsMatchLintFix opens the bad example of every rule that
// `lint --fix` fixes (lint/testdata/RULE/bad, built from the docs) in the
// server, takes the quickfixes it offers on the file's diagnostics, and
// applies their edits as an editor does: the bytes must be the ones
// `lint --fix` writes. Each example is tried as it is and saved with
// Windows line endings, which lint --fix keeps.
func TestCodeActionsMatchLintFix(t *testing.T) {
	for _, rule := range fixableRules(t) {
		for _, crlf := range []bool{false, true} {
			name := rule
			if crlf {
				name += "/crlf"
			}
			t.Run(name, func(t *testing.T) { checkCodeActions(t, rule, crlf) })
		}
	}
}

// checkCodeActions is one rule's case of TestCodeActionsMatchLintFix.
func checkCodeActions(t *testing.T, rule string, crlf bool) {
	dir := t.TempDir()
	// Where the docs' bad example shows a finding that has no
	// safe fix, a skill that has one.
	if files, ok := fixable[rule]; ok {
		testfs.WriteTree(t, dir, files)
	} else if err := os.CopyFS(dir, os.DirFS(filepath.Join("../../lint/testdata", rule, "bad"))); err != nil {
		t.Fatal(err)
	}
	if crlf {
		toCRLF(t, dir)
	}
	fixed, err := lint.Fix([]string{dir}, lint.Options{Base: dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(fixed) == 0 {
		t.Fatalf("lint --fix fixes nothing in the bad example of %s", rule)
	}
	cl := startServer(t)
	var init struct{}
	cl.request("initialize", map[string]any{"processId": nil, "rootUri": uriOf(dir), "capabilities": map[string]any{}}, &init)
	cl.notify("initialized", map[string]any{})
	for _, f := range fixed {
		uri := uriOf(f.Abs)
		cl.notify("textDocument/didOpen", didOpenParams{TextDocument: textDocumentItem{URI: uri, Version: 1, Text: string(f.Before)}})
		var edits []textEdit
		for _, d := range cl.diagnostics(uri) {
			var actions []codeAction
			cl.request("textDocument/codeAction", codeActionParams{TextDocument: textDocumentIdentifier{URI: uri}, Range: d.Range}, &actions)
			for _, a := range actions {
				if a.Kind != "quickfix" || !slices.ContainsFunc(a.Diagnostics, func(x diagnostic) bool { return x.Code == d.Code }) {
					continue
				}
				edits = append(edits, a.Edit.Changes[uri]...)
			}
		}
		if got := applyEdits(string(f.Before), edits); got != string(f.After) {
			t.Errorf("%s: the quickfixes give\n%q\nlint --fix gives\n%q", f.Path, got, f.After)
		}
	}
}

// toCRLF rewrites the markdown files under dir with \r\n line endings.
func toCRLF(t *testing.T, dir string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(p, bytes.ReplaceAll(data, []byte("\n"), []byte("\r\n")), 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// fixable are skills with a fixable finding of the rules whose bad
// example in the docs is not fixable.
var fixable = map[string]map[string]string{
	"frontmatter-name": {
		"demo-skill/SKILL.md":           "---\nname: Demo\ndescription: Counts the files of the work folder.\n---\n\n# Demo\n\nRuns [phase 1](phases/01-count.md).\n",
		"demo-skill/phases/01-count.md": countPhase,
	},
	"phase-no-steps": {
		"demo/SKILL.md":           "---\nname: demo\ndescription: Counts the files of the work folder.\n---\n\n# Demo\n\nRuns [phase 1](phases/01-count.md).\n",
		"demo/phases/01-count.md": "# Phase 1: Count\n\nCounts the files.\n\n# Execution\n\nCount the files of the work folder.\n",
	},
	"action-no-execution": {
		"demo/SKILL.md":                          "---\nname: demo\ndescription: Finishes at once.\n---\n\n# Demo\n\nSee [the orchestrator](phases/orchestrator.md).\n",
		"demo/phases/orchestrator.md":            "# Orchestrator\n\n## Decision Logic\n\n```javascript\nfunction selectNextAction(state) {\n  if (state.status === 'running') return 'action-complete';\n  return null;\n}\n```\n",
		"demo/phases/actions/action-complete.md": "# Action: Complete\n\n## Preconditions\n\n- [ ] state.status === 'running'\n\n# Execution\n\n```javascript\nreturn { stateUpdates: { status: 'completed' } };\n```\n",
	},
}

const countPhase = "# Phase 1: Count\n\nCounts the files.\n\n## Execution\n\n### Step 1: Count\n\n```bash\nls | wc -l > count.txt\n```\n"

// applyEdits applies whole-line edits as an editor does: each on the
// text as it was, none overlapping, from the last up. A duplicate (the
// same edit offered for two diagnostics) is applied once.
func applyEdits(text string, edits []textEdit) string {
	lines := strings.SplitAfter(text, "\n")
	slices.SortStableFunc(edits, func(a, b textEdit) int { return b.Range.Start.Line - a.Range.Start.Line })
	edits = slices.CompactFunc(edits, func(a, b textEdit) bool { return a == b })
	for _, e := range edits {
		start, end := e.Range.Start.Line, e.Range.End.Line
		lines = slices.Replace(lines, min(start, len(lines)), min(end, len(lines)), e.NewText)
	}
	return strings.Join(lines, "")
}
