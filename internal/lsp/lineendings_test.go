package lsp

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillkit/skillkit/internal/testfs"
)

// TestLineEndingsGiveTheSameRanges lints a phase on disk saved with \n
// line endings, with classic Mac OS's lone \r, and with a byte order
// mark: lint reads all three as the same lines (parse.NormalizeNewlines),
// and so does an editor (LSP counts a lone \r as a line end; editors keep
// the mark out of the text), so the diagnostics' ranges, converted to
// UTF-16 on the line they are on, are the same. The phase's finding sits
// after characters outside the Basic Multilingual Plane, which UTF-16
// counts twice.
func TestLineEndingsGiveTheSameRanges(t *testing.T) {
	note := "# Phase 2: Note\n\n## Execution\n\n### Step 1: Note\n\n```javascript\nconst s = \"😀😀\"; const = ;\n```\n"
	var want string
	for _, v := range []struct{ what, text string }{
		{"LF", note},
		{"lone CR", strings.ReplaceAll(note, "\n", "\r")},
		{"byte order mark", "\uFEFF" + note},
	} {
		dir := filepath.Join(t.TempDir(), ".claude", "skills", "demo")
		testfs.WriteTree(t, dir, map[string]string{
			"SKILL.md":               "---\nname: demo\ndescription: Counts files.\n---\n\n# Demo\n",
			"phases/01-count.md":     phaseMD,
			"phases/02-note.md":      v.text,
			"phases/state-schema.md": schema,
		})
		var out bytes.Buffer
		if err := testServer(&out).open(uriOf(filepath.Join(dir, "phases", "01-count.md")), 1, phaseMD); err != nil {
			t.Fatal(err)
		}
		got := published(t, out.Bytes())[uriOf(filepath.Join(dir, "phases", "02-note.md"))]
		if !strings.Contains(got, "js-syntax") {
			t.Fatalf("%s: no js-syntax diagnostic: %s", v.what, got)
		}
		if want == "" {
			want = got
		} else if got != want {
			t.Errorf("%s: diagnostics differ from the LF file's\ngot:  %s\nwant: %s", v.what, got, want)
		}
	}
}
