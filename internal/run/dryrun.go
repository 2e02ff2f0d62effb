package run

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/skillkit/skillkit/internal/agent"
	"github.com/skillkit/skillkit/internal/engine"
	"github.com/skillkit/skillkit/plan"
)

// DryRun is what a run would do: the phases and steps in order, what kind
// of work each step is, and what would go to the agent.
type DryRun struct {
	Skill string `json:"skill"`
	Mode  string `json:"mode"`
	// Resume is the run a resume would continue, empty for a new run.
	Resume string      `json:"resume,omitempty"`
	Phases []*DryPhase `json:"phases"`
	// Loop is the orchestrator loop of an autonomous or hybrid skill; nil
	// for a sequential skill.
	Loop *DryLoop `json:"loop,omitempty"`
}

// DryLoop is the orchestrator loop of a dry run: how it selects, and every
// action it may run. Which ones run, and how often, depends on the state,
// so a dry run lists them all.
type DryLoop struct {
	Selection string       `json:"selection"`
	Actions   []*DryAction `json:"actions"`
}

// DryAction is one action the loop may run.
type DryAction struct {
	ID  string   `json:"id"`
	Pos plan.Pos `json:"pos"`
	// Kind is "js", "bash" or "agent".
	Kind string `json:"kind"`
	// Class is the Execution's class: native or agent, and why.
	Class plan.Class `json:"class"`
	// Preconditions are the checkable ones as JavaScript, the others
	// marked as prose.
	Preconditions []string `json:"preconditions,omitempty"`
	// Prompt is the action's text an agent action hands the agent (with
	// the state of the moment, which a dry run cannot know).
	Prompt string `json:"prompt,omitempty"`
}

// DryPhase is one phase of a dry run.
type DryPhase struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	// Done is set for a phase a resume would pass over.
	Done           bool           `json:"done,omitempty"`
	IsOrchestrator bool           `json:"isOrchestrator,omitempty"`
	Steps          []*DryStep     `json:"steps,omitempty"`
	Outputs        []*plan.Output `json:"outputs,omitempty"`
}

// DryStep is one step of a dry run.
type DryStep struct {
	ID    string   `json:"id"`
	Title string   `json:"title"`
	Pos   plan.Pos `json:"pos"`
	// Kind is plan.Step.KindLabel: "bash", "js", "bash+js" or "agent".
	Kind string `json:"kind"`
	// Class is the step's class: native or agent, and why.
	Class     plan.Class `json:"class"`
	Condition string     `json:"condition,omitempty"`
	Confirm   string     `json:"confirm,omitempty"`
	OnError   string     `json:"onError,omitempty"`
	Timeout   string     `json:"timeout,omitempty"`
	// Review is set for a checkpoint a worker stops at for review.
	Review bool `json:"review,omitempty"`
	// Done is set for a step a resume would not run again.
	Done bool `json:"done,omitempty"`
	// Prompt is what an agent step would send the agent.
	Prompt string `json:"prompt,omitempty"`
}

// Plan says what Run would do with the same options, and neither runs nor
// writes anything. With Resume set it reads that run to mark what is done.
func Plan(o Options) (*DryRun, error) {
	s := o.Skill
	if s == nil {
		return nil, fmt.Errorf("dry run: no skill: %w", ErrInvalid)
	}
	phases, err := phasesOf(s)
	if err != nil {
		return nil, err
	}
	d := &DryRun{Skill: s.Name, Mode: string(s.Mode)}
	done := map[string]bool{}
	state := s.InitialState(time.Now())
	workDir := o.WorkDir
	if workDir == "" {
		workDir = "<the new run's work dir>"
	}
	args, session := o.Args, "<the new run's session id>"
	if o.Resume != "" {
		sum, err := resumable(o)
		if err != nil {
			return nil, err
		}
		p := sum.Progress
		for st := range p.CompletedSteps.All() {
			if st.Done() {
				done[st.ID] = true
			}
		}
		for _, id := range p.CompletedPhases {
			done[id] = true
		}
		state, workDir, d.Resume = sum.LastState, sum.WorkDir, p.RunID
		args, session = p.Args, sessionOf(p)
	}
	// Context commands never run in a dry run: the prompts show them as
	// written.
	vars := VarsOf(s, args, session)
	actx := agent.Context{
		Skill: s.Name, SkillDir: vars.SkillDir, WorkDir: workDir, State: state,
		Instructions: vars.Instructions(s.Instructions),
		Expand:       func(text string) (string, error) { return vars.Substitute(text), nil },
	}
	for _, ph := range phases {
		id := ph.ID()
		dp := &DryPhase{ID: id, Title: ph.Title, Done: done[id], IsOrchestrator: ph.IsOrchestrator, Outputs: ph.Outputs}
		for j, st := range ph.Steps {
			ds := &DryStep{ID: engine.StepID(id, j), Title: st.Title, Pos: st.Pos, Kind: st.KindLabel(), Class: st.Class}
			ds.Done = done[ds.ID]
			a := st.Attrs
			if a.Condition != nil {
				ds.Condition = a.Condition.Text
			}
			if a.Confirm != nil {
				ds.Confirm = fmt.Sprintf("%s (default: %s)", a.Confirm.Question, a.Confirm.Default)
			}
			if a.OnError != nil {
				ds.OnError = onErrorText(a.OnError)
			}
			if a.Timeout != nil {
				ds.Timeout = a.Timeout.Duration.String()
			}
			ds.Review = a.Review != nil
			if st.Kind() == plan.StepAgent {
				p, err := agent.StepPrompt(actx, ph, st)
				if err != nil {
					return nil, err
				}
				ds.Prompt = p.Text(true)
			}
			dp.Steps = append(dp.Steps, ds)
		}
		d.Phases = append(d.Phases, dp)
	}
	if s.Mode == plan.ModeAutonomous || s.Mode == plan.ModeHybrid {
		if d.Loop, err = dryLoop(s, actx); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// dryLoop describes the loop for a dry run: the selection, and every
// action with its kind, its preconditions and what an agent action sends.
func dryLoop(s *plan.Skill, actx agent.Context) (*DryLoop, error) {
	l := &DryLoop{Selection: "the first action, in catalog order and by Priority, whose preconditions hold"}
	if o := s.Orchestrator; o != nil && o.Decision != nil {
		l.Selection = "selectNextAction at " + o.Decision.Pos.String()
	}
	for _, a := range s.Actions {
		da := &DryAction{ID: a.ID, Pos: a.Execution.Pos, Kind: string(a.Execution.Kind), Class: a.Execution.Class}
		if a.Execution.Kind == plan.ExecProse {
			da.Kind = "agent"
		}
		if a.Execution.ToAgent() {
			p, err := agent.ActionPrompt(actx, a)
			if err != nil {
				return nil, err
			}
			da.Prompt = p.Text(true)
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
	return l, nil
}

func onErrorText(e *plan.OnError) string {
	switch {
	case e.Policy != plan.OnErrorRetry:
		return string(e.Policy)
	case e.Backoff > 0:
		return fmt.Sprintf("retry %d backoff %v", e.Retries, e.Backoff)
	}
	return fmt.Sprintf("retry %d", e.Retries)
}

// Write prints the dry run for a person. Agent prompts are shown indented,
// or noted as needing --agent when the run has none.
func (d *DryRun) Write(w io.Writer, hasAgent bool) error {
	var b strings.Builder
	fmt.Fprintf(&b, "dry run of %s (%s): nothing is executed or written\n", d.Skill, d.Mode)
	if d.Resume != "" {
		fmt.Fprintf(&b, "resuming run %s: done steps are marked [done]\n", d.Resume)
	}
	for i, ph := range d.Phases {
		mark := ""
		if ph.Done {
			mark = " [done]"
		}
		fmt.Fprintf(&b, "\nphase %d/%d %s: %s%s\n", i+1, len(d.Phases), ph.ID, ph.Title, mark)
		if ph.IsOrchestrator {
			b.WriteString("  runs the orchestrator (autonomous loop)\n")
			if d.Loop != nil {
				d.Loop.write(&b, hasAgent)
			}
		}
		if len(ph.Steps) == 0 && !ph.IsOrchestrator {
			b.WriteString("  no steps\n")
		}
		for _, st := range ph.Steps {
			mark := ""
			if st.Done {
				mark = " [done]"
			}
			fmt.Fprintf(&b, "  step %s %s: %s%s\n", st.ID, st.Title, st.Kind, mark)
			writeClass(&b, st.Class)
			for _, attr := range [][2]string{{"condition", st.Condition}, {"confirm", st.Confirm}, {"on error", st.OnError}, {"timeout", st.Timeout}} {
				if attr[1] != "" {
					fmt.Fprintf(&b, "    %s: %s\n", attr[0], attr[1])
				}
			}
			if st.Review {
				b.WriteString("    review: required (a worker stops here for review)\n")
			}
			writePrompt(&b, st.Prompt, hasAgent)
		}
		for _, o := range ph.Outputs {
			desc := o.File
			if o.Format != "" {
				desc += " (" + o.Format + ")"
			}
			if o.Schema != "" {
				desc += " against " + o.Schema
			}
			fmt.Fprintf(&b, "  verifies output %s\n", desc)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func (l *DryLoop) write(b *strings.Builder, hasAgent bool) {
	fmt.Fprintf(b, "  selection: %s\n", l.Selection)
	for _, a := range l.Actions {
		fmt.Fprintf(b, "  action %s: %s\n", a.ID, a.Kind)
		writeClass(b, a.Class)
		for _, p := range a.Preconditions {
			fmt.Fprintf(b, "    when: %s\n", p)
		}
		writePrompt(b, a.Prompt, hasAgent)
	}
}

// writeClass says how a step or action runs and why; for agent work it
// adds where the reason is, which is what an author would change.
func writeClass(b *strings.Builder, c plan.Class) {
	if c.Kind == plan.ClassAgent {
		fmt.Fprintf(b, "    %s: %s (%s)\n", c.Kind, c.Reason, c.Pos)
		return
	}
	fmt.Fprintf(b, "    %s: %s\n", c.Kind, c.Reason)
}

// writePrompt shows what would go to the agent, and says so when there is
// no agent to send it to.
func writePrompt(b *strings.Builder, prompt string, hasAgent bool) {
	if prompt == "" {
		return
	}
	if !hasAgent {
		b.WriteString("    needs an agent (--agent CMD); it would be sent:\n")
	} else {
		b.WriteString("    to the agent:\n")
	}
	for _, l := range strings.Split(strings.TrimRight(prompt, "\n"), "\n") {
		fmt.Fprintf(b, "      | %s\n", l)
	}
}
