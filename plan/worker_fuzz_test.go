package plan

import "testing"

// FuzzWorker decodes arbitrary bytes as a skill's worker.yaml and as its
// skillkit.yaml: a worker, hooks and an execution mode or an error with a
// position, never a panic.
func FuzzWorker(f *testing.F) {
	f.Add([]byte("worker:\n  id: demo-worker\nstate_machine:\n  enabled: true\n  max_retries: 3\n  hooks:\n    post_execute: [auto_checkpoint, log_metrics]\n    on_error: [log_error, 'echo failed']\n"))
	f.Add([]byte("state_machine: [1, 2]\n"))
	f.Add([]byte("worker: {id: 7}\nstate_machine: {max_retries: -1}\n"))
	f.Add([]byte("hooks:\n  post_phase: ./check.sh\nexecution: agent\n"))
	f.Add([]byte("&a [*a]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s := &Skill{Name: "demo"}
		s.Configure(Settings{Worker: data, Config: data})
		_, _ = s.Worker()
		_, _ = s.Hooks()
		s.Classify()
	})
}
