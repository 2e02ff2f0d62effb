// Package testfs writes and reads the small file trees that tests build,
// failing the test on any error, so that every package's tests share one
// helper instead of each carrying its own.
package testfs

import (
	"os"
	"path/filepath"
	"testing"
)

// WriteFile writes content to path, creating its parent folders.
func WriteFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// WriteTree writes files (slash paths relative to dir → content).
func WriteTree(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		WriteFile(t, filepath.Join(dir, filepath.FromSlash(p)), content)
	}
}

// ReadFile returns the content of path.
func ReadFile(t testing.TB, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
