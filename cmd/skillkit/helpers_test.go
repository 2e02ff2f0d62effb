package main

import (
	"flag"
	"path/filepath"
	"testing"

	"github.com/skillkit/skillkit/internal/corpus"
)

// update rewrites generated and golden files instead of comparing them.
var update = flag.Bool("update", false, "rewrite generated and golden files")

// corpusDir is the shared corpus of real skills.
var corpusDir = corpus.Root()

func repoRoot(t testing.TB) string {
	t.Helper()
	abs, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return abs
}
