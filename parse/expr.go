package parse

import (
	"encoding/json"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/parser"

	"github.com/skillkit/skillkit/plan"
)

// checkbox matches a task-list mark at the start of a precondition line.
var checkbox = regexp.MustCompile(`^\[[ xX]\]\s*`)

// toJS turns a precondition or condition as written into a JavaScript
// expression, or "" when it is prose that cannot be checked. It accepts a
// JS expression over state/inputs (with or without backticks) and the
// catalog shorthand: comma-separated `name op value` terms where a single
// `=` is equality, values are numbers, booleans, null, quoted strings, ALL_CAPS
// constants or bare words (strings), and a bare name is a truthy state field.
func toJS(text string) string {
	if !utf8.ValidString(text) {
		return ""
	}
	s := strings.TrimSpace(checkbox.ReplaceAllString(strings.TrimSpace(text), ""))
	if strings.Count(s, "`") == 2 && strings.HasPrefix(s, "`") && strings.HasSuffix(s, "`") {
		s = strings.TrimSpace(s[1 : len(s)-1])
	}
	if s == "" {
		return ""
	}
	if js, ok := shorthand(s); ok {
		return js
	}
	if strings.Contains(s, "`") {
		// Prose around code spans: take the expression only when it is the
		// one code span and the prose is decoration ("`x > 0` (required)").
		return ""
	}
	if usesState(s) && isExpression(s) {
		return s
	}
	return ""
}

// conditionJS is a step condition as JavaScript. A condition written as a
// code span is code whatever names it reads (`false`, `Date.now() > 0`):
// the step-execution specification evaluates every condition that parses,
// and only prose runs the step unchecked. Without backticks it is read as
// a precondition is (toJS).
func conditionJS(text string) string {
	s := strings.TrimSpace(text)
	if strings.Count(s, "`") == 2 && strings.HasPrefix(s, "`") && strings.HasSuffix(s, "`") {
		if code := strings.TrimSpace(s[1 : len(s)-1]); code != "" && isExpression(code) {
			return code
		}
	}
	return toJS(text)
}

// shorthandTerm is one term of the catalog shorthand.
var shorthandTerm = regexp.MustCompile(`^(!?)([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\s*(?:(===|!==|==|!=|>=|<=|>|<|=)\s*(.+?))?$`)

var (
	numberLit = regexp.MustCompile(`^-?(?:0|[1-9]\d*)(?:\.\d+)?$`)
	// zeroPadded is a digit string JavaScript would not read as a number
	// ("08"): it is compared as a string.
	zeroPadded  = regexp.MustCompile(`^0\d+$`)
	constantLit = regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)
	wordLit     = regexp.MustCompile(`^[A-Za-z_][\w-]*$`)
	quotedLit   = regexp.MustCompile(`^(?:'[^'\\]*'|"[^"\\]*")$`)
)

func shorthand(s string) (string, bool) {
	var terms []string
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		mm := shorthandTerm.FindStringSubmatch(part)
		if mm == nil {
			return "", false
		}
		name := mm[2]
		if name == "state" || name == "inputs" {
			return "", false
		}
		if !strings.HasPrefix(name, "state.") && !strings.HasPrefix(name, "inputs.") {
			name = "state." + name
		}
		if mm[3] == "" {
			terms = append(terms, mm[1]+name)
			continue
		}
		if mm[1] != "" {
			return "", false
		}
		val, ok := shorthandValue(strings.TrimSpace(mm[4]))
		if !ok {
			return "", false
		}
		op := mm[3]
		switch op {
		case "=", "==":
			op = "==="
		case "!=":
			op = "!=="
		}
		terms = append(terms, name+" "+op+" "+val)
	}
	// A lone bare word is as likely prose ("initialized") as a field; accept
	// it only when it has a field's shape (snake_case or dotted).
	if len(terms) == 1 && !strings.ContainsAny(s, "=<>!") && !strings.ContainsAny(s, "_.") {
		return "", false
	}
	return strings.Join(terms, " && "), true
}

func shorthandValue(v string) (string, bool) {
	switch {
	case numberLit.MatchString(v), v == "true", v == "false", v == "null", v == "undefined":
		return v, true
	case zeroPadded.MatchString(v):
		return jsString(v), true
	case quotedLit.MatchString(v):
		return jsString(v[1 : len(v)-1]), true
	case constantLit.MatchString(v):
		return v, true
	case wordLit.MatchString(v):
		return jsString(v), true
	}
	return "", false
}

// jsString quotes s as a JavaScript string: in single quotes as skills
// write them, or JSON-escaped when s holds a quote, a backslash or a
// control or line-separator character that single quotes cannot carry.
func jsString(s string) string {
	plain := !strings.ContainsFunc(s, func(r rune) bool {
		return r == '\'' || r == '\\' || r < 0x20 || r == 0x7f || r == 0x2028 || r == 0x2029
	})
	if plain {
		return "'" + s + "'"
	}
	b, _ := json.Marshal(s)
	return string(b)
}

var stateRef = regexp.MustCompile(`\b(?:state|inputs)\s*(?:\.|\[|\?\.)`)

func usesState(s string) bool { return stateRef.MatchString(s) }

// isExpression reports whether s parses as one JavaScript expression that
// is not an assignment (a single "=" in prose-like JS is a typo, not intent).
func isExpression(s string) bool {
	prog, err := parser.ParseFile(nil, "", "("+s+"\n)", 0)
	if err != nil || len(prog.Body) != 1 {
		return false
	}
	st, ok := prog.Body[0].(*ast.ExpressionStatement)
	if !ok {
		return false
	}
	_, assign := st.Expression.(*ast.AssignExpression)
	return !assign
}

// readPreconditions turns list items into preconditions; nested items are
// any-of groups of their parent.
func readPreconditions(m *md, items []*listItem) []*plan.Precondition {
	var out []*plan.Precondition
	for _, it := range items {
		text := strings.TrimSpace(checkbox.ReplaceAllString(it.text, ""))
		p := &plan.Precondition{Expr: plan.Expr{Text: text, JS: toJS(text), Pos: m.at(it.line, it.col)}}
		if len(it.children) > 0 {
			p.AnyOf = readPreconditions(m, it.children)
		}
		out = append(out, p)
	}
	return out
}
