package lint

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/skillkit/skillkit/jsstatic"
	"github.com/skillkit/skillkit/plan"
)

var actionRules = []Rule{
	newRule("action-missing", plan.SevError,
		"an action named in the catalog, its graph, a hint or selectNextAction has no action file", checkActionMissing),
	newRule("action-unreachable", plan.SevWarning,
		"selectNextAction returns only literal ids and never this action's", checkActionUnreachable),
	newRule("catalog-precondition-mismatch", plan.SevWarning,
		"the catalog row's preconditions differ from the action file's", checkCatalogPreconditions),
	newRule("no-terminal-action", plan.SevWarning,
		"nothing can end the run: no action sets status to completed or failed and selectNextAction never returns null", checkNoTerminal),
}

// decision is what static reading tells of selectNextAction.
type decision struct {
	block   *plan.CodeBlock
	returns jsstatic.Returns
}

// readDecision reads the orchestrator's selectNextAction; ok is false when
// there is none or its block does not parse.
func (p *Pass) readDecision() (decision, bool) {
	o := p.Skill.Orchestrator
	if o == nil || o.Decision == nil {
		return decision{}, false
	}
	b := p.parseJS(o.Decision)
	if b.prog == nil || b.template {
		return decision{}, false
	}
	r := b.prog.FunctionReturns("selectNextAction")
	if !r.Found {
		return decision{}, false
	}
	return decision{block: o.Decision, returns: r}, true
}

func checkActionMissing(p *Pass) {
	s := p.Skill
	missing := func(pos plan.Pos, endCol int, name, where string) {
		p.ReportRange(pos, endCol, "%s names action %s, but the skill has no action file %s.md", where, name, plan.MissingActionFile(name))
	}
	if c := s.Catalog; c != nil {
		for _, r := range c.Rows {
			if plan.IsActionName(r.Action) && s.ResolveRow(r) == nil && s.RowFile(c, r) == "" {
				pos, end := p.tokenAt(r.Pos, r.Action)
				missing(pos, end, r.Action, "the action catalog")
			}
		}
		seen := map[string]bool{}
		for _, e := range c.Edges {
			for _, n := range []plan.GraphNode{e.From, e.To} {
				name := n.Action()
				if name == "" || seen[name] {
					continue
				}
				seen[name] = true
				if s.ResolveAction(name) == nil {
					missing(n.Pos, 0, name, fmt.Sprintf("graph node %s", n.ID))
				}
			}
		}
	}
	for _, a := range s.Actions {
		for _, h := range a.Hints {
			if s.ResolveAction(h.Action) == nil {
				missing(h.Pos, 0, h.Action, "the Next Actions hint")
			}
		}
	}
	if d, ok := p.readDecision(); ok {
		seen := map[string]bool{}
		for _, lit := range d.returns.Strings {
			if seen[lit.Value] || !plan.IsActionName(lit.Value) {
				continue
			}
			seen[lit.Value] = true
			if s.ResolveAction(lit.Value) == nil {
				pos := d.block.At(lit.Line, lit.Col)
				missing(pos, pos.Col+len(lit.Value)+2, lit.Value, "selectNextAction returns "+quoteJS(lit.Value)+" and so")
			}
		}
	}
}

func quoteJS(s string) string { return "'" + s + "'" }

func checkActionUnreachable(p *Pass) {
	d, ok := p.readDecision()
	if !ok || d.returns.Dynamic {
		// Without decision logic the runtime selects declaratively among
		// all actions; a computed return may name any of them.
		return
	}
	returned := map[*plan.Action]bool{}
	for _, lit := range d.returns.Strings {
		if a := p.Skill.ResolveAction(lit.Value); a != nil {
			returned[a] = true
		}
	}
	for _, a := range p.Skill.Actions {
		if !returned[a] {
			p.Report(declaration(a.Doc), "selectNextAction (%s:%d) never returns %s: the action cannot run", d.block.Pos.File, d.block.Pos.Line, quoteJS(a.ID))
		}
	}
}

func checkCatalogPreconditions(p *Pass) {
	c := p.Skill.Catalog
	if c == nil {
		return
	}
	for _, r := range c.Rows {
		a := p.Skill.ResolveRow(r)
		if a == nil || len(r.Preconditions) == 0 || len(a.Preconditions) == 0 {
			continue
		}
		rowTerms, ok := conjuncts(r.Preconditions)
		if !ok {
			continue
		}
		fileTerms, ok := conjuncts(a.Preconditions)
		if !ok {
			continue
		}
		onlyRow, onlyFile := termDiff(rowTerms, fileTerms), termDiff(fileTerms, rowTerms)
		if len(onlyRow) == 0 && len(onlyFile) == 0 {
			continue
		}
		var parts []string
		if len(onlyRow) > 0 {
			parts = append(parts, "the catalog requires "+strings.Join(onlyRow, " && ")+" and the file does not")
		}
		if len(onlyFile) > 0 {
			parts = append(parts, fmt.Sprintf("%s requires %s and the catalog does not", a.Doc.File, strings.Join(onlyFile, " && ")))
		}
		// Point at what the row has too much, else at its preconditions.
		culprit := r.Preconditions[0].Text
		if len(onlyRow) > 0 {
			culprit = onlyRow[0]
		}
		pos, end := p.tokenAt(r.Pos, culprit, r.Preconditions[0].Text)
		p.ReportRange(pos, end, "preconditions of %s disagree: %s", a.ID, strings.Join(parts, "; "))
	}
}

// term is one conjunct of a precondition: as written, and normalized for
// comparison.
type term struct{ text, norm string }

// conjuncts splits preconditions into the terms that must all hold. ok is
// false when some line is prose or an any-of group: then the two sides
// cannot be compared.
func conjuncts(pcs []*plan.Precondition) ([]term, bool) {
	var terms []term
	for _, pc := range pcs {
		if !pc.Checkable() || len(pc.AnyOf) > 0 {
			return nil, false
		}
		for _, t := range splitAnd(pc.JS) {
			terms = append(terms, term{text: t, norm: normalizeJS(t)})
		}
	}
	return terms, len(terms) > 0
}

// termDiff returns the terms of a whose normal form b lacks, as written.
func termDiff(a, b []term) []string {
	var out []string
	for _, x := range a {
		if !slices.ContainsFunc(b, func(y term) bool { return y.norm == x.norm }) && !slices.Contains(out, x.text) {
			out = append(out, x.text)
		}
	}
	return out
}

// scanCode calls f with each byte index of js that lies outside string
// literals, and the bracket depth before that byte; f returns how many
// bytes it consumed beyond the one (to skip "&&") and whether to stop.
func scanCode(js string, f func(i, depth int) (skip int, stop bool)) {
	depth := 0
	var quote byte
	for i := 0; i < len(js); i++ {
		c := js[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
			continue
		case c == '\'' || c == '"' || c == '`':
			quote = c
			continue
		}
		skip, stop := f(i, depth)
		if stop {
			return
		}
		i += skip
		switch c {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		}
	}
}

// splitAnd splits an expression at its top-level && operators, outside
// strings, brackets and parentheses; a term wrapped whole in parentheses
// is unwrapped and split again.
func splitAnd(js string) []string {
	js = stripParens(strings.TrimSpace(js))
	var out []string
	start := 0
	scanCode(js, func(i, depth int) (int, bool) {
		if depth == 0 && strings.HasPrefix(js[i:], "&&") {
			out = append(out, strings.TrimSpace(js[start:i]))
			start = i + 2
			return 1, false
		}
		return 0, false
	})
	out = append(out, strings.TrimSpace(js[start:]))
	if len(out) == 1 {
		return out
	}
	var all []string
	for _, t := range out {
		all = append(all, splitAnd(t)...)
	}
	return all
}

// stripParens removes parentheses that wrap the whole expression.
func stripParens(s string) string {
	for strings.HasPrefix(s, "(") && strings.HasSuffix(s, ")") && closingParen(s) == len(s)-1 {
		s = strings.TrimSpace(s[1 : len(s)-1])
	}
	return s
}

// closingParen returns the index of the parenthesis closing the one at 0,
// -1 when there is none.
func closingParen(s string) int {
	at := -1
	scanCode(s, func(i, depth int) (int, bool) {
		if s[i] == ')' && depth == 1 {
			at = i
			return 0, true
		}
		return 0, false
	})
	return at
}

var (
	looseEq  = regexp.MustCompile(`([^=!<>])==([^=])`)
	looseNeq = regexp.MustCompile(`!=([^=])`)
)

// normalizeJS writes an expression canonically for comparison: no
// whitespace outside strings, single-quoted strings, and == / != read as
// === / !== (preconditions compare plain values, where they agree).
func normalizeJS(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'' || c == '"':
			j := i + 1
			for j < len(s) && s[j] != c {
				if s[j] == '\\' {
					j++
				}
				j++
			}
			body := s[i+1 : min(j, len(s))]
			if c == '"' && !strings.Contains(body, "'") {
				c = '\''
			}
			b.WriteByte(c)
			b.WriteString(body)
			b.WriteByte(c)
			i = j
		case c == ' ' || c == '\t' || c == '\n':
		default:
			b.WriteByte(c)
		}
	}
	out := looseEq.ReplaceAllString(b.String(), "$1===$2")
	out = looseNeq.ReplaceAllString(out, "!==$1")
	return stripParens(out)
}

// terminalStatus matches code or prose that sets the status to a final
// value: status: 'completed', "status": "failed", state.status = 'failed'.
var terminalStatus = regexp.MustCompile(`status['"]?\s*(?::|=[^=])\s*['"](?:completed|failed)['"]`)

func checkNoTerminal(p *Pass) {
	d, ok := p.readDecision()
	if !ok || d.returns.Null || d.returns.Dynamic || len(p.Skill.Actions) == 0 {
		return
	}
	for _, a := range p.Skill.Actions {
		if actionEndsRun(a) {
			return
		}
	}
	p.ReportRange(d.block.At(d.returns.Line, d.returns.Col), 0,
		"selectNextAction never returns null and no action sets status to 'completed' or 'failed': the run can only stop at the iteration limit")
}

// actionEndsRun reports whether an action sets the status to completed
// or failed: in a returned update, or anywhere in its code or prose (a
// prose action's agent is told what to return).
func actionEndsRun(a *plan.Action) bool {
	for _, c := range a.Doc.Code {
		if terminalStatus.MatchString(c.Text) {
			return true
		}
	}
	return terminalStatus.MatchString(a.Execution.Text)
}
