package sequential_test

import (
	"context"
	"errors"
	"testing"

	"github.com/skillkit/skillkit/internal/agent"
	lifecycle "github.com/skillkit/skillkit/internal/run"
	"github.com/skillkit/skillkit/plan"
)

// The native JS steps of a phase share one scope: what a step binds at
// its top level, later steps read, across a resume in mid-phase too
// (values from the run's record, declarations declared again).
func TestPhaseScope(t *testing.T) {
	js := func(title, src string) *plan.Step {
		return &plan.Step{Title: title, Code: []*plan.CodeBlock{code("js", src)}, Class: plan.Class{Kind: plan.ClassNative}}
	}
	s := newSkill(t, phase("01-x.md",
		js("bind", "const inputMethod = 'file'; let count = 40; count += 1;\nfunction twice(x) { return 2 * x; }\nclass Box { constructor(v) { this.v = v; } }"),
		js("use", "const label = inputMethod + ':' + twice(count); return {stateUpdates: {label}};"),
		proseStep("think", "Think about it."),
		js("after resume", "return {stateUpdates: {later: label + '/' + twice(count) + '/' + new Box(7).v}};"),
	))
	o := opts(t, s)
	res, err := lifecycle.Run(context.Background(), o)
	if !errors.Is(err, agent.ErrNoAgent) {
		t.Fatalf("first run: %v, want it stopped at the agent step", err)
	}
	st, _ := readState(res.Dir)
	if st["label"] != "file:82" {
		t.Fatalf("state after the shared steps = %v", st)
	}
	o.Resume, o.Agent = res.ID, fakeAgent("done")
	res, err = lifecycle.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	st, _ = readState(res.Dir)
	if st["later"] != "file:82/82/7" {
		t.Errorf("after the resume, later = %v, want the bindings of steps 1 and 2", st["later"])
	}
}
