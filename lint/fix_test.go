package lint

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillkit/skillkit/internal/corpus"
	"github.com/skillkit/skillkit/internal/testfs"
)

// fixable returns the findings that have a fix, as file:rule.
func fixable(res *Result) []string {
	var out []string
	for _, f := range res.Findings {
		if len(f.Fix) > 0 {
			out = append(out, f.File+":"+f.Rule)
		}
	}
	return out
}

// fixAndCheck fixes the skills under dir, writes the fixes, and checks
// that a second fix changes nothing and that lint reports no finding
// with a fix any more. It returns the fixed files.
func fixAndCheck(t *testing.T, dir string, opts Options) []FixedFile {
	t.Helper()
	opts.Base = dir
	fixed, err := Fix([]string{dir}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteFixes(fixed); err != nil {
		t.Fatal(err)
	}
	again, err := Fix([]string{dir}, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range again {
		t.Errorf("a second fix changes %s:\n%s", f.Path, UnifiedDiff(f.Path, f.Before, f.After))
	}
	res, err := Lint([]string{dir}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if left := fixable(res); len(left) > 0 {
		t.Errorf("after fixing, lint still reports fixable findings: %v", left)
	}
	return fixed
}

// TestFixes checks each safe fix on a small skill: the fixed text, and
// that the fixed findings are gone.
func TestFixes(t *testing.T) {
	dir := t.TempDir()
	testfs.WriteTree(t, dir, map[string]string{
		".pi/skills/demo/SKILL.md":           "---\nname: Demo\ndescription: Counts files: all of them\nauthor: me\nversion-tag: 3\n---\n\n# Demo\n",
		".claude/skills/tool/SKILL.md":       "---\nname: tool\ndescription: d\nmetadata:\n  team: x\nowner: me\n---\n\n# Tool\n",
		".claude/skills/tool/phases/01-a.md": "# Phase 1: A\n\n# Execution\n\n```bash\necho a\n```\n\n## Next Phase\n\n→ [Phase 3: C](03-c.md)\n",
		".claude/skills/tool/phases/02-b.md": "# Phase 2: B\n\n## Execution\n\n```bash\necho b\n```\n",
		".claude/skills/tool/phases/03-c.md": "# Phase 3: C\n\n## Execution\n\n```bash\necho c\n```\n\n## Output example\n\n```markdown\n# Example\n\n```bash\necho c\n```\n\nMore.\n```\n",
	})
	before, err := Lint([]string{dir}, Options{Base: dir})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		".claude/skills/tool/SKILL.md:frontmatter-unknown-key",
		".claude/skills/tool/phases/01-a.md:phase-no-steps",
		".claude/skills/tool/phases/01-a.md:next-phase-link",
		".claude/skills/tool/phases/03-c.md:fence-nested",
		".pi/skills/demo/SKILL.md:frontmatter-yaml",
	}
	if got := fixable(before); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("fixable findings\n%v\nwant\n%v", got, want)
	}
	fixAndCheck(t, dir, Options{})
	for file, want := range map[string]string{
		".pi/skills/demo/SKILL.md":           "---\nname: demo\ndescription: \"Counts files: all of them\"\nmetadata:\n  author: me\n  version-tag: \"3\"\n---\n",
		".claude/skills/tool/SKILL.md":       "---\nname: tool\ndescription: d\nmetadata:\n  team: x\n  owner: me\n---\n",
		".claude/skills/tool/phases/01-a.md": "# Phase 1: A\n\n## Execution\n\n```bash\necho a\n```\n\n## Next Phase\n\n→ [Phase 2: B](02-b.md)\n",
		".claude/skills/tool/phases/03-c.md": "# Phase 3: C\n\n## Execution\n\n```bash\necho c\n```\n\n## Output example\n\n````markdown\n# Example\n\n```bash\necho c\n```\n\nMore.\n````\n",
	} {
		if got := testfs.ReadFile(t, filepath.Join(dir, file)); !strings.HasPrefix(got, want) {
			t.Errorf("%s after fixing:\n%s\nwant it to start with\n%s", file, got, want)
		}
	}
}

// TestFixCorpus fixes a copy of the whole corpus: a second fix changes
// nothing, and lint then reports none of the fixed findings.
func TestFixCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("copies and fixes the whole corpus")
	}
	corpus.Skills(t)
	dir := t.TempDir()
	copyTree(t, corpus.Root(), dir)
	opts := Options{ConfigFile: "testdata/corpus-skillkit.yaml"}
	before, err := Lint([]string{dir}, Options{Base: dir, ConfigFile: opts.ConfigFile})
	if err != nil {
		t.Fatal(err)
	}
	n := len(fixable(before))
	fixed := fixAndCheck(t, dir, opts)
	if n == 0 || len(fixed) == 0 {
		t.Errorf("%d fixable findings, %d files fixed: the corpus has fixable findings", n, len(fixed))
	}
	t.Logf("%d fixable findings, %d files fixed", n, len(fixed))
	// The corpus itself is untouched.
	if _, err := os.Stat(filepath.Join(corpus.Root(), "INDEX.json")); err != nil {
		t.Fatal(err)
	}
}

func TestUnifiedDiff(t *testing.T) {
	before := "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\n"
	after := "a\nB\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\n"
	want := "--- a/x.md\n+++ b/x.md\n@@ -1,5 +1,5 @@\n a\n-b\n+B\n c\n d\n e\n@@ -9,3 +9,4 @@\n i\n j\n k\n+l\n"
	if got := UnifiedDiff("x.md", []byte(before), []byte(after)); got != want {
		t.Errorf("diff\n%s\nwant\n%s", got, want)
	}
	if got := UnifiedDiff("x.md", []byte(before), []byte(before)); got != "" {
		t.Errorf("diff of equal files: %q", got)
	}
}
