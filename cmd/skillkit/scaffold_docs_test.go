package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestScaffoldDocExamples checks docs/scaffold.md against what new and add
// do: each "$ skillkit …" transcript prints what the page shows, each tree
// lists the files new writes, and the quoted generated code is in the
// generated files.
func TestScaffoldDocExamples(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(repoRoot(t), "docs", "scaffold.md"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	for _, cmd := range [][]string{
		{"new", "triage", "--mode", "autonomous"},
		{"new", "release", "--mode", "hybrid"},
	} {
		if code, _, stderr := run(cmd...); code != 0 {
			t.Fatalf("%v: exit %d: %s", cmd, code, stderr)
		}
	}

	transcripts := regexp.MustCompile("(?sm)^```\n\\$ skillkit ([^\n]*)\n(.*?)^```$").FindAllStringSubmatch(string(doc), -1)
	if len(transcripts) != 2 {
		t.Fatalf("found %d transcripts, want 2 (new, add phase)", len(transcripts))
	}
	for _, tr := range transcripts {
		code, out, stderr := run(strings.Fields(tr[1])...)
		if code != 0 {
			t.Fatalf("skillkit %s: exit %d: %s", tr[1], code, stderr)
		}
		if out != tr[2] {
			t.Errorf("skillkit %s prints\n%s\nthe page shows\n%s", tr[1], out, tr[2])
		}
	}

	trees := regexp.MustCompile("(?sm)^```\n([a-z-]+)/\n(.*?)^```$").FindAllStringSubmatch(string(doc), -1)
	if len(trees) != 3 {
		t.Fatalf("found %d trees, want 3", len(trees))
	}
	for _, tr := range trees {
		want := readTree(tr[1], tr[2])
		var got []string
		_ = filepath.WalkDir(tr[1], func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				got = append(got, filepath.ToSlash(p))
			}
			return nil
		})
		// pdf-report gained 01.5-x.md from the add phase transcript.
		got = slices.DeleteFunc(got, func(p string) bool { return strings.HasSuffix(p, "/01.5-x.md") })
		if !treeMatches(want, got) {
			t.Errorf("tree of %s:\n%v\nthe page shows\n%v", tr[1], got, want)
		}
	}

	for file, lang := range map[string]string{
		"pdf-report/phases/02-analyze.md": "````markdown",
		"triage/phases/orchestrator.md":   "```javascript",
	} {
		re := regexp.MustCompile("(?s)" + regexp.QuoteMeta(lang) + "\n(.*?)\n" + regexp.QuoteMeta(strings.TrimRight(lang, "abcdefghijklmnopqrstuvwxyz")) + "\n")
		m := re.FindSubmatch(doc)
		if m == nil {
			t.Fatalf("no %s block in docs/scaffold.md", lang)
		}
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), string(m[1])) {
			t.Errorf("%s does not hold the page's example:\n%s", file, m[1])
		}
	}
	if data, _ := os.ReadFile("pdf-report/phases/01-collect.md"); !strings.Contains(string(data), "→ [Phase 1.5: X](01.5-x.md)") {
		t.Error("01-collect.md does not end with the link the page quotes")
	}
}

// readTree reads an indented tree listing into paths; a trailing comment
// (two spaces or more, then text) is dropped, and "action-*.md" matches any
// action file.
func readTree(root, body string) []string {
	var out, stack []string
	for _, line := range strings.Split(strings.TrimRight(body, "\n"), "\n") {
		depth := (len(line) - len(strings.TrimLeft(line, " "))) / 2
		name, _, _ := strings.Cut(strings.TrimSpace(line), "  ")
		stack = append(stack[:min(depth-1, len(stack))], strings.TrimSuffix(name, "/"))
		if !strings.HasSuffix(name, "/") {
			out = append(out, root+"/"+strings.Join(stack, "/"))
		}
	}
	return out
}

func treeMatches(want, got []string) bool {
	n := 0
	for _, g := range got {
		ok := false
		for _, w := range want {
			if m, _ := filepath.Match(w, g); m {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
		n++
	}
	for _, w := range want {
		if !slices.ContainsFunc(got, func(g string) bool { m, _ := filepath.Match(w, g); return m }) {
			return false
		}
	}
	return n == len(got)
}
