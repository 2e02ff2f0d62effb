package skilltest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFixturesAndGoldensStayInTheSkill: a fixture that is a link out of
// the skill is not copied into the work dir (N15), and --update does not
// write a golden file through a link out of the skill (N4).
func TestFixturesAndGoldensStayInTheSkill(t *testing.T) {
	outside := t.TempDir()
	secret := filepath.Join(outside, "shadow")
	write(t, secret, "root:$6$secret\n")
	target := filepath.Join(outside, "target.md")
	write(t, target, "untouched\n")

	dir := filepath.Join(t.TempDir(), "native")
	write(t, filepath.Join(dir, "SKILL.md"), "---\nname: native\ndescription: Writes a file.\n---\n# Native\n")
	write(t, filepath.Join(dir, "phases", "01-go.md"), "# Phase 1: Go\n## Execution Steps\n### Step 1: Write\n```javascript\nWrite('report.md', 'new report');\n```\n")
	write(t, filepath.Join(dir, "tests", "README"), "tests\n")
	if err := os.Symlink(secret, filepath.Join(dir, "tests", "leak.txt")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "tests", "fixture.yaml"), `files:
  leaked.txt: tests/leak.txt
expect:
  files:
    leaked.txt: {exists: false}
`)
	s := skill(t, dir)
	if c, err := LoadCase(filepath.Join(dir, "tests", "fixture.yaml"), s); err == nil {
		r := Run(context.Background(), s, c, Options{})
		if f := strings.Join(r.Failures, "\n"); strings.Contains(f, "leaked.txt") {
			t.Errorf("a fixture linked out of the skill was copied: %s", f)
		}
	} else if !strings.Contains(err.Error(), "leak") {
		t.Errorf("the case is refused, but not for its fixture: %v", err)
	}

	if err := os.Symlink(target, filepath.Join(dir, "tests", "golden.md")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "tests", "golden.yaml"), `expect:
  files:
    report.md: {equals: golden.md}
`)
	s = skill(t, dir)
	c, err := LoadCase(filepath.Join(dir, "tests", "golden.yaml"), s)
	if err != nil {
		t.Fatal(err)
	}
	Run(context.Background(), s, c, Options{Update: true})
	if data, _ := os.ReadFile(target); string(data) != "untouched\n" {
		t.Errorf("--update wrote through a link out of the skill: %q", data)
	}
}
