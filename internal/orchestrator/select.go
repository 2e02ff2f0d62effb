package orchestrator

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/skillkit/skillkit/internal/agent"
	"github.com/skillkit/skillkit/internal/script"
	"github.com/skillkit/skillkit/plan"
)

// selector picks the next action from the state (DESIGN §1.3):
// selectNextAction when the orchestrator has Decision Logic, else the
// first candidate whose checkable preconditions all hold.
type selector struct {
	skill *plan.Skill
	// candidates are the actions of declarative selection, in the order
	// they are tried, and the catalog the agent selects from.
	candidates []candidate
	// byAgent is set when the agent selects (ask): the skill's Decision
	// Logic is not code skillkit runs (its class is agent), or, in a run
	// with an agent, a candidate is due on a precondition in prose.
	byAgent bool
	ask     func(ctx context.Context, choices []agent.Choice) (id string, ok bool, err error)
}

// candidate is an action of declarative selection with every
// precondition it must meet: its catalog row's and its file's.
type candidate struct {
	action *plan.Action
	pre    []*plan.Precondition
	// once is set when no precondition can be checked: the action runs at
	// most once.
	once bool
	// purpose is what the catalog row says the action is for.
	purpose string
}

// newSelector prepares selection. Declarative candidates are
// plan.Skill.Candidates: the actions the catalog's rows resolve to
// (an unfiled action too), highest Priority first, or every action when
// there is no catalog.
//
// When the agent judges (engine.Runner.AgentJudges: an agent, auto mode,
// no --strict), a declarative selection with a candidate whose
// preconditions include prose ("needs debugging", "all done") is the
// agent's: only a model can tell when such an action is due, and
// counting the prose as true would select the first of them forever.
// Otherwise prose counts as true (DESIGN §1.2).
func newSelector(s *plan.Skill, agentJudges bool) *selector {
	sel := &selector{skill: s}
	if o := s.Orchestrator; o != nil && o.Decision != nil {
		if o.Class.Kind != plan.ClassAgent {
			return sel
		}
		sel.byAgent = true
	}
	for _, pc := range s.Candidates() {
		c := candidate{action: pc.Action, pre: pc.Pre, once: !checkable(pc.Pre)}
		if pc.Row != nil {
			c.purpose = pc.Row.Purpose
		}
		sel.candidates = append(sel.candidates, c)
		sel.byAgent = sel.byAgent || agentJudges && plan.Prose(c.pre)
	}
	return sel
}

// resolve is the action a name selectNextAction (at pos) returned refers
// to: an action file, else an unfiled action when it is written as a
// name. Prose is no action.
func resolve(s *plan.Skill, id string, pos plan.Pos) (*plan.Action, error) {
	if a := s.ResolveAction(id); a != nil {
		return a, nil
	}
	if a := s.UnfiledAction(id, pos); a != nil {
		return a, nil
	}
	return nil, fmt.Errorf("%s: selectNextAction returned %q, which is no action of the skill", pos, id)
}

func checkable(ps []*plan.Precondition) bool {
	for _, p := range ps {
		if p.Checkable() || checkable(p.AnyOf) {
			return true
		}
	}
	return false
}

// next returns the action to run, or nil when the selection ends. It
// selects over the state of t, in t's runtime.
func (sel *selector) next(ctx context.Context, t *script.Turn, state map[string]any) (*plan.Action, error) {
	if sel.byAgent {
		return sel.agentSelects(ctx, t)
	}
	if o := sel.skill.Orchestrator; o != nil && o.Decision != nil {
		id, ok, err := t.SelectNextAction(ctx, o)
		if err != nil || !ok {
			return nil, err
		}
		return resolve(sel.skill, id, o.Decision.Pos)
	}
	decls := sel.decls()
	done := completed(state)
	// A precondition that throws (a typo, a field not there yet) does not
	// hold; the errors matter only when nothing can be selected.
	var errs []error
	for _, c := range sel.candidates {
		if c.once {
			if !slices.Contains(done, c.action.ID) {
				return c.action, nil
			}
			continue
		}
		ok, err := t.Preconditions(ctx, c.pre, decls)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("preconditions of %s: %w", c.action.ID, err))
			continue
		}
		if ok {
			return c.action, nil
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("no action can be selected, and some preconditions failed: %w", errors.Join(errs...))
	}
	return nil, nil
}

// agentSelects asks the agent which catalog action runs next, telling it
// whether each one's checkable preconditions hold. The answer must be an
// action of the catalog, or null.
func (sel *selector) agentSelects(ctx context.Context, t *script.Turn) (*plan.Action, error) {
	decls := sel.decls()
	choices := make([]agent.Choice, 0, len(sel.candidates))
	ids := make([]string, 0, len(sel.candidates))
	for _, c := range sel.candidates {
		ch := agent.Choice{ID: c.action.ID, Purpose: cmp.Or(c.purpose, c.action.Purpose, c.action.Title)}
		if !c.once {
			// A precondition that throws is not known to hold or fail.
			if ok, err := t.Preconditions(ctx, c.pre, decls); err == nil {
				ch.Ready = &ok
			} else if ctx.Err() != nil {
				return nil, ctx.Err()
			}
		}
		choices = append(choices, ch)
		ids = append(ids, c.action.ID)
	}
	id, ok, err := sel.ask(ctx, choices)
	if err != nil || !ok {
		return nil, err
	}
	a := sel.skill.ResolveAction(id)
	for _, c := range sel.candidates {
		if a == c.action || (a == nil && plan.IsActionName(id) && plan.MissingActionFile(id) == c.action.ID) {
			return c.action, nil
		}
	}
	return nil, fmt.Errorf("%s: the agent selected %q, which is not an action of the catalog (%s)",
		selectionPos(sel.skill), id, strings.Join(ids, ", "))
}

// decls are the blocks whose declarations preconditions have in scope:
// the orchestrator's.
func (sel *selector) decls() []*plan.CodeBlock {
	if o := sel.skill.Orchestrator; o != nil {
		return o.Declarations
	}
	return nil
}

// completed is the state's completed_actions.
func completed(state map[string]any) []string {
	list, _ := state["completed_actions"].([]any)
	out := make([]string, 0, len(list))
	for _, v := range list {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
