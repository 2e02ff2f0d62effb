package engine

import (
	"context"
	"fmt"

	"github.com/skillkit/skillkit/internal/agent"
	"github.com/skillkit/skillkit/internal/runstore"

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
//
// failure, when not nil, is how the action's native code failed: the
// agent takes the action over. waits, when not "", says what the loop's
// selection waits for; it goes under [RETURN].
func (r *Runner) AskAction(ctx context.Context, a *plan.Action, failure error, waits string) (string, error) {
	if err := r.o.Run.Flush(); err != nil {
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
	if failure != nil {
		prompt.Note("ACTION", fmt.Sprintf("skillkit ran this action's code as written, and it failed: %v\nDo what the action means instead.", failure))
	}
	if waits != "" {
		prompt.Note("RETURN", waits)
	}
	reply, err := r.o.Agent.Ask(ctx, prompt)
	r.log(a.ID, "# agent\n"+reply)
	return reply, err
}

// AskSelect asks the agent which action runs next, from choices: the
// selection when the skill's Decision Logic is not code skillkit runs. ok
// is false when the agent ends the loop.
func (r *Runner) AskSelect(ctx context.Context, choices []agent.Choice) (id string, ok bool, err error) {
	if r.o.Agent == nil {
		return "", false, fmt.Errorf("the skill's Decision Logic goes to the agent: %w", agent.ErrNoAgent)
	}
	if err := r.o.Run.Flush(); err != nil {
		return "", false, err
	}
	c, err := r.AgentContext(ctx)
	if err != nil {
		return "", false, err
	}
	prompt, err := agent.SelectPrompt(c, choices)
	if err != nil {
		return "", false, err
	}
	reply, err := r.o.Agent.Ask(ctx, prompt)
	r.log("select", "# agent\n"+reply)
	if err != nil {
		return "", false, err
	}
	return agent.ParseSelect(reply)
}

// AgentJudges reports whether the agent may do what skillkit would
// otherwise settle without it: take over native code that failed, leave
// outputs a phase's steps did not, judge when an action whose
// preconditions are prose is due. It needs an agent, auto mode, and no
// --strict.
func (r *Runner) AgentJudges() bool {
	return r.o.Agent != nil && !r.o.Strict && r.o.Skill.Execution != plan.ExecutionNative
}

// AskOutputs asks the agent to leave the outputs of phase ph that failed
// verification (failure says how), as one more step of the phase.
func (r *Runner) AskOutputs(ctx context.Context, ph *plan.Phase, failure error) error {
	id := ph.ID()
	if err := r.Event(runstore.Event{Phase: id, From: runstore.State(UnitVerifying), To: runstore.State(UnitVerifying), Detail: "the agent leaves the outputs: " + failure.Error()}); err != nil {
		return err
	}
	if err := r.o.Run.Flush(); err != nil {
		return err
	}
	c, err := r.AgentContext(ctx)
	if err != nil {
		return err
	}
	step := &plan.Step{Title: "Leave the phase's outputs", Pos: ph.Doc.TitlePos,
		Text: "Leave the files listed under [OUTPUTS] in the work dir, as the phase's Output section describes them, from the work of its steps."}
	prompt, err := agent.StepPrompt(c, ph, step)
	if err != nil {
		return err
	}
	prompt.ID = id + "-outputs"
	prompt.Note("STEP", "The phase's steps ran, and its outputs are not right yet:\n"+failure.Error())
	reply, err := r.o.Agent.Ask(ctx, prompt)
	r.log(id+"-outputs", "# agent\n"+reply)
	return err
}

// TakesOverAction reports whether the agent takes over an action whose
// native code failed with err: as takesOver says for a step.
func (r *Runner) TakesOverAction(ctx context.Context, a *plan.Action, err error) bool {
	return r.mayTakeOver(ctx, err) && a.Execution.Code != nil && !a.Execution.Code.Marked(plan.ExecutionNative)
}
