package lint

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// FuzzLint lints a skill whose SKILL.md and one phase file are arbitrary
// text, and writes every format: lint must report, never panic or fail.
// Seeds are in testdata/fuzz/FuzzLint.
func FuzzLint(f *testing.F) {
	f.Add("---\nname: demo\ndescription: d\n---\n# Demo\n", "# Phase 1: X\n\n## Execution\n\n```bash\nls\n```\n")
	f.Add("---\nname: [\n", "```markdown\n```js\n```\n```\n")
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
