package agent

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/skillkit/skillkit/plan"
)

// Context is what every prompt tells the agent about the run.
type Context struct {
	Skill   string
	WorkDir string
	Inputs  map[string]string
	// State is the skill's state; nil leaves the [STATE] section out.
	State map[string]any
}

// Task is a Task or Agent call of skill code.
type Task struct {
	Description  string
	SubagentType string
	Prompt       string
}

// The [RETURN] texts: what the reply must hold.
const (
	returnAction = "Do the action in the work dir. Then end your reply with a JSON object holding a " +
		"\"stateUpdates\" field: the changes to apply to the state, e.g.\n" +
		"```json\n{\"stateUpdates\": {\"status\": \"running\"}}\n```\n" +
		"Keys may be dotted paths (\"context.files\"). The last such object in your reply is used."
	returnStep = "Do the step in the work dir. If the step changes the state, end your reply with a JSON " +
		"object holding a \"stateUpdates\" field, e.g. {\"stateUpdates\": {\"files_counted\": true}}; " +
		"otherwise just report what you did."
	returnConfirm = "Answer with one word on the last line: yes (run the step) or skip (do not run it)."
)

// StepPrompt is the prompt of an agent step: a step with no runnable block,
// whose text is the instruction.
func StepPrompt(c Context, phase string, step *plan.Step) (string, error) {
	var b strings.Builder
	if err := c.write(&b); err != nil {
		return "", err
	}
	section(&b, "PHASE", phase)
	section(&b, "STEP", step.Text)
	section(&b, "RETURN", returnStep)
	return b.String(), nil
}

// ActionPrompt is the prompt of a prose action: its Execution text, with
// the purpose and the action file for context. The reply must hold
// stateUpdates (see ParseStateUpdates).
func ActionPrompt(c Context, a *plan.Action) (string, error) {
	var b strings.Builder
	if err := c.write(&b); err != nil {
		return "", err
	}
	action := "Action: " + a.ID
	if a.Title != "" {
		action += " (" + a.Title + ")"
	}
	if a.Purpose != "" {
		action += "\n\nPurpose:\n" + a.Purpose
	}
	if a.Execution.Text != "" {
		action += "\n\nExecution:\n" + a.Execution.Text
	}
	section(&b, "ACTION", action)
	section(&b, "RETURN", returnAction)
	return b.String(), nil
}

// TaskPrompt is the prompt of a Task or Agent call: the skill's own prompt,
// headed by the run's context. The reply is returned to the skill code as
// it is.
func TaskPrompt(c Context, t Task) (string, error) {
	var b strings.Builder
	if err := c.write(&b); err != nil {
		return "", err
	}
	head := t.Description
	if t.SubagentType != "" {
		head = strings.TrimSpace(head + "\n(subagent type: " + t.SubagentType + ")")
	}
	if head != "" {
		section(&b, "TASK", head)
	}
	section(&b, "PROMPT", t.Prompt)
	return b.String(), nil
}

// ConfirmPrompt asks the agent whether a step should run; read the reply
// with ParseConfirm.
func ConfirmPrompt(c Context, question string, step *plan.Step) (string, error) {
	var b strings.Builder
	if err := c.write(&b); err != nil {
		return "", err
	}
	section(&b, "STEP", step.Text)
	section(&b, "QUESTION", question)
	section(&b, "RETURN", returnConfirm)
	return b.String(), nil
}

// write puts the run's context first: skill, work dir, inputs, state.
func (c Context) write(b *strings.Builder) error {
	if c.Skill != "" {
		section(b, "SKILL", c.Skill)
	}
	if c.WorkDir != "" {
		section(b, "WORK_DIR", c.WorkDir)
	}
	if len(c.Inputs) > 0 {
		keys := make([]string, 0, len(c.Inputs))
		for k := range c.Inputs {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var lines []string
		for _, k := range keys {
			lines = append(lines, k+"="+c.Inputs[k])
		}
		section(b, "INPUTS", strings.Join(lines, "\n"))
	}
	if c.State != nil {
		data, err := json.MarshalIndent(c.State, "", "  ")
		if err != nil {
			return fmt.Errorf("writing the state into the agent prompt: %w", err)
		}
		section(b, "STATE", string(data))
	}
	return nil
}

func section(b *strings.Builder, name, body string) {
	if b.Len() > 0 {
		b.WriteString("\n")
	}
	fmt.Fprintf(b, "[%s]\n%s\n", name, strings.TrimRight(body, "\n"))
}
