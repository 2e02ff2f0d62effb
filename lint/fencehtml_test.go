package lint

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// lintFiles lints a skill made of files (path → text) and returns its
// findings as "file:line rule".
func lintFiles(t *testing.T, files map[string]string) []string {
	var out []string
	for _, f := range lintFindings(t, files) {
		out = append(out, fmt.Sprintf("%s:%d %s", f.File, f.Line, f.Rule))
	}
	return out
}

// lintFindings lints a skill made of files (path → text).
func lintFindings(t *testing.T, files map[string]string) []Finding {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "demo")
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res, err := Lint([]string{dir}, Options{Base: filepath.Dir(dir)})
	if err != nil {
		t.Fatal(err)
	}
	return res.Findings
}

const fenceHTMLSkill = "---\nname: demo\ndescription: Counts files. Use when testing.\n---\n\n# Demo\n\nRun the phases.\n"

// TestFenceInHTMLClosedWithinLeavesTheRest: a tag whose HTML block holds
// the code's closing fence too (no blank line in the code, as in
// <Good>…</Good>) misleads nothing after it, so the code rules still
// check the blocks below; one whose blank line comes first does.
func TestFenceInHTMLClosedWithinLeavesTheRest(t *testing.T) {
	phase := "# Phase 1: Count\n\n<Good>\n```bash\necho good\n```\n</Good>\n\n## Step 1: Count\n\n```bash\nif then fi (\n```\n\n## Step 2: More\n\n```js\nconst x = ;\n```\n"
	got := lintFiles(t, map[string]string{"SKILL.md": fenceHTMLSkill, "phases/01-count.md": phase})
	for _, want := range []string{"demo/phases/01-count.md:4 fence-in-html", "demo/phases/01-count.md:12 bash-syntax", "demo/phases/01-count.md:18 js-syntax"} {
		if !slices.Contains(got, want) {
			t.Errorf("no %s in %q", want, got)
		}
	}
	// A blank line in the code ends the HTML block first: the fence
	// meant to close it opens one, and what follows is misread.
	phase = strings.Replace(phase, "echo good\n", "echo good\n\necho more\n", 1)
	got = lintFiles(t, map[string]string{"SKILL.md": fenceHTMLSkill, "phases/01-count.md": phase})
	if !slices.Equal(got, []string{"demo/phases/01-count.md:4 fence-in-html"}) {
		t.Errorf("with a blank line in the code: %q, want only fence-in-html", got)
	}
}

// TestFenceInHTMLInABlockquote: the tag of a fence quoted in a blockquote
// is named, not the file's first line, its fence is the range, and the
// block the HTML misleads is left to this rule.
func TestFenceInHTMLInABlockquote(t *testing.T) {
	skill := fenceHTMLSkill + "\n> <Good>\n> ```bash\n> echo good\n>\n> echo more\n> ```\n> </Good>\n\nAfter.\n"
	got := lintFindings(t, map[string]string{"SKILL.md": skill})
	if len(got) != 1 || got[0].Rule != "fence-in-html" {
		t.Fatalf("findings %+v, want one fence-in-html", got)
	}
	if f := got[0]; f.Line != 11 || f.Col != 3 || f.EndCol != 6 || !strings.Contains(f.Message, "the tag <Good> on line 10") {
		t.Errorf("finding at %d:%d-%d: %s; want 11:3-6 naming <Good> on line 10", f.Line, f.Col, f.EndCol, f.Message)
	}
}

// TestFenceInHTMLHidesNoHeadings: the block a misleading HTML fence
// opens swallows the step headings below it; the phase is not told it has
// none, nor offered an Execution heading it does not need.
func TestFenceInHTMLHidesNoHeadings(t *testing.T) {
	phase := "# Phase 1: Count\n\n<Good>\n```bash\necho good\n\necho more\n```\n</Good>\n\n## Step 1: Count\n\n```bash\nls\n```\n"
	got := lintFiles(t, map[string]string{"SKILL.md": fenceHTMLSkill, "phases/01-count.md": phase})
	if !slices.Equal(got, []string{"demo/phases/01-count.md:4 fence-in-html"}) {
		t.Errorf("findings %q, want only fence-in-html", got)
	}
}
