package engine

import (
	"fmt"
	"slices"

	"github.com/skillkit/skillkit/agent"
	"github.com/skillkit/skillkit/plan"
)

// ActionError is an action of the autonomous loop that failed for good:
// its retries ran out, or its state update was refused.
type ActionError struct {
	Action string
	// Pos is where the failure is, when the error does not say already.
	Pos plan.Pos
	Err error
}

func (e *ActionError) Error() string {
	if e.Pos.IsValid() {
		return fmt.Sprintf("%s: action %s: %v", e.Pos, e.Action, e.Err)
	}
	return fmt.Sprintf("action %s: %v", e.Action, e.Err)
}

func (e *ActionError) Unwrap() error { return e.Err }

// Log appends text to the run's logs/<name>.log (as steps do with their
// output) and reports whether it held anything beyond its first line.
func (r *Runner) Log(name, text string) bool { return r.log(name, text) }

// WorkAgent is the run's agent ready for work: an *agent.Agent made before
// the run directory existed (as the CLI makes it) gets the work dir as its
// folder when it has none, and the run's SKILL_* environment (DESIGN §3.4).
// Nil when the run has no agent.
func (r *Runner) WorkAgent() Agent {
	a, ok := r.Agent.(*agent.Agent)
	switch {
	case !ok:
		return r.Agent
	case a == nil:
		return nil
	}
	c := *a
	if c.Dir == "" {
		c.Dir = r.Run.Dir
	}
	c.Env = append(slices.Clone(r.Env), a.Env...)
	return &c
}
