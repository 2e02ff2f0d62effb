// Package orchestrator is the loop strategy of a run (autonomous and
// hybrid skills): the loop of DESIGN §3.5 that selects an action from the
// state (selectNextAction, or the action catalog's preconditions), runs it
// through the shared engine, applies its state updates and validates them
// against the state schema, until the selection ends. It is a peer of
// package sequential; package run composes them.
package orchestrator

import (
	"context"
	"time"

	"github.com/skillkit/skillkit/internal/engine"
	"github.com/skillkit/skillkit/plan"
)

// DefaultMaxIterations bounds the loop when Options.MaxIterations is zero.
const DefaultMaxIterations = 100

// Options tune the loop.
type Options struct {
	// MaxIterations is how many actions the loop may start in one run,
	// resumes included, before it fails for want of progress; zero means
	// DefaultMaxIterations.
	MaxIterations int
	// Retries is how many more times a failing action is tried (with the
	// engine's doubling backoff) before it counts as failed; Backoff is
	// the first wait.
	Retries int
	Backoff time.Duration
}

// Run runs the loop of skill s in the run r until the selection ends, the
// skill's status is final, or an action fails for good.
func Run(ctx context.Context, r *engine.Runner, s *plan.Skill, o Options) error {
	max := o.MaxIterations
	if max <= 0 {
		max = DefaultMaxIterations
	}
	l, err := newLoop(r, s, max, o.Retries, o.Backoff)
	if err != nil {
		return err
	}
	return l.run(ctx)
}
