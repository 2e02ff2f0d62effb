package parse

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/skillkit/skillkit/internal/testfs"
)

// TestDocsKeepWhatTheLastParseRead parses a skill again and again with
// one Docs, as the language server does over a long session, while a
// note is renamed at every parse and another file goes from markdown to
// binary and back: the kept documents are always those of the files the
// last parse read, so the cache does not grow with the session, and an
// unchanged file's parse is the one kept.
func TestDocsKeepWhatTheLastParseRead(t *testing.T) {
	dir := t.TempDir()
	testfs.WriteTree(t, dir, map[string]string{
		"SKILL.md":       "---\nname: demo\ndescription: d\n---\n# Demo\n",
		"phases/01-a.md": "# Phase 1: A\n\n## Execution\n\n```bash\necho a\n```\n",
		"notes-0.md":     "# Notes\n",
	})
	d := NewDocs()
	var entry *md
	for i := range 40 {
		if i > 0 {
			if err := os.Rename(filepath.Join(dir, fmt.Sprintf("notes-%d.md", i-1)), filepath.Join(dir, fmt.Sprintf("notes-%d.md", i))); err != nil {
				t.Fatal(err)
			}
		}
		flip := "# B\n"
		if i%2 == 1 {
			flip = "# B\x00\n"
		}
		if err := os.WriteFile(filepath.Join(dir, "b.md"), []byte(flip), 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := DirWith(dir, Options{NoHash: true, Docs: d})
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"SKILL.md", "b.md", fmt.Sprintf("notes-%d.md", i), "phases/01-a.md"}
		if got := slices.Sorted(maps.Keys(d.m)); !slices.Equal(got, want) {
			t.Fatalf("parse %d: kept %q, want the files read, %q", i, got, want)
		}
		if (d.m["b.md"].doc == nil) != (i%2 == 1) {
			t.Fatalf("parse %d: b.md kept as %v", i, d.m["b.md"].doc)
		}
		if i > 0 && d.m["SKILL.md"].doc != entry {
			t.Fatalf("parse %d: SKILL.md, unchanged, was parsed again", i)
		}
		entry = d.m["SKILL.md"].doc
		if s.Body != entry.doc {
			t.Fatalf("parse %d: the skill's body is not the kept document", i)
		}
	}
}
