package main

import (
	"flag"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/skillkit/skillkit/internal/corpus"
)

// update rewrites generated and golden files instead of comparing them.
var update = flag.Bool("update", false, "rewrite generated and golden files")

// corpusDir is the shared corpus of real skills.
var corpusDir = corpus.Root()

// repoRoot is the repository root, found from this file's place so that
// tests which change folder still find it.
func repoRoot(t testing.TB) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("cannot find the test's source file")
	}
	return filepath.Join(filepath.Dir(file), "..", "..")
}
