package agent

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/skillkit/skillkit/plan"
)

// Context is what every prompt of a run says about the run.
type Context struct {
	Skill string
	// SkillDir and WorkDir are absolute.
	SkillDir string
	WorkDir  string
	// Instructions is the SKILL.md body, expanded: the [CONTEXT] section.
	Instructions string
	// State is the skill's state; the requests that show it ([STATE])
	// need it.
	State map[string]any
	// Expand turns the skill's text into what the agent receives
	// (Claude Code's substitutions, context commands); nil sends it as
	// written.
	Expand func(string) (string, error)
}

// Task is a Task or Agent call of skill code.
type Task struct {
	Description  string
	SubagentType string
	Prompt       string
}

// Choice is one action the agent may select, with whether its checkable
// preconditions hold (nil: they cannot be checked).
type Choice struct {
	ID      string
	Purpose string
	Ready   *bool
}

// Prompt is one request to the agent: plain text in sections, each opened
// by a line [NAME] (DESIGN §3.4).
type Prompt struct {
	Request Request
	// ID is what the prompt is for: the step's id (01-collect#2), the
	// action's, "select", "task", or a phase's id with "-outputs". A
	// cassette files the exchange under it, and a replay names it when
	// nothing recorded matches.
	ID       string
	sections []section
}

type section struct{ name, body string }

// contextSection names the section that a conversation needs only once.
const contextSection = "CONTEXT"

// Text renders the prompt; withContext false leaves [CONTEXT] out, for an
// agent that has it from earlier in the conversation.
func (p *Prompt) Text(withContext bool) string {
	var b strings.Builder
	for _, s := range p.sections {
		if s.name == contextSection && !withContext {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "[%s]\n%s\n", s.name, strings.TrimRight(s.body, "\n"))
	}
	return b.String()
}

// Note adds a paragraph at the end of section name (appending the section
// when the prompt lacks it): what skillkit saw that the agent needs, such
// as the failure of the step's code when skillkit ran it.
func (p *Prompt) Note(name, text string) {
	for i := range p.sections {
		if p.sections[i].name == name {
			p.sections[i].body = strings.TrimRight(p.sections[i].body, "\n") + "\n\n" + text
			return
		}
	}
	p.add(name, text)
}

// add appends a section; one with nothing to say is left out.
func (p *Prompt) add(name, body string) {
	if strings.TrimSpace(body) != "" {
		p.sections = append(p.sections, section{name, body})
	}
}

// handoff adds [HANDOFF] before [RETURN], which stays last: the request
// to write the hand-off, with the context used (pct) and the exit
// threshold.
func (p *Prompt) handoff(pct, exit int) {
	h := section{"HANDOFF", fmt.Sprintf(handoffText, pct, exit)}
	// A prompt asked again (a retried step) says it once.
	p.sections = slices.DeleteFunc(p.sections, func(s section) bool { return s.name == h.name })
	i := len(p.sections)
	if i > 0 && p.sections[i-1].name == "RETURN" {
		i--
	}
	p.sections = slices.Insert(p.sections, i, h)
}

// The [RETURN] texts: what the answer must hold.
const (
	returnStep = "Do the step in the work dir. If the step changes the state, end your reply with a JSON " +
		"object holding a \"stateUpdates\" field, e.g. {\"stateUpdates\": {\"files_counted\": true}}; " +
		"otherwise just report what you did."
	returnAction = "Do the action in the work dir. Then end your reply with a JSON object holding a " +
		"\"stateUpdates\" field: the changes to apply to the state, e.g.\n" +
		"```json\n{\"stateUpdates\": {\"status\": \"running\"}}\n```\n" +
		"Keys may be dotted paths (\"context.files\"). The last such object in your reply is used."
	returnSelect = "Choose the action to run next from [ACTIONS]. End your reply with {\"action\": \"<id>\"}, " +
		"or {\"action\": null} when no action should run."
	returnTask    = "Do the task. Your reply, as it is, is returned to the skill's code."
	returnConfirm = "Answer with one word on the last line: yes (run the step) or skip (do not run it)."
	// handoffText asks for the hand-off of the musician specification
	// once the conversation's context is past context_handoff.
	handoffText = "The conversation has used %d%% of your context window; at %d%% this run stops. " +
		"As part of this reply, also write " + HandoffFile + " in the work dir (replace it if it exists) for " +
		"whoever takes the work up: what is done, what remains, and where the state is (files, the " +
		"skill's state). Then do the request as asked."
	// guidance heads the code of an agent step: the code shows what to
	// do, in a form skillkit could not run.
	guidance = "The code below is guidance for you, not a script to run as written: do what it means with your own tools."
)

// schemaOf is the JSON Schema of the answer to a request that must be
// JSON, for an adapter that can enforce it; "" for free text.
func schemaOf(r Request) string {
	switch r {
	case RequestAction:
		return `{"type":"object","properties":{"stateUpdates":{"type":"object"}},"required":["stateUpdates"]}`
	case RequestSelect:
		return `{"type":"object","properties":{"action":{"type":["string","null"]}},"required":["action"]}`
	case RequestConfirm:
		return `{"type":"object","properties":{"answer":{"type":"string","enum":["yes","skip"]}},"required":["answer"]}`
	}
	return ""
}

// begin starts a prompt with the sections every request has.
func (c Context) begin(r Request) *Prompt {
	p := &Prompt{Request: r}
	p.add("SKILL", c.Skill)
	p.add("SKILL_DIR", c.SkillDir)
	p.add("WORK_DIR", c.WorkDir)
	p.add(contextSection, c.Instructions)
	return p
}

// expand runs the skill's text through Expand.
func (c Context) expand(text string) (string, error) {
	if c.Expand == nil {
		return text, nil
	}
	return c.Expand(text)
}

// state adds [STATE].
func (c Context) state(p *Prompt) error {
	data, err := json.MarshalIndent(c.State, "", "  ")
	if err != nil {
		return fmt.Errorf("writing the state into the agent prompt: %w", err)
	}
	p.add("STATE", string(data))
	return nil
}

// StepPrompt is the prompt of an agent step of phase ph: the phase's
// objective and input, the step's text with its code labelled as
// guidance, the state and the files the phase must leave.
func StepPrompt(c Context, ph *plan.Phase, step *plan.Step) (*Prompt, error) {
	p := c.begin(RequestStep)
	head := ph.ID()
	if ph.Title != "" {
		head += ": " + ph.Title
	}
	parts := []string{head}
	for _, s := range []struct{ name, text string }{{"Objective", ph.Objective}, {"Input", ph.Input}} {
		if s.text != "" {
			t, err := c.expand(s.text)
			if err != nil {
				return nil, err
			}
			parts = append(parts, s.name+":\n"+t)
		}
	}
	p.add("PHASE", strings.Join(parts, "\n\n"))
	body, line := stepBody(step)
	text, err := c.expand(body)
	if ce, ok := err.(*CommandError); ok && line > 0 {
		// Told at the command's line of the phase file, not at the
		// step's heading the run's error begins with.
		return nil, &At{Pos: plan.Pos{File: step.Pos.File, Line: line + ce.Line - 1}, Err: err}
	}
	if err != nil {
		return nil, err
	}
	p.add("STEP", stepTitle(step)+"\n\n"+labelCode(text))
	if err := c.state(p); err != nil {
		return nil, err
	}
	p.add("OUTPUTS", outputLines(ph.Outputs))
	p.add("RETURN", returnStep)
	return p, nil
}

// stepTitle is "Step 2: Summarize", or the title of a phase's one implicit
// step.
func stepTitle(s *plan.Step) string {
	if s.Number == "" {
		return s.Title
	}
	return "Step " + s.Number + ": " + s.Title
}

// stepBody is the step's markdown without its heading line, which
// stepTitle says, and the line of its file where that markdown begins (0
// when the step was not read from a file).
func stepBody(s *plan.Step) (body string, line int) {
	text, line := s.Text, s.Pos.Line
	if strings.HasPrefix(strings.TrimSpace(text), "#") {
		_, text, _ = strings.Cut(text, "\n")
		line++
	}
	trimmed := strings.TrimLeftFunc(text, unicode.IsSpace)
	if line > 0 {
		line += strings.Count(text[:len(text)-len(trimmed)], "\n")
	}
	return strings.TrimRightFunc(trimmed, unicode.IsSpace), line
}

// labelCode puts the guidance line before the text's first fenced code
// block: the code stays where the prose refers to it.
func labelCode(text string) string {
	spans := fences(text)
	if len(spans) == 0 {
		return text
	}
	lines := strings.SplitAfter(text, "\n")
	i := spans[0].start
	return strings.Join(lines[:i], "") + guidance + "\n\n" + strings.Join(lines[i:], "")
}

// outputLines is the [OUTPUTS] body: path<TAB>format per declared output;
// the format is "any" when the skill does not say.
func outputLines(outs []*plan.Output) string {
	var lines []string
	for _, o := range outs {
		f := o.Format
		if f == "" {
			f = "any"
		}
		lines = append(lines, o.File+"\t"+f)
	}
	return strings.Join(lines, "\n")
}

// ActionPrompt is the prompt of a prose action: its purpose,
// preconditions and execution text (or whole file when it has no
// execution section). The reply must hold stateUpdates (see
// ParseStateUpdates).
func ActionPrompt(c Context, a *plan.Action) (*Prompt, error) {
	p := c.begin(RequestAction)
	p.ID = a.ID
	head := "Action: " + a.ID
	if a.Title != "" {
		head += " (" + a.Title + ")"
	}
	parts := []string{head}
	if a.Purpose != "" {
		parts = append(parts, "Purpose:\n"+a.Purpose)
	}
	if len(a.Preconditions) > 0 {
		var pre []string
		for _, pc := range a.Preconditions {
			pre = append(pre, "- "+pc.Text)
		}
		parts = append(parts, "Preconditions:\n"+strings.Join(pre, "\n"))
	}
	exec := 0 // the line of the joined text where Execution's text begins
	if a.Execution.Text != "" {
		exec = strings.Count(strings.Join(parts, "\n\n"), "\n") + 4
		parts = append(parts, "Execution:\n"+a.Execution.Text)
	}
	text, err := c.expand(strings.Join(parts, "\n\n"))
	if ce, ok := err.(*CommandError); ok && exec > 0 && ce.Line >= exec && a.Execution.TextLine > 0 {
		// Told at the command's line of the action's file, as a step's.
		return nil, &At{Pos: plan.Pos{File: a.Execution.Pos.File, Line: a.Execution.TextLine + ce.Line - exec}, Err: err}
	}
	if err != nil {
		return nil, err
	}
	p.add("ACTION", labelCode(text))
	if err := c.state(p); err != nil {
		return nil, err
	}
	p.add("RETURN", returnAction)
	return p, nil
}

// SelectPrompt asks the agent which action runs next: the orchestrator's
// choice when its decision logic is not code skillkit runs.
func SelectPrompt(c Context, choices []Choice) (*Prompt, error) {
	p := c.begin(RequestSelect)
	p.ID = "select"
	if err := c.state(p); err != nil {
		return nil, err
	}
	var lines []string
	for _, ch := range choices {
		ready := "unknown"
		if ch.Ready != nil {
			ready = map[bool]string{true: "yes", false: "no"}[*ch.Ready]
		}
		lines = append(lines, ch.ID+"\t"+strings.Join(strings.Fields(ch.Purpose), " ")+"\t"+ready)
	}
	p.add("ACTIONS", strings.Join(lines, "\n"))
	p.add("RETURN", returnSelect)
	return p, nil
}

// TaskPrompt is the prompt of a Task or Agent call: the skill code's own
// prompt, headed by its description. The reply is returned to the skill
// code as it is.
func TaskPrompt(c Context, t Task) (*Prompt, error) {
	p := c.begin(RequestTask)
	p.ID = "task"
	var parts []string
	if t.Description != "" {
		parts = append(parts, t.Description)
	}
	if t.SubagentType != "" {
		parts = append(parts, "(subagent type: "+t.SubagentType+")")
	}
	parts = append(parts, t.Prompt)
	p.add("QUESTION", strings.Join(parts, "\n\n"))
	p.add("RETURN", returnTask)
	return p, nil
}

// ConfirmPrompt asks the agent whether a step should run; read the reply
// with ParseConfirm.
func ConfirmPrompt(c Context, question string, phase string, step *plan.Step) (*Prompt, error) {
	p := c.begin(RequestConfirm)
	q, err := c.expand(question)
	if err != nil {
		return nil, err
	}
	p.add("QUESTION", fmt.Sprintf("Before %q in phase %s: %s", stepTitle(step), phase, q))
	p.add("RETURN", returnConfirm)
	return p, nil
}
