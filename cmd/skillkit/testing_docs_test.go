package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/skillkit/skillkit/internal/cassette"
)

// TestTestingDocExamples runs the test files of docs/testing.md: each
// YAML block headed by the path of an example's test file is put there in
// a copy of the example, and must pass. The record.scrub block must be
// patterns skillkit compiles.
func TestTestingDocExamples(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(repoRoot(t), "docs", "testing.md"))
	must(t, err)
	blocks := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(string(doc), -1)
	head := regexp.MustCompile(`^# examples/([a-z-]+)/tests/([a-z-]+)\.yaml\n`)
	ran, scrubs := 0, 0
	for _, b := range blocks {
		if strings.HasPrefix(b[1], "record:") {
			var cfg struct {
				Record struct{ Scrub []string } `yaml:"record"`
			}
			must(t, yaml.Unmarshal([]byte(b[1]), &cfg))
			if _, err := cassette.NewScrubber(nil, cfg.Record.Scrub); err != nil {
				t.Errorf("the record.scrub example: %v", err)
			}
			scrubs++
			continue
		}
		m := head.FindStringSubmatch(b[1])
		if m == nil {
			continue
		}
		dir := copyExample(t, m[1])
		must(t, os.WriteFile(filepath.Join(dir, "tests", m[2]+".yaml"), []byte(b[1]), 0o644))
		if code, out, stderr := run("test", dir, "--run", "/"+m[2]+"$"); code != ExitOK {
			t.Errorf("examples/%s/tests/%s.yaml of docs/testing.md: exit %d\n%s%s", m[1], m[2], code, out, stderr)
		}
		ran++
	}
	if ran != 2 || scrubs != 1 {
		t.Errorf("ran %d test files and %d record.scrub blocks of docs/testing.md, want 2 and 1", ran, scrubs)
	}
}
