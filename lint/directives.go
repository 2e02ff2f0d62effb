package lint

import (
	"strings"

	"github.com/skillkit/skillkit/plan"
)

// Inline directives are HTML comments, invisible when the markdown is
// rendered:
//
//	<!-- skillkit-disable-next-line rule-a rule-b -->  the next line only
//	<!-- skillkit-disable rule-a -->                    the whole file
//
// Without rule ids a directive covers every rule. Ids may be separated by
// spaces or commas.
const (
	directiveNextLine = "skillkit-disable-next-line"
	directiveFile     = "skillkit-disable"
)

// allRulesKey stands for every rule in a suppression set.
const allRulesKey = "*"

// suppressions are the directives of one skill, by file.
type suppressions struct {
	file  map[string]map[string]bool         // file → rules
	lines map[string]map[int]map[string]bool // file → line → rules
}

// directive is one parsed directive comment.
type directive struct {
	kind  string // directiveNextLine or directiveFile
	rules []string
	pos   plan.Pos
	next  int // the line a next-line directive covers
}

// parseDirective reads a comment; ok is false when it is not a directive.
func parseDirective(c *plan.Comment) (directive, bool) {
	fields := strings.Fields(strings.ReplaceAll(c.Text, ",", " "))
	if len(fields) == 0 {
		return directive{}, false
	}
	d := directive{pos: c.Pos, rules: fields[1:]}
	switch fields[0] {
	case directiveNextLine:
		d.kind = directiveNextLine
		// The comment may span lines; it covers the line after its end.
		d.next = c.Pos.Line + strings.Count(c.Text, "\n") + 1
	case directiveFile:
		d.kind = directiveFile
	default:
		return directive{}, false
	}
	return d, true
}

func collectSuppressions(docs []*plan.Doc) *suppressions {
	s := &suppressions{file: map[string]map[string]bool{}, lines: map[string]map[int]map[string]bool{}}
	for _, doc := range docs {
		for _, c := range doc.Comments {
			d, ok := parseDirective(c)
			if !ok {
				continue
			}
			rules := d.rules
			if len(rules) == 0 {
				rules = []string{allRulesKey}
			}
			var set map[string]bool
			if d.kind == directiveFile {
				if s.file[doc.File] == nil {
					s.file[doc.File] = map[string]bool{}
				}
				set = s.file[doc.File]
			} else {
				if s.lines[doc.File] == nil {
					s.lines[doc.File] = map[int]map[string]bool{}
				}
				if s.lines[doc.File][d.next] == nil {
					s.lines[doc.File][d.next] = map[string]bool{}
				}
				set = s.lines[doc.File][d.next]
			}
			for _, r := range rules {
				set[r] = true
			}
		}
	}
	return s
}

// suppressed reports whether a directive silences the rule at pos.
func (s *suppressions) suppressed(rule string, pos plan.Pos) bool {
	if f := s.file[pos.File]; f[rule] || f[allRulesKey] {
		return true
	}
	if pos.Line == 0 {
		return false
	}
	l := s.lines[pos.File][pos.Line]
	return l[rule] || l[allRulesKey]
}

var directiveRules = []Rule{
	newRule("directive-unknown-rule", plan.SevWarning,
		"an inline skillkit-disable directive names a rule that does not exist",
		func(p *Pass) {
			for _, doc := range p.Docs() {
				for _, c := range doc.Comments {
					d, ok := parseDirective(c)
					if !ok {
						continue
					}
					for _, r := range d.rules {
						if RuleByID(r) == nil {
							p.Report(c.Pos, "%s names unknown rule %q: it silences nothing", d.kind, r)
						}
					}
				}
			}
		}),
}
