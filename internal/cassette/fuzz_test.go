package cassette

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzLoad reads arbitrary bytes as a cassette: an error, never a panic.
func FuzzLoad(f *testing.F) {
	f.Add([]byte("{\"cassette\": 1, \"skill\": \"demo\"}\n{\"request\": \"step\", \"id\": \"01-a#1\", \"prompt\": \"x\", \"reply\": \"done\"}\n"))
	f.Add([]byte("{\"cassette\": 1, \"skill\": \"demo\"}\n{\"request\":"))
	f.Add([]byte("{\"cassette\": 99}\n"))
	f.Add([]byte("not json\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "c.jsonl")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, _ = Load(path, "demo")
	})
}
