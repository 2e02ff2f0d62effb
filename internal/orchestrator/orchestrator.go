// Package orchestrator runs autonomous and hybrid skills: the loop of
// DESIGN §3.5 that selects an action from the state (selectNextAction, or
// the action catalog's preconditions), runs it through the shared engine,
// applies its state updates and validates them against the state schema,
// until the selection ends.
//
// A run of any mode goes through Run: a sequential skill is handed to the
// sequential runner as it is; an autonomous skill runs as one orchestrator
// phase; a hybrid skill runs its numbered phases in order with the loop in
// the orchestrator's place. Every mode shares the run directory, claims,
// events, hooks, retries and resume of package sequential and engine.
package orchestrator

import (
	"context"
	"fmt"

	"github.com/skillkit/skillkit/internal/engine"
	"github.com/skillkit/skillkit/internal/sequential"
	"github.com/skillkit/skillkit/plan"
)

// DefaultMaxIterations bounds the loop when Options.MaxIterations is zero.
const DefaultMaxIterations = 100

// Options configure a run. The embedded sequential options are those of
// every run (skill, work dir, resume, inputs, agent, host, output); the
// rest tune the loop.
type Options struct {
	sequential.Options
	// MaxIterations is how many actions the loop may start in one run,
	// resumes included, before it fails for want of progress; zero means
	// DefaultMaxIterations.
	MaxIterations int
	// Retries is how many more times a failing action is tried (with the
	// engine's doubling backoff) before it counts as failed.
	Retries int
}

// Run runs a skill of any mode, or resumes a run of it, to a terminal
// state. Its result and errors are those of sequential.Run: an
// *engine.RunError for a run that failed (engine.ExitCode gives 1),
// was aborted or interrupted; engine.ErrInvalid for a skill that cannot
// start.
func Run(ctx context.Context, o Options) (*sequential.Result, error) {
	so, err := o.sequential()
	if err != nil {
		return nil, err
	}
	return sequential.Run(ctx, so)
}

// Plan says what Run would do, running and writing nothing (--dry-run).
// An autonomous skill shows as its one orchestrator phase.
func Plan(o Options) (*sequential.DryRun, error) {
	so, err := o.sequential()
	if err != nil {
		return nil, err
	}
	d, err := sequential.Plan(so)
	if err != nil || o.Skill.Mode == plan.ModeSequential {
		return d, err
	}
	d.Loop = dryLoop(o.Skill)
	return d, nil
}

// dryLoop describes the loop for a dry run: the selection, and every
// action with its kind, its preconditions and what an agent action sends.
func dryLoop(s *plan.Skill) *sequential.DryLoop {
	l := &sequential.DryLoop{Selection: "the first action, in catalog order and by Priority, whose preconditions hold"}
	if o := s.Orchestrator; o != nil && o.Decision != nil {
		l.Selection = "selectNextAction at " + o.Decision.Pos.String()
	}
	for _, a := range s.Actions {
		da := &sequential.DryAction{ID: a.ID, Pos: a.Execution.Pos, Kind: a.Execution.Kind}
		if a.Execution.Kind == plan.ExecProse {
			da.Kind = "agent"
			da.Prompt = a.Execution.Text
		}
		for _, p := range a.Preconditions {
			if p.Checkable() {
				da.Preconditions = append(da.Preconditions, p.JS)
			} else {
				da.Preconditions = append(da.Preconditions, "(prose, not checked) "+p.Text)
			}
		}
		l.Actions = append(l.Actions, da)
	}
	return l
}

// sequential turns the options into the sequential runner's: for a skill
// with an orchestrator, the loop takes the orchestrator phase.
func (o Options) sequential() (sequential.Options, error) {
	so := o.Options
	s := so.Skill
	if s == nil {
		return so, fmt.Errorf("run: no skill: %w", engine.ErrInvalid)
	}
	switch s.Mode {
	case plan.ModeSequential:
		return so, nil
	case plan.ModeAutonomous:
		so.Skill = withLoopPhase(s)
		if v := so.Validate; v != nil {
			// Lint sees the skill as it is, not the phase added to run it.
			so.Validate = func(*plan.Skill) error { return v(s) }
		}
	case plan.ModeHybrid:
	default:
		return so, fmt.Errorf("%s: the skill has no numbered phase, orchestrator or action to run (mode %s): %w", s.Dir, s.Mode, engine.ErrInvalid)
	}
	max := o.MaxIterations
	if max <= 0 {
		max = DefaultMaxIterations
	}
	so.Orchestrate = func(ctx context.Context, r *engine.Runner, ph *plan.Phase) error {
		l, err := newLoop(r, s, max, o.Retries, o.Backoff)
		if err != nil {
			return err
		}
		return l.run(ctx)
	}
	return so, nil
}

// withLoopPhase is an autonomous skill with one phase, the orchestrator,
// so that the phase runner runs the loop as it runs a hybrid skill's.
// The phase is named after the orchestrator file ("orchestrator").
func withLoopPhase(s *plan.Skill) *plan.Skill {
	c := *s
	doc := &plan.Doc{File: "phases/orchestrator.md", Title: "Orchestrator"}
	if s.Orchestrator != nil && s.Orchestrator.Doc != nil {
		doc = s.Orchestrator.Doc
	}
	title := doc.Title
	if title == "" {
		title = "Orchestrator"
	}
	c.Phases = []*plan.Phase{{Doc: doc, Title: title, IsOrchestrator: true}}
	return &c
}
