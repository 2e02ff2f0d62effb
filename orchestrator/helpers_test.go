package orchestrator

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillkit/skillkit/parse"
	"github.com/skillkit/skillkit/plan"
	"github.com/skillkit/skillkit/script"
	"github.com/skillkit/skillkit/sequential"
	"github.com/skillkit/skillkit/store"
)

// load parses a skill folder.
func load(t testing.TB, dir string) *plan.Skill {
	t.Helper()
	s, err := parse.Dir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// writeSkill writes files (path → content) into a fresh folder named
// name and parses it.
func writeSkill(t testing.TB, name string, files map[string]string) *plan.Skill {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	for p, content := range files {
		writeFile(t, filepath.Join(dir, p), content)
	}
	return load(t, dir)
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t testing.TB, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// options are those of a test run of s with the real JS host, in a fresh
// base folder, without fsyncs.
func options(t testing.TB, s *plan.Skill) Options {
	base := t.TempDir()
	return Options{Options: sequential.Options{
		Skill: s, Base: base, NoSync: true, Backoff: 1,
		NewHost: NewHost(script.Options{SkillDir: s.Dir, ProjectDir: base}),
	}}
}

func run(t testing.TB, o Options) (*sequential.Result, error) {
	t.Helper()
	res, err := Run(context.Background(), o)
	if res == nil && err != nil {
		t.Fatalf("no run: %v", err)
	}
	return res, err
}

func state(t testing.TB, dir string) map[string]any {
	t.Helper()
	st, err := store.ReadState(dir)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func progress(t testing.TB, dir string) *store.Progress {
	t.Helper()
	p, err := store.ReadProgress(dir)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// actions is the state's completed_actions joined by spaces.
func actions(st map[string]any) string { return strings.Join(completed(st), " ") }
