package main

import (
	"path/filepath"
	"testing"

	"github.com/skillkit/skillkit/internal/testfs"
)

// The project JS code may touch is the project root, and never /: a run
// started in / (or under no project) would otherwise open every file.
func TestProjectDir(t *testing.T) {
	root := t.TempDir()
	testfs.WriteFile(t, filepath.Join(root, "repo", ".git", "HEAD"), "ref: main\n")
	testfs.WriteFile(t, filepath.Join(root, "repo", "sub", "x"), "")
	for dir, want := range map[string]string{
		filepath.Join(root, "repo", "sub"): filepath.Join(root, "repo"),
		string(filepath.Separator):         "",
	} {
		if got := projectDir(projectRoot(dir)); got != want {
			t.Errorf("projectDir(projectRoot(%s)) = %q, want %q", dir, got, want)
		}
	}
}
