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

// DefaultMaxSameFailures is Options.MaxSameFailures when zero.
const DefaultMaxSameFailures = 3

// Options tune the loop.
type Options struct {
	// MaxIterations is how many actions the loop may start in one run,
	// resumes included, before it fails for want of progress; zero means
	// DefaultMaxIterations.
	MaxIterations int
	// Retries is how many more times a failing action is tried (with the
	// engine's doubling backoff) before it counts as failed; Backoff is
	// the first wait. Zero leaves it to worker.yaml's max_retries.
	Retries int
	Backoff time.Duration
	// MaxSameFailures is how many times in a row one action may fail with
	// the same error, in a skill that handles failures, before the run
	// fails; zero means DefaultMaxSameFailures.
	MaxSameFailures int
}

// Run runs the loop of skill s in the run r until the selection ends, the
// skill's status is final, or an action fails for good.
func Run(ctx context.Context, r *engine.Runner, s *plan.Skill, o Options) error {
	if o.MaxIterations <= 0 {
		o.MaxIterations = DefaultMaxIterations
	}
	if o.MaxSameFailures <= 0 {
		o.MaxSameFailures = DefaultMaxSameFailures
	}
	l, err := newLoop(r, s, o)
	if err != nil {
		return err
	}
	return l.run(ctx)
}
