package parse

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/skillkit/skillkit/plan"
)

// TestSettings: parse reads worker.yaml and skillkit.yaml into the plan,
// through the folder it was given (an editor's overlay included), and
// their errors keep their file:line; plan reads nothing itself.
func TestSettings(t *testing.T) {
	dir := writeSkill(t, map[string]string{
		"SKILL.md":      "---\nname: demo\ndescription: d\n---\n# Demo\n",
		"worker.yaml":   "worker:\n  id: w1\nstate_machine:\n  max_retries: 2\n  hooks:\n    on_error: [echo failed]\n",
		"skillkit.yaml": "execution: agent\nhooks:\n  post_run: echo done\n",
	})
	s := mustDir(t, dir)
	// The files go away: the plan holds what parse read.
	for _, f := range []string{plan.WorkerFile, plan.ConfigFile} {
		if err := os.Remove(filepath.Join(dir, f)); err != nil {
			t.Fatal(err)
		}
	}
	w, err := s.Worker()
	if err != nil || w.ID != "w1" || w.MaxRetries != 2 || len(w.Hooks) != 1 || w.Hooks[0].Pos.String() != "worker.yaml:6:16" {
		t.Errorf("worker = %+v, %v", w, err)
	}
	hooks, err := s.Hooks()
	if err != nil || len(hooks) != 1 || hooks[0].Command != "echo done" || hooks[0].Pos.String() != "skillkit.yaml:3:13" {
		t.Errorf("hooks = %+v, %v", hooks, err)
	}
	if s.Execution != plan.ExecutionAgent {
		t.Errorf("execution = %q, want agent from skillkit.yaml", s.Execution)
	}

	// An overlay is what parse reads, configuration too.
	overlay := fstest.MapFS{
		"SKILL.md":    {Data: []byte("---\nname: demo\ndescription: d\n---\n# Demo\n")},
		"worker.yaml": {Data: []byte("state_machine:\n  max_retries: two\n")},
	}
	s, err = DirWith(dir, Options{FS: overlay})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Worker(); err == nil || err.Error() != "worker.yaml:2:16: state_machine.max_retries: want a whole number, 0 or more" {
		t.Errorf("worker error = %v", err)
	}

	// A worker.yaml that cannot be read refuses the run, saying so.
	bad := writeSkill(t, map[string]string{"SKILL.md": "# Demo\n", "worker.yaml/x": "not a file\n"})
	if _, err := mustDir(t, bad).Worker(); err == nil || !strings.HasPrefix(err.Error(), "reading worker.yaml: ") {
		t.Errorf("unreadable worker.yaml: %v", err)
	}
}
