package lint

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzLint lints a skill whose SKILL.md and one phase file are arbitrary
// text, and writes every format: lint must report, never panic or fail.
// Seeds are in testdata/fuzz/FuzzLint.
func FuzzLint(f *testing.F) {
	f.Add("---\nname: demo\ndescription: d\n---\n# Demo\n", "# Phase 1: X\n\n## Execution\n\n```bash\nls\n```\n")
	f.Add("---\nname: [\n", "```markdown\n```js\n```\n```\n")
	f.Add("# Demo\n\n> <Good>\n> ```bash\n> ls\n>\n> ```\n> </Good>\n", "- x\n\n  <details>\n  ~~~\n  a\n\n  ~~~~\n<Bad>\n```")
	f.Fuzz(func(t *testing.T, skill, phase string) {
		dir := t.TempDir()
		s := filepath.Join(dir, "demo")
		if err := os.MkdirAll(filepath.Join(s, "phases"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(s, "SKILL.md"), []byte(skill), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(s, "phases", "01-x.md"), []byte(phase), 0o644); err != nil {
			t.Fatal(err)
		}
		res, err := Lint([]string{s}, Options{Base: dir})
		if err != nil {
			t.Fatalf("Lint: %v", err)
		}
		for _, write := range []func(io.Writer, *Result) error{
			func(w io.Writer, r *Result) error { return WriteText(w, r, TextOptions{Color: true}) },
			WriteJSON, WriteGitHub,
			func(w io.Writer, r *Result) error { return WriteSARIF(w, r, SARIFOptions{}) },
		} {
			if err := write(io.Discard, res); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// FuzzInnerFence holds innerFence, which jumps between fence characters,
// to reading the block line by line.
func FuzzInnerFence(f *testing.F) {
	for _, s := range []string{
		"a\n```js\nx\n```\n", "  ```go\n", "x ```js\n```js", "\t~~~ yaml\n", "````\n```js`x\n", "```\n\n\n   ```` sh\n", "``js\n```", "", "\n", "```js",
	} {
		f.Add(s, "```")
		f.Add(s, "~~~~")
	}
	f.Fuzz(func(t *testing.T, text, fence string) {
		if fence == "" {
			return
		}
		n, indent, run, info, ok := innerFence(text, fence)
		wn, windent, wrun, winfo, wok := innerFenceByLine(text, fence)
		if n != wn || indent != windent || run != wrun || info != winfo || ok != wok {
			t.Fatalf("innerFence(%q, %q) = %d %d %q %q %v; by line %d %d %q %q %v", text, fence, n, indent, run, info, ok, wn, windent, wrun, winfo, wok)
		}
	})
}

// innerFenceByLine is innerFence read the plain way, every line in turn.
func innerFenceByLine(text, fence string) (n, indent int, run, info string, ok bool) {
	for i, line := range strings.Split(text, "\n") {
		t := strings.TrimLeft(line, " \t")
		run := fenceRun(t)
		if len(run) < len(fence) || run[0] != fence[0] {
			continue
		}
		info := strings.TrimSpace(t[len(run):])
		if info == "" || fence[0] == '`' && strings.Contains(info, "`") {
			continue
		}
		return i + 1, len(line) - len(t), run, info, true
	}
	return 0, 0, "", "", false
}

// FuzzLineTokens holds body-length's count, which takes bytes below
// utf8.RuneSelf as characters without decoding them, to the count over
// every decoded rune it replaced: the same estimate for any text, invalid
// UTF-8, tabs and wide characters included.
func FuzzLineTokens(f *testing.F) {
	for _, s := range []string{"", "plain words", "\t- 日本語の説明", "emoji 😀 and ｆｕｌｌ", "\xff\xfe\xc3", "a\u0300\u3000b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		wide, other := 0, 1
		for _, r := range text {
			if isWide(r) {
				wide++
			} else {
				other++
			}
		}
		if got, want := lineTokens(text), wide+(other+3)/4; got != want {
			t.Fatalf("lineTokens(%q) = %d, counting runes gives %d", text, got, want)
		}
	})
}
