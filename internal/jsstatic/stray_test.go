package jsstatic

import (
	"errors"
	"testing"
)

// TestStrayCloserLine: an extra closer is reported on its own line, not
// where goja trips over what follows (the next statement, or the end of
// the block, which an editor shows on the closing fence).
func TestStrayCloserLine(t *testing.T) {
	for _, c := range []struct {
		src       string
		line, col int
	}{
		{"const a = 1;\nif (a) {\n  a;\n}\n}\nconst b = 2;\n", 5, 1},
		{"const a = 1;\nif (a) {\n  a;\n}\n}\n", 5, 1},
		{"f(a));\n", 1, 5},
		// Brackets in strings, templates, regular expressions and
		// comments close nothing.
		{"const m = s.match(/\"([^\"]+)\"/);\n}\n", 2, 1},
		{"const s = '}';\n// }\n/* ) */ const t = `]`;\nlet x = ;\n", 4, 9},
	} {
		_, err := Parse(c.src)
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Fatalf("%q: %v", c.src, err)
		}
		if se.Line != c.line || se.Col != c.col {
			t.Errorf("%q: error at %d:%d (%s), want %d:%d", c.src, se.Line, se.Col, se.Msg, c.line, c.col)
		}
	}
}
