// Package sequential is the phase strategy of a run: a skill's numbered
// phases in order, each phase's steps through the shared engine, its
// declared outputs verified after it. It is a peer of package
// orchestrator; package run composes them (a hybrid skill's orchestrator
// phase is the loop).
package sequential

import (
	"context"
	"errors"

	"github.com/skillkit/skillkit/internal/engine"
	"github.com/skillkit/skillkit/internal/runstore"
	"github.com/skillkit/skillkit/plan"
)

// PhaseID names a phase in events and progress: its file name without .md
// ("02-analyze").

// Loop runs an orchestrator phase: the autonomous loop.
type Loop func(ctx context.Context, r *engine.Runner, ph *plan.Phase) error

// Run runs the phases of the skill that the run has not completed, in
// order, each through the unit lifecycle; loop runs the orchestrator phase
// of a hybrid or autonomous skill.
func Run(ctx context.Context, r *engine.Runner, phases []*plan.Phase, loop Loop) error {
	// What the run had done when this process took it over; what it does
	// from here on it never revisits.
	p := r.Record().Progress()
	done := map[string]bool{}
	for s := range p.CompletedSteps.All() {
		if s.Done() {
			done[s.ID] = true
		}
	}
	for _, id := range p.CompletedPhases {
		done[id] = true
	}
	for i, ph := range phases {
		if err := phase(ctx, r, i, len(phases), ph, loop, done); err != nil {
			return err
		}
	}
	return nil
}

// phase runs one phase, unless a run before a resume completed it.
func phase(ctx context.Context, r *engine.Runner, i, n int, ph *plan.Phase, loop Loop, done map[string]bool) error {
	id := ph.ID()
	if done[id] {
		return nil
	}
	r.Printf("phase %d/%d %s: %s\n", i+1, n, id, ph.Title)
	execute := func(ctx context.Context) error {
		for j, st := range ph.Steps {
			sid := engine.StepID(id, j)
			if done[sid] {
				continue
			}
			if _, err := r.RunStep(ctx, id, sid, st); err != nil {
				return err
			}
		}
		return nil
	}
	if ph.IsOrchestrator {
		execute = func(ctx context.Context) error { return loop(ctx, r, ph) }
	}
	return r.RunUnit(ctx, engine.UnitSpec{
		Kind: runstore.KindPhase, ID: id, Title: ph.Title,
		// A phase is retried as worker.yaml's max_retries says; its steps
		// have retry policies of their own.
		Retries: r.MaxRetries(),
		Execute: execute,
		Verify: func(ctx context.Context) error {
			err := verifyOutputs(id, r.Record().WorkDir(), r.Skill().Dir, ph.Outputs)
			if err == nil || !r.AgentJudges() {
				return err
			}
			// The Output section of a real skill often describes what the
			// model assembles from the steps' work: the agent leaves it.
			if aerr := r.AskOutputs(ctx, ph, err); aerr != nil {
				return errors.Join(err, aerr)
			}
			return verifyOutputs(id, r.Record().WorkDir(), r.Skill().Dir, ph.Outputs)
		},
	})
}
