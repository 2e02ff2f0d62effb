package sequential_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/skillkit/skillkit/internal/faultfs"
	lifecycle "github.com/skillkit/skillkit/internal/run"
	"github.com/skillkit/skillkit/internal/runstore/fsstore"
	"github.com/skillkit/skillkit/plan"
)

// A phase of one step costs one sync of the log: the step's end rides on
// the phase's end, which follows with nothing of the skill run in
// between. Another step of the phase costs one more. A post_phase hook is
// something of the skill: the step's end is made durable before it runs,
// and the phase's end after it. Every phase leaves its thread.
func TestOneSyncPerPhase(t *testing.T) {
	syncs := func(t *testing.T, phases, steps int, hook bool) int {
		t.Helper()
		var ps []*plan.Phase
		for i := 1; i <= phases; i++ {
			var st []*plan.Step
			for j := 1; j <= steps; j++ {
				st = append(st, bashStep(fmt.Sprint("s", j), "true"))
			}
			ps = append(ps, phase(fmt.Sprintf("%02d-p.md", i), st...))
		}
		s := newSkill(t, ps...)
		if hook {
			s.FrontMatter = &plan.FrontMatter{Fields: []*plan.Field{{Key: "metadata", Value: map[string]any{"hooks": map[string]any{"post_phase": "true"}}}}}
		}
		files := faultfs.Wrap(nil)
		o := opts(t, s)
		o.Store = fsstore.New(fsstore.Options{Base: t.TempDir(), Files: files})
		res, err := lifecycle.Run(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		// Each phase's auto_checkpoint is a thread, written beside the
		// run's next phases.
		if threads, _ := os.ReadDir(filepath.Join(res.Dir, fsstore.ThreadsDir)); len(threads) != phases {
			t.Errorf("%d threads after %d phases", len(threads), phases)
		}
		return files.Syncs(fsstore.EventsFile)
	}
	for _, tt := range []struct {
		name  string
		steps int
		hook  bool
		want  int
	}{
		{"one step", 1, false, 1},
		{"two steps", 2, false, 2},
		{"a post_phase hook", 1, true, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// The run's own transitions add a constant: ten phases more
			// cost ten times a phase.
			per := float64(syncs(t, 20, tt.steps, tt.hook)-syncs(t, 10, tt.steps, tt.hook)) / 10
			if per != float64(tt.want) {
				t.Errorf("%.1f syncs per phase, want %d", per, tt.want)
			}
		})
	}
}
