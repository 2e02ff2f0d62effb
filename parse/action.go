package parse

import (
	"path"
	"regexp"
	"strings"

	"github.com/skillkit/skillkit/plan"
)

// readAction fills an action from its markdown; id is the file name
// without .md.
func readAction(m *md, id string) *plan.Action {
	a := &plan.Action{Doc: m.doc, ID: id, Title: strings.TrimSpace(strings.TrimPrefix(m.doc.Title, "Action:"))}
	if s := m.section(plan.SecPurpose); s != nil {
		a.Purpose = strings.TrimSpace(m.text(s.Pos.Line+1, s.EndLine))
	}
	if s := m.section(plan.SecPreconditions); s != nil {
		a.Preconditions = readPreconditions(m, m.listsIn(s.Pos.Line, s.EndLine))
	}
	a.Execution = readExecution(m)
	if s := m.section(plan.SecExecution); s != nil {
		readAttrs(m, &a.Attrs, s.Pos.Line, s.EndLine)
	}
	if s := m.section(plan.SecStateUpdates); s != nil {
		for _, c := range m.codeIn(s.Pos.Line, s.EndLine) {
			if c.Kind() == plan.LangJS {
				a.StateUpdates = c
				break
			}
		}
	}
	if s := m.section(plan.SecNextActions); s != nil {
		a.Hints = readHints(m, s)
	}
	return a
}

// readExecution picks what runs: the first runnable JS or bash block of the
// Execution section, else the section's prose for the agent, else (no
// section) the whole action for the agent.
func readExecution(m *md) plan.Execution {
	s := m.section(plan.SecExecution)
	if s == nil {
		// No recognised execution section: the whole file is the
		// agent's instruction (DESIGN §1.5), never skipped.
		text, line := m.body()
		return plan.Execution{Kind: plan.ExecProse, Text: text, TextLine: line, Pos: plan.Pos{File: m.doc.File, Line: 1, Col: 1}, Whole: true}
	}
	// The text goes along with code too, for when the code is an
	// instruction for the agent rather than a program.
	text := m.text(s.Pos.Line, s.EndLine)
	for _, c := range m.codeIn(s.Pos.Line, s.EndLine) {
		switch c.Kind() {
		case plan.LangJS:
			return plan.Execution{Kind: plan.ExecJS, Code: c, Text: text, TextLine: s.Pos.Line, Pos: c.Pos}
		case plan.LangBash:
			return plan.Execution{Kind: plan.ExecBash, Code: c, Text: text, TextLine: s.Pos.Line, Pos: c.Pos}
		}
	}
	return plan.Execution{Kind: plan.ExecProse, Text: text, TextLine: s.Pos.Line, Pos: s.Pos}
}

// actionID matches an action id written in prose.
var actionID = regexp.MustCompile(`\baction-[A-Za-z0-9_-]*[A-Za-z0-9]`)

// actionInProse returns the first action id in text, skipping wildcards
// such as "action-diagnose-*" that stand for a family of actions.
func actionInProse(text string) string {
	for _, loc := range actionID.FindAllStringIndex(text, -1) {
		rest := text[loc[1]:]
		if strings.HasPrefix(rest, "*") || strings.HasPrefix(rest, "-*") || strings.HasPrefix(rest, "_*") {
			continue
		}
		return text[loc[0]:loc[1]]
	}
	return ""
}

func readHints(m *md, s *plan.Section) []*plan.Hint {
	var out []*plan.Hint
	for _, it := range m.listsIn(s.Pos.Line, s.EndLine) {
		label, rest, ok := strings.Cut(it.text, ":")
		if !ok {
			label, rest = "", it.text
		}
		id := ""
		for _, l := range m.doc.Links {
			if l.Pos.Line == it.line {
				id = actionFromLink(l.Target)
				break
			}
		}
		if id == "" {
			id = actionInProse(rest)
		}
		if id == "" {
			continue
		}
		out = append(out, &plan.Hint{Label: strings.Trim(strings.TrimSpace(label), "*"), Action: id, Pos: m.at(it.line, it.col)})
	}
	return out
}

// actionFromLink turns "../phases/actions/action-init.md#x" into
// "action-init"; "" when the target is not a markdown file.
func actionFromLink(target string) string {
	target, _, _ = strings.Cut(target, "#")
	if !strings.HasSuffix(target, ".md") {
		return ""
	}
	return strings.TrimSuffix(path.Base(target), ".md")
}
