package lint

import (
	"regexp"
	"strings"
)

// Skills are often templates: code blocks hold slots such as <count>,
// <skill-name>, {{name}} or [...] for the agent (or the author of a new
// skill) to fill in. Such a block does not parse, and reporting it as a
// syntax error would be noise. The policy (docs/lint-rules.md): a block
// that fails to parse is reported only when it still fails after its
// placeholders are replaced by neutral values; a block that parses once
// they are replaced is a template and is not a syntax finding.

var (
	// anglePlaceholder is <word…>: an identifier-like start, no nested
	// brackets, on one line. It does not match comparisons written with
	// spaces (a < b) or HTML closing tags.
	anglePlaceholder = regexp.MustCompile(`<[\p{L}\p{N}_][^<>\n]{0,80}>`)
	// mustachePlaceholder is {{name}}.
	mustachePlaceholder = regexp.MustCompile(`\{\{[^{}\n]*\}\}`)
	// ellipsisElement is "..." standing for omitted elements: [...],
	// { ... }, f(...), "a, ...".
	ellipsisElement = regexp.MustCompile(`(?:\.\.\.|…)(\s*[\]\}\),])`)
	// ellipsisLine is a line that is only "..." (omitted statements).
	ellipsisLine = regexp.MustCompile(`(?m)^[ \t]*(?:\.\.\.|…)[ \t]*$`)
)

// jsStandIn replaces a placeholder in JavaScript: an identifier, valid
// wherever a value is ({{items}}.map(…), count: <n>).
const jsStandIn = "_tpl_"

// untemplateJS replaces a JavaScript block's placeholders by neutral
// values; changed is false when it has none.
func untemplateJS(src string) (out string, changed bool) {
	out = anglePlaceholder.ReplaceAllString(src, jsStandIn)
	out = mustachePlaceholder.ReplaceAllString(out, jsStandIn)
	out = ellipsisElement.ReplaceAllString(out, "$1")
	out = ellipsisLine.ReplaceAllString(out, "")
	return out, out != src
}

// untemplateBash replaces a shell block's placeholders by a plain word;
// changed is false when it has none. Only angle placeholders break shell
// syntax (as redirections); {{x}} and [...] are valid words.
func untemplateBash(src string) (out string, changed bool) {
	out = anglePlaceholder.ReplaceAllString(src, "PLACEHOLDER")
	return out, out != src
}

// placeholderString matches a string value that is a slot, not a value:
// '<timestamp>', '<pass|review|fail>', '{ISO8601}', '{{id}}', '[...]'.
var placeholderString = regexp.MustCompile(`^\s*(?:<[^<>]+>|\{\{?[^{}]+\}?\}|\[[^\[\]]*\]|\.\.\.|…)\s*$`)

// isPlaceholder reports whether a literal string is a template slot.
func isPlaceholder(s string) bool {
	return placeholderString.MatchString(s) || strings.Contains(s, "{{")
}
