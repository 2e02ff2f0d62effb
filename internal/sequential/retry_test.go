package sequential_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	lifecycle "github.com/skillkit/skillkit/internal/run"
	"github.com/skillkit/skillkit/internal/runstore"
	"github.com/skillkit/skillkit/internal/testfs"
	"github.com/skillkit/skillkit/plan"
)

// A failed run is taken up again after a fix (--retry): from the step
// that failed, the completed ones kept; a completed step whose text
// changed since it ran refuses the retry, naming it, unless forced.
func TestRetryAfterFix(t *testing.T) {
	step := func(title, text string) *plan.Step {
		st := bashStep(title, text)
		st.Text = "### " + title + "\n```bash\n" + text + "\n```\n"
		return st
	}
	broken := newSkill(t, phase("01-x.md", step("a", "echo a >> out.txt"), step("b", "exit 3")))
	o := opts(t, broken)
	res, err := lifecycle.Run(context.Background(), o)
	if res == nil || res.State != runstore.RunFailed {
		t.Fatalf("first run: %v, %v", res, err)
	}
	o.Resume = res.ID
	if _, err := lifecycle.Run(context.Background(), o); !errors.Is(err, runstore.ErrTerminal) || !strings.Contains(err.Error(), "--retry") {
		t.Fatalf("resume of a failed run without --retry: %v, want it refused with a hint", err)
	}

	// The fix touches a completed step too: refused, naming it.
	both := newSkill(t, phase("01-x.md", step("a", "echo A >> out.txt"), step("b", "echo b >> out.txt")))
	both.Hash = "h2"
	o2 := o
	o2.Skill, o2.Retry = both, true
	_, err = lifecycle.Run(context.Background(), o2)
	if !errors.Is(err, lifecycle.ErrSkillChanged) || !strings.Contains(err.Error(), "01-x#1 a (phases/01-x.md:3:1)") {
		t.Fatalf("retry with a changed completed step: %v", err)
	}

	// The fix touches the failed step only: the retry runs it, not step 1.
	fixed := newSkill(t, phase("01-x.md", step("a", "echo a >> out.txt"), step("b", "echo b >> out.txt")))
	fixed.Hash = "h3"
	o3 := o
	o3.Skill, o3.Retry = fixed, true
	res, err = lifecycle.Run(context.Background(), o3)
	if err != nil || res.State != runstore.RunCompleted {
		t.Fatalf("retry after the fix: %v, %v", res, err)
	}
	if got := testfs.ReadFile(t, filepath.Join(res.Dir, "out.txt")); got != "a\nb\n" {
		t.Errorf("out.txt = %q: step 1 must not run again", got)
	}
	p := progress(t, res.Dir)
	// Step 2's pass takes the place and number of its failure
	// (shared/seeds/002: numbers are unique); the failure stays in the
	// event log.
	if p.Error != nil || p.CompletedAt == nil || p.StepsDone() != 2 || p.CompletedSteps.Len() != 2 || p.CompletedSteps.At(1).Status != runstore.StatusPass || p.CompletedSteps.At(1).Step != 2 {
		t.Errorf("progress after the retry: error %v, steps %v", p.Error, p.CompletedSteps)
	}
	if st, _ := readState(res.Dir); st["status"] != "completed" {
		t.Errorf("state.status = %v", st["status"])
	}

	// Forced, a retry keeps a changed completed step as it ran.
	o5 := opts(t, broken)
	res, _ = lifecycle.Run(context.Background(), o5)
	o5.Skill, o5.Resume, o5.Retry, o5.Force = both, res.ID, true, true
	if res, err = lifecycle.Run(context.Background(), o5); err != nil {
		t.Fatalf("forced retry: %v", err)
	}
	if got := testfs.ReadFile(t, filepath.Join(res.Dir, "out.txt")); got != "a\nb\n" {
		t.Errorf("out.txt after a forced retry = %q: the changed step 1 must not run again", got)
	}
}
