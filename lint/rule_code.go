package lint

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"

	"github.com/skillkit/skillkit/jsstatic"
	"github.com/skillkit/skillkit/plan"
)

var codeRules = []Rule{
	newRule("js-syntax", plan.SevError,
		"a JavaScript block that skillkit runs does not parse", checkJSSyntax),
	newRule("bash-syntax", plan.SevError,
		"a shell block that skillkit runs does not parse as bash", checkBashSyntax),
	newRule("precondition-unchecked", plan.SevInfo,
		"precondition lines written as prose cannot be checked; the runtime treats them as true", checkPreconditionProse),
	newRule("condition-unchecked", plan.SevWarning,
		"a step Condition is not a JavaScript expression, so the step always runs", checkConditionProse),
}

// docBlock is a code block and the document it is in.
type docBlock struct {
	doc *plan.Doc
	*plan.CodeBlock
}

// runBlocks returns the code blocks skillkit runs or evaluates, of one
// kind: the runnable blocks of phase steps, each action's Execution and
// State Updates blocks, and every JavaScript block of the orchestrator
// (its declarations are in scope of selectNextAction). Blocks that a
// misnested fence before them garbles are left to fence-nested.
func (p *Pass) runBlocks(kind string) []docBlock {
	var out []docBlock
	s := p.Skill
	// A phase's steps part its lines, so each of their blocks comes once:
	// only the actions' and the orchestrator's, which may name one block
	// twice, are checked against those seen (a set of every block was a
	// third of this function's time in an editor's re-lint).
	for _, ph := range s.Phases {
		if ph.IsOrchestrator {
			continue
		}
		for _, st := range ph.Steps {
			for _, c := range st.Code {
				if c != nil && c.Kind() == kind && !p.misread(ph.Doc, c) {
					out = append(out, docBlock{ph.Doc, c})
				}
			}
		}
	}
	seen := map[*plan.CodeBlock]bool{}
	add := func(d *plan.Doc, c *plan.CodeBlock) {
		if c != nil && c.Kind() == kind && !seen[c] && !p.misread(d, c) {
			seen[c] = true
			out = append(out, docBlock{d, c})
		}
	}
	for _, a := range s.Actions {
		add(a.Doc, a.Execution.Code)
		add(a.Doc, a.StateUpdates)
	}
	if o := s.Orchestrator; o != nil {
		for _, c := range o.Declarations {
			add(o.Doc, c)
		}
	}
	return out
}

func checkJSSyntax(p *Pass) {
	for _, db := range p.runBlocks(plan.LangJS) {
		c := db.CodeBlock
		b := p.parseJS(c)
		if b.prog != nil {
			continue
		}
		var se *jsstatic.SyntaxError
		if errors.As(b.err, &se) {
			pos := c.At(se.Line, se.Col)
			p.Report(pos, "JavaScript does not parse: %s", jsMessage(se.Msg, p.line(pos.File, pos.Line), pos.Col))
			continue
		}
		p.Report(c.Body, "JavaScript does not parse: %v", b.err)
	}
}

func checkBashSyntax(p *Pass) {
	for _, db := range p.runBlocks(plan.LangBash) {
		c := db.CodeBlock
		err := p.Skill.Blocks.Bash(c)
		if err == nil || p.filledBash(c.Text) {
			continue
		}
		var pe syntax.ParseError
		if errors.As(err, &pe) {
			pos := c.At(int(pe.Pos.Line()), int(pe.Pos.Col()))
			p.Report(pos, "shell does not parse as bash: %s", bashMessage(pe.Text, p.line(pos.File, pos.Line), pos.Col))
			continue
		}
		p.Report(c.Body, "shell does not parse as bash: %v", err)
	}
}

// The parsers' messages name what they saw in their own terms: goja says
// "ILLEGAL" for a character that starts no token, mvdan.cc/sh writes "foo"
// for the name of a function declaration. Those words are placeholders to
// a reader; the source line at the error has the real text.

// jsMessage rewrites goja's message for the error at byte column col of
// line.
func jsMessage(msg, line string, col int) string {
	at := line[min(max(col-1, 0), len(line)):]
	switch msg {
	case "Unexpected token ILLEGAL":
		if r, _ := utf8.DecodeRuneInString(at); at != "" {
			return fmt.Sprintf("unexpected character %s", codeSpan(string(r)))
		}
		return "unexpected character"
	case "Unexpected identifier":
		if id := leadingWord(at); id != "" {
			return fmt.Sprintf("unexpected identifier %s", codeSpan(id))
		}
	}
	return msg
}

// bashMessage rewrites mvdan.cc/sh's message for the error at byte column
// col of line: its "foo" stands for the function name written there.
func bashMessage(msg, line string, col int) string {
	if !strings.Contains(msg, "foo(") {
		return msg
	}
	at := strings.TrimPrefix(line[min(max(col-1, 0), len(line)):], "function ")
	name := leadingWord(strings.TrimSpace(at))
	if name == "" {
		name = "name"
	}
	return strings.Replace(msg, "foo(", name+"(", 1)
}

// leadingWord is the identifier-like run that starts s.
func leadingWord(s string) string {
	i := 0
	for i < len(s) && (identByte(s, i) || s[i] == '-' && i > 0) {
		i++
	}
	return s[:i]
}

// codeSpan writes s as markdown inline code, fencing a backtick with
// doubled backticks.
func codeSpan(s string) string {
	if strings.Contains(s, "`") {
		return "`` " + s + " ``"
	}
	return "`" + s + "`"
}

func checkPreconditionProse(p *Pass) {
	report := func(file string, pcs []*plan.Precondition) {
		var prose []*plan.Precondition
		var walk func([]*plan.Precondition)
		walk = func(list []*plan.Precondition) {
			for _, pc := range list {
				// A line that only introduces an any-of group is a heading.
				if len(pc.AnyOf) > 0 {
					walk(pc.AnyOf)
					continue
				}
				if !pc.Checkable() {
					prose = append(prose, pc)
				}
			}
		}
		walk(pcs)
		if len(prose) == 0 {
			return
		}
		first := prose[0]
		more := ""
		if len(prose) > 1 {
			more = " (and " + plural(len(prose)-1, "more line") + ")"
		}
		p.Report(first.Pos, "precondition %q is prose, not a JavaScript expression over state%s: it cannot be checked and the runtime treats it as true", first.Text, more)
	}
	for _, a := range p.Skill.Actions {
		report(a.Doc.File, a.Preconditions)
	}
	if c := p.Skill.Catalog; c != nil {
		var all []*plan.Precondition
		for _, r := range c.Rows {
			all = append(all, r.Preconditions...)
		}
		report(c.File, all)
	}
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func checkConditionProse(p *Pass) {
	for _, ph := range p.Skill.Phases {
		for _, st := range ph.Steps {
			c := st.Attrs.Condition
			if c == nil || c.Checkable() {
				continue
			}
			p.Report(c.Pos, "Condition %q is not a JavaScript expression over state or inputs: the step runs as if it held", c.Text)
		}
	}
}
