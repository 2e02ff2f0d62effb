package orchestrator

import (
	"path/filepath"
	"testing"

	"github.com/skillkit/skillkit/store"
)

func TestExampleAutonomous(t *testing.T) {
	o := options(t, load(t, "../examples/autonomous"))
	o.Inputs = map[string]string{"items": "red, green,blue"}
	res, err := run(t, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.State != store.RunCompleted {
		t.Fatalf("run %s", res.State)
	}
	st := state(t, res.Dir)
	if got, want := actions(st), "action-init action-process action-process action-process action-complete"; got != want {
		t.Errorf("completed_actions = %q, want %q", got, want)
	}
	if st["status"] != "completed" || st["current_action"] != nil || st["error_count"] != 0.0 {
		t.Errorf("state = %v", st)
	}
	want := "# Notes\n\n- [red](notes/red.md) (8 words)\n- [green](notes/green.md) (8 words)\n- [blue](notes/blue.md) (8 words)\n"
	if got := readFile(t, filepath.Join(res.Dir, "index.md")); got != want {
		t.Errorf("index.md = %q, want %q", got, want)
	}
	if got := readFile(t, filepath.Join(res.Dir, "notes", "green.md")); got != "# green\n\ngreen is item 2 of 3.\n" {
		t.Errorf("notes/green.md = %q", got)
	}
	l := progress(t, res.Dir).Loop
	if l == nil || l.Iteration != 5 || len(l.CompletedActions) != 5 || l.CurrentAction != "" || l.MaxIterations != DefaultMaxIterations {
		t.Errorf("progress loop = %+v", l)
	}
}
