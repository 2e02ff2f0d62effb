package lsp

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillkit/skillkit/internal/testfs"
)

// bigPhase is a phase file of about n lines: steps with prose, a
// JavaScript block and a bash block each.
func bigPhase(n int) string {
	var b strings.Builder
	b.WriteString("# Phase 1: Big\n\n## Execution\n\n")
	for i := 1; strings.Count(b.String(), "\n") < n; i++ {
		fmt.Fprintf(&b, "### Step %d: Part %d\n\nCount part %d of the input and keep the total.\n\n", i, i, i)
		fmt.Fprintf(&b, "```javascript\nconst part%d = (state.count || 0) + %d;\nconsole.log(`part %d: ${part%d}`);\n```\n\n", i, i, i, i)
		fmt.Fprintf(&b, "```bash\necho \"part %d\" >> parts.txt\n```\n\n", i)
	}
	return b.String()
}

// BenchmarkDiagnosticsAfterChange measures what an edit of a 2,000-line
// phase file costs: the new text is linted with its skill and the
// diagnostics are published (to a discarding client).
func BenchmarkDiagnosticsAfterChange(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "demo")
	text := bigPhase(2000)
	testfs.WriteTree(b, dir, map[string]string{
		"SKILL.md":               skillMD,
		"phases/01-big.md":       text,
		"phases/state-schema.md": schema,
	})
	s := &server{conn: newConn(strings.NewReader(""), io.Discard), docs: map[string]*document{}, skills: map[string]*skillState{}, initialized: true}
	uri := uriOf(filepath.Join(dir, "phases", "01-big.md"))
	if err := s.open(uri, 1, text); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(text)))
	v := 1
	for b.Loop() {
		v++
		edited := strings.Replace(text, "Count part 7 ", fmt.Sprintf("Count part 7 (edit %d) ", v), 1)
		if err := s.open(uri, v, edited); err != nil {
			b.Fatal(err)
		}
	}
}
