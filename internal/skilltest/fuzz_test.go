package skilltest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/skillkit/skillkit/plan"
)

// FuzzLoadCase reads arbitrary bytes as a skill's test file: a case or a
// *BadFileError with a position, never a panic.
func FuzzLoadCase(f *testing.F) {
	f.Add([]byte("description: x\nagent:\n  cassette: basic.cassette.jsonl\nexpect:\n  status: completed\n  exitCode: 0\n  state:\n    count: 3\n"))
	f.Add([]byte("expect: {files: {out.txt: {matches: '['}}}\n"))
	f.Add([]byte("unknown: 1\n"))
	f.Add([]byte("files:\n  ../../etc/passwd: x\n"))
	f.Add([]byte(": : :"))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		file := filepath.Join(dir, "tests", "case.yaml")
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, _ = LoadCase(file, &plan.Skill{Dir: dir, Name: "demo"})
	})
}
