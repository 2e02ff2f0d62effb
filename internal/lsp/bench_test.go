package lsp

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/text"

	"github.com/skillkit/skillkit/internal/testfs"
	"github.com/skillkit/skillkit/lint"
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
// diagnostics are published (to a discarding client). The server keeps
// the work of its last lint, as in an editor; BenchmarkDiagnosticsCold is
// the same lint with nothing kept, and BenchmarkGoldmarkFloor the
// goldmark parse of the same text, which no re-diagnose can beat.
func BenchmarkDiagnosticsAfterChange(b *testing.B) { benchDiagnostics(b, false) }

// BenchmarkDiagnosticsCold is BenchmarkDiagnosticsAfterChange by a new
// server at each change: every block parsed again.
func BenchmarkDiagnosticsCold(b *testing.B) { benchDiagnostics(b, true) }

func benchDiagnostics(b *testing.B, cold bool) {
	dir := filepath.Join(b.TempDir(), "demo")
	text := bigPhase(2000)
	testfs.WriteTree(b, dir, map[string]string{
		"SKILL.md":               skillMD,
		"phases/01-big.md":       text,
		"phases/state-schema.md": schema,
	})
	newServer := func() *server {
		s := newServer(strings.NewReader(""), io.Discard, Options{})
		s.initialized = true
		return s
	}
	s := newServer()
	uri := uriOf(filepath.Join(dir, "phases", "01-big.md"))
	if err := s.open(uri, 1, text); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(text)))
	v := 1
	for b.Loop() {
		v++
		edited := strings.Replace(text, "Count part 7 ", fmt.Sprintf("Count part 7 (edit %d) ", v), 1)
		if cold {
			s = newServer()
		}
		if err := s.open(uri, v, edited); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGoldmarkFloor parses the 2,000-line phase of
// BenchmarkDiagnosticsAfterChange with goldmark and does nothing else,
// as bench/parsefloor does for lint. The collector is set as the server
// sets it, so that the floor is what the parse costs in the server's
// process, whichever benchmark runs first.
func BenchmarkGoldmarkFloor(b *testing.B) {
	lint.TuneCollector()
	src := []byte(bigPhase(2000))
	md := goldmark.New()
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		md.Parser().Parse(text.NewReader(src))
	}
}
