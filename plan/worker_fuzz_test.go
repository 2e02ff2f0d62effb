package plan

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzReadWorker reads arbitrary bytes as a skill's worker.yaml: a worker
// or an error with a position, never a panic.
func FuzzReadWorker(f *testing.F) {
	f.Add([]byte("worker:\n  id: demo-worker\nstate_machine:\n  enabled: true\n  max_retries: 3\n  hooks:\n    post_execute: [auto_checkpoint, log_metrics]\n    on_error: [log_error, 'echo failed']\n"))
	f.Add([]byte("state_machine: [1, 2]\n"))
	f.Add([]byte("worker: {id: 7}\nstate_machine: {max_retries: -1}\n"))
	f.Add([]byte("&a [*a]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, WorkerFile), data, 0o644); err != nil {
			t.Fatal(err)
		}
		s := &Skill{Dir: dir, Name: "demo"}
		_, _ = s.ReadWorker()
	})
}
