package plan

import (
	"strings"
	"testing"

	"github.com/skillkit/skillkit/jsstatic"
)

// TestPlaceholderVariants pins what each variant takes as a slot, and
// what it leaves alone on purpose.
func TestPlaceholderVariants(t *testing.T) {
	bash := []struct {
		text, slot string
	}{
		{"mkdir -p {name}/out", "{name}"},
		{"echo {{ID}}", "{{ID}}"},
		{"echo ${HOME} $x", ""},        // the shell's own
		{"cat < input > <out>", ""},    // angle brackets are redirections
		{"[ -f x ] && echo \\{a}", ""}, // a test, and an escaped brace
		{"echo {a,b}", ""},             // brace expansion
	}
	for _, c := range bash {
		slot, _, ok := BashPlaceholder(c.text)
		if slot != c.slot || ok != (c.slot != "") {
			t.Errorf("BashPlaceholder(%q) = %q, %v; want %q", c.text, slot, ok, c.slot)
		}
	}
	for src, want := range map[string]string{
		"const n = <count>;":      "const n = _tpl_;",
		"f({{items}}, [1, ...])":  "f(_tpl_, [1, ])",
		"if (a < b && c > d) x()": "if (a < b && c > d) x()",
		"a()\n  ...\nb()":         "a()\n\nb()",
	} {
		if got, _ := UntemplateJS(src); got != want {
			t.Errorf("UntemplateJS(%q) = %q, want %q", src, got, want)
		}
	}
	if got, _ := UntemplateBash("cat <file> | wc -l"); got != "cat PLACEHOLDER | wc -l" {
		t.Errorf("UntemplateBash = %q", got)
	}
	for s, want := range map[string]bool{"<pass|review|fail>": true, "{ISO8601}": true, "[...]": true, "id-{{n}}-x": true, "completed": false, "a <b> c": false} {
		if IsPlaceholderString(s) != want {
			t.Errorf("IsPlaceholderString(%q) = %v", s, !want)
		}
	}
	for p, want := range map[string]string{
		"out/[sessionId]/report.md":   "out/*/report.md",
		"${OUT_DIR}/{name}-<slug>.md": "*/*-*.md",
		"plain/file.md":               "plain/file.md",
	} {
		if got := GlobPlaceholders(p); got != want {
			t.Errorf("GlobPlaceholders(%q) = %q, want %q", p, got, want)
		}
	}
}

// FuzzEllipsisScan holds the scans that spare UntemplateJS its ellipsis
// expressions to those expressions: each says yes exactly where its
// expression matches.
func FuzzEllipsisScan(f *testing.F) {
	for _, s := range []string{
		"f(...args)", "[1, ...]", "{ ... }", "a, …\n)", "a()\n  ...\nb()", "....)", "…", "...\f]", "x ...\t\n", " … ", "..\n.)", "\xe2\x80...)",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := ellipsisBeforeCloser(s), ellipsisElement.MatchString(s); got != want {
			t.Fatalf("ellipsisBeforeCloser(%q) = %v, the expression %v", s, got, want)
		}
		if got, want := ellipsisOnlyLine(s), ellipsisLine.MatchString(s); got != want {
			t.Fatalf("ellipsisOnlyLine(%q) = %v, the expression %v", s, got, want)
		}
	})
}

// FuzzBashSlotStart holds the pre-check to the expression: it may pass
// text without a slot, never miss one.
func FuzzBashSlotStart(f *testing.F) {
	for _, s := range []string{"echo {{x}}", "${x}", "a {b}", "\\{x}", "{{{x}}}", "{", "é{x}", "f() {\n  x\n}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if bashSlot.MatchString(s) && !bashSlotStart(s) {
			t.Errorf("%q holds a slot the pre-check misses", s)
		}
	})
}

// FuzzAngleSlotStart holds the angle pre-check to its expression.
func FuzzAngleSlotStart(f *testing.F) {
	for _, s := range []string{"a < b", "<count>", "<é>", "x <_y>", "cat <<EOF", "<", "<1>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if angleSlot.MatchString(s) && !angleSlotStart(s) {
			t.Errorf("%q holds a slot the pre-check misses", s)
		}
	})
}

// A template block that parses once its slots are filled is checked as
// written: what lint finds in it is where the block has it, not where the
// filled text has it (a slot before a name on its line moved the name).
func TestFilledBlockPositionsAreTheBlocks(t *testing.T) {
	text := "const n = f(<count>, {{items}}, missing);\nreturn [n, ...]\n"
	c := &CodeBlock{Lang: "js", Text: text}
	prog := NewBlocks().Filled(c, jsstatic.Parse)
	if prog == nil {
		t.Fatal("the filled block did not parse")
	}
	got := map[string][2]int{}
	for _, r := range prog.FreeNames() {
		got[r.Name] = [2]int{r.Line, r.Col}
	}
	want := map[string][2]int{
		"f":       {1, 11},
		JSStandIn: {1, 13}, // the first slot, <count>
		"missing": {1, 33},
	}
	for name, at := range want {
		if got[name] != at {
			t.Errorf("%s at %v, want %v (all: %v)", name, got[name], at, got)
		}
	}
}

// FuzzUntemplateJSMapsBack holds the map from the filled text back to the
// block: it never goes back, stays on the same line, lands within the
// block, and what no slot replaced is the block's own byte.
func FuzzUntemplateJSMapsBack(f *testing.F) {
	for _, s := range []string{
		"const n = <count>;", "f({{items}}, [1, ...])", "a()\n  ...\nb()", "x(<a>, <b>)\n{{c}} + <d>\n[1, …]\n",
		"…)", "<é>", "{{}}", "...\n]",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		out, back := untemplateJS(src)
		if back == nil {
			if out != src {
				t.Fatalf("changed %q to %q without a map", src, out)
			}
			return
		}
		prev := -1
		for o := 0; o <= len(out); o++ {
			b := back(o)
			if b < prev || b < 0 || b > len(src) {
				t.Fatalf("%q -> %q: offset %d maps to %d after %d", src, out, o, b, prev)
			}
			prev = b
			if strings.Count(out[:o], "\n") != strings.Count(src[:b], "\n") {
				t.Fatalf("%q -> %q: offset %d maps to %d, another line", src, out, o, b)
			}
		}
	})
}
