// Package lint checks skills: front matter, layout, links, actions and
// their catalog, the JavaScript and shell inside them, and the state
// schema against the code that reads and writes state.
//
// Rules run over the parsed plan (package plan); lint never executes
// anything from a skill. A finding is a value (Finding); a Go error from
// this package means lint itself failed.
package lint

import (
	"slices"
	"strings"

	"github.com/skillkit/skillkit/plan"
)

// DocsURL is where the rules are documented; a rule's own entry is this
// URL with the rule id as the fragment.
const DocsURL = "https://github.com/skillkit/skillkit/blob/main/docs/lint-rules.md"

// Rule is one check with a stable id.
type Rule interface {
	// ID is the rule's stable kebab-case id.
	ID() string
	// Severity is the rule's default severity; configuration may change it.
	Severity() plan.Severity
	// Description says in one line what the rule catches.
	Description() string
	// DocsURL links to the rule's documentation.
	DocsURL() string
	// Check reports the rule's findings for the skill of the pass.
	Check(p *Pass)
}

// ruleBase carries what every rule has; a rule embeds it and adds Check.
type ruleBase struct {
	id   string
	sev  plan.Severity
	desc string
}

func (r *ruleBase) ID() string              { return r.id }
func (r *ruleBase) Severity() plan.Severity { return r.sev }
func (r *ruleBase) Description() string     { return r.desc }
func (r *ruleBase) DocsURL() string         { return DocsURL + "#" + r.id }

// funcRule is a rule whose check is a function: most rules need nothing
// more.
type funcRule struct {
	ruleBase
	check func(p *Pass)
}

func (r *funcRule) Check(p *Pass) { r.check(p) }

func newRule(id string, sev plan.Severity, desc string, check func(p *Pass)) Rule {
	return &funcRule{ruleBase: ruleBase{id: id, sev: sev, desc: desc}, check: check}
}

// diagnosticRule reports the parser's diagnostics of one code as findings
// of the rule with the same id.
func diagnosticRule(id string, sev plan.Severity, desc string) Rule {
	return newRule(id, sev, desc, func(p *Pass) {
		for _, d := range p.Skill.Diagnostics {
			if d.Code == id {
				p.Report(d.Pos, "%s", d.Message)
			}
		}
	})
}

// allRules is every rule, sorted by id. It is filled by init because some
// rules look rules up by id, which would otherwise be an initialization
// cycle.
var allRules []Rule

func init() {
	var rs []Rule
	for _, family := range [][]Rule{frontMatterRules, layoutRules, linkRules, actionRules, codeRules, stateRules, nameRules, budgetRules, directiveRules, outputRules, inputRules, reachRules, mcpRules, pluginRules} {
		rs = append(rs, family...)
	}
	slices.SortFunc(rs, func(a, b Rule) int { return strings.Compare(a.ID(), b.ID()) })
	allRules = rs
}

// Rules returns every built-in rule, sorted by id.
func Rules() []Rule { return slices.Clone(allRules) }

// RuleByID returns the rule with the id, or nil.
func RuleByID(id string) Rule {
	i, ok := slices.BinarySearchFunc(allRules, id, func(r Rule, id string) int { return strings.Compare(r.ID(), id) })
	if !ok {
		return nil
	}
	return allRules[i]
}
