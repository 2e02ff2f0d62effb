package script

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillkit/skillkit/internal/testfs"
	"github.com/skillkit/skillkit/plan"
)

// block is a JS code block whose first line is line 10 of file.
func block(file, src string) *plan.CodeBlock {
	return &plan.CodeBlock{Lang: "javascript", Text: src, Pos: plan.Pos{File: file, Line: 9, Col: 1}, Body: plan.Pos{File: file, Line: 10, Col: 1}}
}

// fixture is a run layout in a temp dir: project/, project/skill/,
// project/.skillkit/work/ and outside/ (a sibling no root covers).
type fixture struct {
	root, project, skill, work, outside string
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	root := t.TempDir()
	f := fixture{
		root:    root,
		project: filepath.Join(root, "project"),
		skill:   filepath.Join(root, "project", "skill"),
		work:    filepath.Join(root, "project", ".skillkit", "work"),
		outside: filepath.Join(root, "outside"),
	}
	for _, d := range []string{f.skill, f.work, f.outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	testfs.WriteFile(t, filepath.Join(f.outside, "secret.txt"), "secret")
	return f
}

func (f fixture) host(t *testing.T, mod func(*Options)) *Host {
	t.Helper()
	opts := Options{WorkDir: f.work, SkillDir: f.skill, ProjectDir: f.project, RunID: "r1", Inputs: map[string]string{"target": "src"}}
	if mod != nil {
		mod(&opts)
	}
	h, err := NewHost(opts)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// step runs src as a step and returns the resulting state.
func (f fixture) step(t *testing.T, h *Host, src string) (map[string]any, error) {
	t.Helper()
	return h.RunStep(context.Background(), block("phases/01-x.md", src), map[string]any{"status": "running"}, nil)
}

// checkErr checks err against want, a substring of the expected error or
// "" for none, and reports whether the test should go on to check results.
func checkErr(t *testing.T, err error, want string) bool {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Fatal(err)
	case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
		t.Fatalf("err = %v, want %q", err, want)
	}
	return want == ""
}
