package lint

import (
	"fmt"
	"strings"

	"github.com/skillkit/skillkit/internal/skillfs"
	"github.com/skillkit/skillkit/internal/stateschema"
	"github.com/skillkit/skillkit/jsstatic"
	"github.com/skillkit/skillkit/plan"
)

// Pass is one skill being linted: what rules read and how they report.
type Pass struct {
	Skill *plan.Skill
	// Profile is the front matter profile, one of ProfileNames but auto.
	Profile string

	rule     Rule
	findings []rawFinding
	js       map[*plan.CodeBlock]*jsBlock
	// exprs are the expressions (preconditions, conditions) parsed, by
	// their JavaScript text; nil for one that does not parse.
	exprs    map[string]*jsstatic.Program
	nestings map[*plan.Doc]*nesting
	// nav caches the state schema navigator (a nil *stateschema.Nav once known
	// to be absent).
	nav **stateschema.Nav
	// schema caches the compiled state schema; cache, when set, is the
	// lint run's cache it comes from, with the second readings of shell
	// blocks that do not parse.
	schema *compiled
	cache  *runCache
	// updates caches the skill's state updates (stateWrites), mcp its
	// MCP tool calls (mcpCalls): two rules read each.
	updates *[]update
	mcp     *[]mcpCall
	// pure caches the names pure code may read (pureScope).
	pure map[string]bool
	// docs caches Docs.
	docs []*plan.Doc
	// src reads the skill's files by skill-relative path: for the source
	// lines that positions and some messages need.
	src *sources
}

// rawFinding is a finding with its position still relative to the skill.
type rawFinding struct {
	rule   Rule
	pos    plan.Pos
	endCol int
	msg    string
	// fix holds the edits that fix it, with skill-relative files; nil
	// when it has no safe fix.
	fix []Edit
}

// newPass starts a pass over s; read reads its files by skill-relative
// path, nil reads them from s.Dir.
func newPass(s *plan.Skill, profile string, read func(string) ([]byte, error)) *Pass {
	if read == nil {
		read = func(rel string) ([]byte, error) { return skillfs.ReadFile(s.Dir, rel) }
	}
	return &Pass{
		Skill: s, Profile: profile, js: map[*plan.CodeBlock]*jsBlock{}, exprs: map[string]*jsstatic.Program{}, nestings: map[*plan.Doc]*nesting{},
		src: newSources(read),
	}
}

// line returns line n of a skill file, "" when there is none.
func (p *Pass) line(file string, n int) string {
	l, _ := p.src.line(file, n)
	return l
}

func (p *Pass) run(rules []Rule) []rawFinding {
	for _, r := range rules {
		p.rule = r
		r.Check(p)
	}
	p.rule = nil
	return p.findings
}

// Report records a finding of the running rule at pos.
func (p *Pass) Report(pos plan.Pos, format string, args ...any) {
	p.ReportRange(pos, 0, format, args...)
}

// ReportRange records a finding that spans from pos to endCol on pos's
// line.
func (p *Pass) ReportRange(pos plan.Pos, endCol int, format string, args ...any) {
	p.ReportFix(pos, endCol, nil, format, args...)
}

// ReportFix records a finding with the edits that fix it (files relative
// to the skill); nil edits is a finding with no safe fix.
func (p *Pass) ReportFix(pos plan.Pos, endCol int, fix []Edit, format string, args ...any) {
	p.findings = append(p.findings, rawFinding{rule: p.rule, pos: pos, endCol: endCol, msg: fmt.Sprintf(format, args...), fix: fix})
}

// Docs returns every markdown document of the skill once, in a stable
// order: the entry, phases, orchestrator, actions, state schema, others.
// The list is made once per pass, for every rule that asks: read it,
// never change it.
func (p *Pass) Docs() []*plan.Doc {
	if p.docs == nil {
		p.docs = p.Skill.AllDocs()
	}
	return p.docs
}

// jsBlock is a JavaScript block as the rules read it, once per pass.
type jsBlock struct {
	prog *jsstatic.Program
	err  error
	// template is set when the block parses only once its template
	// placeholders are replaced: prog is then that version.
	template bool
}

// Skills are often templates: code blocks hold slots such as <count>,
// {{name}} or [...] for the agent (or the author of a new skill) to fill
// in. Such a block does not parse, and reporting it as a syntax error
// would be noise. The policy (docs/lint-rules.md): a block that fails to
// parse is reported only when it still fails after its placeholders are
// replaced by neutral values (plan.UntemplateJS, plan.UntemplateBash).

// parseJS reads a JavaScript block for the rules: the plan's one parse of
// it as a body of statements (top-level await and return allowed), or,
// for a block that is one object literal (State Updates sections often
// are), that expression, which as statements would read as a block of
// labels.
func (p *Pass) parseJS(c *plan.CodeBlock) *jsBlock {
	if b, ok := p.js[c]; ok {
		return b
	}
	b := &jsBlock{}
	if objectLiteral(c.Text) {
		b.prog, _, b.err = jsstatic.ParseExpression(c.Text)
	}
	if b.prog == nil {
		b.prog, b.err = p.Skill.Blocks.JS(c)
	}
	if b.err != nil {
		if prog := p.Skill.Blocks.Filled(c, parseJSText); prog != nil {
			b.prog, b.template = prog, true
		}
	}
	p.js[c] = b
	return b
}

// filledBash reports whether a shell block's text parses once its
// template slots are filled (false when it has none); from the run's
// cache when there is one.
func (p *Pass) filledBash(text string) bool {
	fill := func() bool {
		t, changed := plan.UntemplateBash(text)
		return changed && plan.ParseBash(t) == nil
	}
	if p.cache == nil {
		return fill()
	}
	return p.cache.filledBash.get(text, fill)
}

// parseExpr parses a checkable expression's JavaScript once per pass; nil
// when it does not parse.
func (p *Pass) parseExpr(e *plan.Expr) *jsstatic.Program {
	prog, ok := p.exprs[e.JS]
	if !ok {
		prog, _, _ = jsstatic.ParseExpression(e.JS)
		p.exprs[e.JS] = prog
	}
	return prog
}

// objectLiteral reports whether text looks like one object literal.
func objectLiteral(text string) bool {
	t := strings.TrimSpace(text)
	return strings.HasPrefix(t, "{") && strings.HasSuffix(t, "}")
}

// parseJSText is parseJS for a text that is no block of the plan.
func parseJSText(text string) (*jsstatic.Program, error) {
	if objectLiteral(text) {
		if prog, _, err := jsstatic.ParseExpression(text); err == nil {
			return prog, nil
		}
	}
	return jsstatic.Parse(text)
}
