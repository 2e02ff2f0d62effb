package engine

import (
	"context"
	"fmt"

	"github.com/skillkit/skillkit/internal/agent"

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

// AskAction hands an agent-class action to the agent, with the state of the
// moment, and keeps its reply in the action's log: the one path by which
// an action goes to the agent.
func (r *Runner) AskAction(ctx context.Context, a *plan.Action) (string, error) {
	if err := r.Run.Flush(); err != nil {
		return "", err
	}
	c, err := r.AgentContext(ctx)
	if err != nil {
		return "", err
	}
	prompt, err := agent.ActionPrompt(c, a)
	if err != nil {
		return "", err
	}
	reply, err := r.Agent.Ask(ctx, prompt)
	r.log(a.ID, "# agent\n"+reply)
	return reply, err
}
