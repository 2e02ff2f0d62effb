package orchestrator

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/skillkit/skillkit/engine"
	"github.com/skillkit/skillkit/plan"
	"github.com/skillkit/skillkit/script"
	"github.com/skillkit/skillkit/sequential"
)

// Host is the JS host of a run (package script) as the runners use it:
// JS steps, conditions and preconditions (engine.Script) and actions
// (ActionRunner).
type Host struct {
	*script.Host
	inputs map[string]string
}

// RunJS runs a JS step; its result is the whole new state, which the
// engine applies field by field.
func (h Host) RunJS(ctx context.Context, code *plan.CodeBlock, state map[string]any) (map[string]any, error) {
	return h.RunStep(ctx, code, state)
}

// Eval evaluates a condition with no host API.
func (h Host) Eval(ctx context.Context, e *plan.Expr, state map[string]any) (bool, error) {
	return script.EvalExpr(ctx, e, script.PureEnv{State: state, Inputs: h.inputs})
}

// NewHost returns the sequential.Options.NewHost of a run: a script host
// made from base (the skill and project folders, allowed paths, agent,
// answers, log, timeout) with the run's work dir, id and inputs, and the
// SKILL_* environment of its steps.
func NewHost(base script.Options) func(sequential.HostInfo) (engine.Script, []string, error) {
	return func(hi sequential.HostInfo) (engine.Script, []string, error) {
		o := base
		o.WorkDir, o.RunID, o.Inputs = hi.WorkDir, hi.RunID, hi.Inputs
		// The environment names folders that commands in other folders
		// may use.
		for _, d := range []*string{&o.WorkDir, &o.SkillDir} {
			if *d == "" {
				continue
			}
			abs, err := filepath.Abs(*d)
			if err != nil {
				return nil, nil, fmt.Errorf("starting the JS host: %w", err)
			}
			*d = abs
		}
		h, err := script.NewHost(o)
		if err != nil {
			return nil, nil, err
		}
		return Host{Host: h, inputs: hi.Inputs}, script.Env(o), nil
	}
}
