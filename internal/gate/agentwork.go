package gate

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/skillkit/skillkit/internal/engine"
	"github.com/skillkit/skillkit/plan"
)

// Work is a piece of a skill that goes to the agent: a step, the
// Decision Logic or an action.
type Work struct {
	// Pos is where the work is, relative to the skill folder (the code
	// its reason is about, where there is one); Reason why it is the
	// agent's.
	Pos    plan.Pos
	Reason string
	// What names it: "step 01-a#2 Count", "the Decision Logic",
	// "action action-fix".
	What string
	// Sure is set when a run is sure to reach it: a step with no
	// condition that could skip it, or the Decision Logic, which the
	// loop's first selection runs. An action runs only if selected.
	Sure bool
}

// AgentWork lists the agent work of a skill in the order a run meets it:
// the steps of its phases, then its loop's Decision Logic and actions. A
// step under a condition skillkit evaluates may be skipped and is not
// Sure; a prose condition runs its step, as the runtime does.
func AgentWork(s *plan.Skill) []Work {
	var out []Work
	for _, ph := range s.Phases {
		for i, st := range ph.Steps {
			if st.Kind() != plan.StepAgent {
				continue
			}
			out = append(out, Work{Pos: where(st.Class, st.Pos), Reason: engine.AgentReason(st), What: fmt.Sprintf("step %s %s", engine.StepID(ph.ID(), i), st.Title),
				Sure: !st.Attrs.Condition.Checkable()})
		}
	}
	if o := s.Orchestrator; o != nil && o.Decision != nil && o.Class.Kind == plan.ClassAgent {
		out = append(out, Work{Pos: where(o.Class, o.Decision.Pos), Reason: o.Class.Reason, What: "the Decision Logic", Sure: true})
	}
	for _, a := range s.Actions {
		if e := a.Execution; e.Class.Kind == plan.ClassAgent {
			out = append(out, Work{Pos: where(e.Class, e.Pos), Reason: e.Class.Reason, What: "action " + a.ID})
		}
	}
	return out
}

// where is the position of what a class's reason is about, else of the
// work itself: the undefined name rather than the step's heading.
func where(c plan.Class, work plan.Pos) plan.Pos {
	if c.Pos.Line > 0 {
		return c.Pos
	}
	return work
}

// ErrNeedsAgent is what the gate's refusal of a run without an agent
// wraps.
var ErrNeedsAgent = errors.New("this run has no agent")

// maxListed is how many pieces of agent work a refusal lists.
const maxListed = 20

// needsAgent refuses a skill whose run without an agent is sure to reach
// agent work, listing each such piece at file:line with its reason, and
// the fixes; with partial it notes them instead. The actions a loop may
// select, and steps a condition may skip, are noted, not refused: whether
// they run is the run's choice.
func needsAgent(w io.Writer, s *plan.Skill, partial bool) error {
	var sure []Work
	for _, wk := range AgentWork(s) {
		switch {
		case wk.Sure && !partial:
			sure = append(sure, wk)
		case wk.Sure:
			if _, err := fmt.Fprintf(w, "note: %s: %s needs the agent: %s; --partial stops there\n", at(s, wk.Pos), wk.What, wk.Reason); err != nil {
				return err
			}
		default:
			if _, err := fmt.Fprintf(w, "note: %s: %s may go to the agent: %s\n", at(s, wk.Pos), wk.What, wk.Reason); err != nil {
				return err
			}
		}
	}
	if len(sure) == 0 {
		return nil
	}
	for i, wk := range sure {
		if i == maxListed {
			// A skill of thousands of prose steps would bury the fixes.
			if _, err := fmt.Fprintf(w, "… and %d more\n", len(sure)-maxListed); err != nil {
				return err
			}
			break
		}
		if _, err := fmt.Fprintf(w, "%s: %s needs the agent: %s\n", at(s, wk.Pos), wk.What, wk.Reason); err != nil {
			return err
		}
	}
	return fmt.Errorf("%w, and %d piece(s) of work above need one; nothing ran. Either\n"+
		"  pass --agent claude (or codex, or a command that reads the prompt on stdin; or set SKILLKIT_AGENT),\n"+
		"  mark the code native (```js native) where it runs as written, or\n"+
		"  pass --partial to run up to the first of them and resume later with --agent", ErrNeedsAgent, len(sure))
}

// at is p as the user can open it: under the skill's folder as they named
// it.
func at(s *plan.Skill, p plan.Pos) plan.Pos {
	p.File = filepath.Join(s.Dir, p.File)
	return p
}
