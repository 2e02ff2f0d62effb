// Package corpus finds the shared corpus of real public skills that tests
// run against. It sits beside the repository (../shared/corpus from the
// repository root); on a user's clone it is absent and those tests skip.
package corpus

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Entry is one skill of the corpus index.
type Entry struct {
	// Dir is the skill folder relative to the corpus root.
	Dir string `json:"dir"`
	// Mode is the index's mode: sequential, autonomous, hybrid or other.
	Mode string `json:"mode"`
}

// Path returns the skill folder of e.
func (e Entry) Path() string { return filepath.Join(Root(), e.Dir) }

// Root is the corpus folder, found from this file's place in the
// repository so that it is the same from every package's tests.
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "corpus")
}

// Skills returns the corpus index, skipping the test when the corpus is
// absent.
func Skills(t testing.TB) []Entry {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(Root(), "INDEX.json"))
	if os.IsNotExist(err) {
		t.Skipf("corpus not found at %s: skipping (it sits beside the repository as ../shared/corpus)", Root())
	}
	if err != nil {
		t.Fatal(err)
	}
	var idx []Entry
	if err := json.Unmarshal(data, &idx); err != nil {
		t.Fatalf("reading the corpus index: %v", err)
	}
	return idx
}

// Skill returns the folder of a corpus skill by its index dir, skipping
// the test when the corpus is absent.
func Skill(t testing.TB, dir string) string {
	t.Helper()
	Skills(t)
	return filepath.Join(Root(), dir)
}

// PlainRoot is the folder of plain skills (a SKILL.md with references and
// no phases/), beside the corpus as ../shared/corpus-plain.
func PlainRoot() string { return filepath.Join(filepath.Dir(Root()), "corpus-plain") }

// PlainSkills returns the folders of the plain skills, each a folder
// holding a SKILL.md under PlainRoot, sorted; it skips the test when the
// folder is absent.
func PlainSkills(t testing.TB) []string {
	t.Helper()
	if _, err := os.Stat(PlainRoot()); os.IsNotExist(err) {
		t.Skipf("plain skills not found at %s: skipping (they sit beside the repository as ../shared/corpus-plain)", PlainRoot())
	}
	dirs, err := filepath.Glob(filepath.Join(PlainRoot(), "*", "skills", "*", "SKILL.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) == 0 {
		t.Fatalf("no skills under %s", PlainRoot())
	}
	for i, d := range dirs {
		dirs[i] = filepath.Dir(d)
	}
	return dirs
}
