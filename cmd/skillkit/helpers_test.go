package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// corpusDir is the shared corpus of real skills, beside the repository.
const corpusDir = "../../../shared/corpus"

func repoRoot(t testing.TB) string {
	t.Helper()
	abs, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

type corpusEntry struct {
	Dir  string `json:"dir"`
	Mode string `json:"mode"`
}

// corpus returns the corpus index, skipping the test where the corpus is
// absent (a user's clone has no shared/ folder beside it).
func corpus(t testing.TB) []corpusEntry {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(corpusDir, "INDEX.json"))
	if os.IsNotExist(err) {
		t.Skipf("corpus not found at %s: skipping", corpusDir)
	}
	if err != nil {
		t.Fatal(err)
	}
	var idx []corpusEntry
	if err := json.Unmarshal(data, &idx); err != nil {
		t.Fatal(err)
	}
	return idx
}
