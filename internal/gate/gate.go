// Package gate decides whether a run of a skill may start (docs/runtime.md,
// "The run gate"): the lint errors that make a skill unrunnable, --strict's
// refusal of any lint error and of code that goes to the agent, and, for a
// run with no agent, the agent work its sequential path is sure to reach.
// The CLI's run, the worker and `skillkit mcp serve` all start runs through
// it, so they refuse the same skills with the same words.
package gate

import (
	"fmt"
	"io"

	"github.com/skillkit/skillkit/internal/engine"
	"github.com/skillkit/skillkit/lint"
	"github.com/skillkit/skillkit/plan"
)

// Options configure the gate.
type Options struct {
	// Base is the folder lint findings are shown relative to.
	Base string
	// Strict refuses a skill with any lint error, and one whose code goes
	// to the agent (--strict).
	Strict bool
	// NoAgent says the run has no agent (run without --agent): a skill
	// whose run is sure to reach agent work is refused before anything
	// runs, and the agent work it may reach is noted. The worker leaves
	// it off: a task of such a skill stops at the step, resumable, for a
	// worker with an agent.
	NoAgent bool
	// Partial lets a run with NoAgent start although it is sure to reach
	// agent work: it stops there on purpose, resumable (--partial). The
	// work is noted instead.
	Partial bool
	// Out receives the findings the gate prints (as lint prints them) and
	// its notes; nil discards them.
	Out io.Writer
}

// Validator is the gate as internal/run's Options.Validate wants it.
func (o Options) Validator() func(*plan.Skill) error {
	return func(s *plan.Skill) error { return Check(s, o) }
}

// Check is the run gate: it refuses a skill with lint errors that make it
// unrunnable, printing them as lint would, and prints the other lint
// errors as warnings. With Strict it refuses on any lint error, and on
// code that goes to the agent. With NoAgent it refuses a skill whose run
// would reach agent work, and notes the loop's agent work.
func Check(s *plan.Skill, o Options) error {
	out := o.Out
	if out == nil {
		out = io.Discard
	}
	findings, err := lint.Check(s, o.Base)
	if err != nil {
		return err
	}
	refused := &lint.Result{Base: o.Base, Skills: []string{s.Dir}}
	warned := &lint.Result{Base: o.Base, Skills: []string{s.Dir}}
	for _, f := range findings {
		switch {
		case f.Severity != plan.SevError:
		case o.Strict || lint.Unrunnable(f.Rule):
			refused.Findings = append(refused.Findings, f)
		default:
			// For this run the error is a warning: its step goes to the
			// agent, or the run does without what the finding names.
			f.Severity = plan.SevWarning
			warned.Findings = append(warned.Findings, f)
		}
	}
	if len(warned.Findings) > 0 {
		if err := lint.WriteText(out, warned, lint.TextOptions{}); err != nil {
			return err
		}
	}
	if len(refused.Findings) > 0 {
		if err := lint.WriteText(out, refused, lint.TextOptions{}); err != nil {
			return err
		}
		if o.Strict {
			return fmt.Errorf("%d lint error(s) above; --strict refuses a skill with lint errors", len(refused.Findings))
		}
		return fmt.Errorf("%d lint error(s) above make the skill unrunnable", len(refused.Findings))
	}
	if o.Strict {
		if err := agentCode(out, s); err != nil {
			return err
		}
	}
	if o.NoAgent {
		return needsAgent(out, s, o.Partial)
	}
	return nil
}

// agentCode refuses a skill whose code goes to the agent, for --strict:
// one line per agent-class step or action that has code, with where and
// why. Prose is the agent's by nature and passes.
func agentCode(w io.Writer, s *plan.Skill) error {
	n := 0
	report := func(what string, c plan.Class) error {
		n++
		_, err := fmt.Fprintf(w, "%s: %s goes to the agent: %s\n", c.Pos, what, c.Reason)
		return err
	}
	for _, ph := range s.Phases {
		for i, st := range ph.Steps {
			if st.Class.Kind != plan.ClassAgent || len(st.Runnable()) == 0 {
				continue
			}
			if err := report(fmt.Sprintf("step %s %s", engine.StepID(ph.ID(), i), st.Title), st.Class); err != nil {
				return err
			}
		}
	}
	for _, a := range s.Actions {
		if e := a.Execution; e.Class.Kind == plan.ClassAgent && e.Code != nil {
			if err := report("action "+a.ID, e.Class); err != nil {
				return err
			}
		}
	}
	if n > 0 {
		return fmt.Errorf("%d step(s) or action(s) above have code that goes to the agent; --strict runs only native code", n)
	}
	return nil
}
