package fsstore

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillkit/skillkit/internal/runstore"
)

// Whatever events.jsonl holds, reading the run neither panics nor hangs:
// it reads, or it fails naming the file (ErrCorrupt, ErrNoRun).
func FuzzReadRun(f *testing.F) {
	for _, s := range []string{
		`{"time":"2026-01-02T03:04:05Z","run":"r","from":"","to":"pending","start":{"runId":"r","skill":"s","startedAt":"2026-01-02T03:04:05Z","totalSteps":1}}` + "\n" +
			`{"run":"r","phase":"01-a","step":"01-a#1","from":"executing","to":"completed","record":{"id":"01-a#1","result":"completed"},"state":{"n":1},"checkpoint":{"hook":"h","worker":{"id":"w"}}}` + "\n",
		`{"run":"r","from":"running","to":"completed"}` + "\n",
		`{"start":{"runId":"r"},"state":[1]}` + "\n",
		`{"start":{"runId":"r"}}` + "\n" + `{"to":"pend`,
		"\n\n{\n",
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, log string) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, EventsFile), []byte(log), 0o644); err != nil {
			t.Fatal(err)
		}
		sum, err := New(Options{Base: dir}).Status(dir)
		if err == nil {
			if sum.Dir != dir {
				t.Errorf("the run in %s reads as in %s", dir, sum.Dir)
			}
			return
		}
		if !errors.Is(err, runstore.ErrCorrupt) && !errors.Is(err, runstore.ErrNoRun) {
			t.Errorf("error matches neither ErrCorrupt nor ErrNoRun: %v", err)
		}
		if !strings.Contains(err.Error(), dir) {
			t.Errorf("error does not name the run: %v", err)
		}
	})
}
