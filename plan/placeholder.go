package plan

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// A placeholder is a slot in a skill's text for the model (or the author
// of a new skill) to fill in: <count>, {name}, {{ID}}, [sessionId]. This
// file is the one definition; class, lint and the outputs of a run use
// it. Where a slot may stand differs, and so does what counts as one:
//
//   - In bash (BashPlaceholder) only braces are slots: {name} and {{name}}
//     cannot be shell, while <x> is a redirection and [x] a test or a glob;
//     ${name} is the shell's own. A block with a slot goes to the agent.
//   - In a code block lint checks for syntax (UntemplateJS, UntemplateBash)
//     the slots are those that break the language: <words…> (up to 80
//     characters on one line, never "a < b"), {{name}}, and "..." for
//     omitted code. In bash only <x> breaks the syntax.
//   - As a whole string value (IsPlaceholderString) any bracketed text is
//     a slot: '<pass|review|fail>', '{ISO8601}', '[...]'.
//   - In an output path (GlobPlaceholders) a slot is one name in any
//     bracket, ${VAR} included: no shell expands the path, so the file
//     can only be matched, with * in the slot's place.
//
// The variants are kept apart on purpose: one pattern for all would make
// a redirection a slot, or let a placeholder in a path match nothing.
// The corpus golden (lint/testdata/corpus.golden) pins what they find.
var (
	// bashSlot is {name} or {{name}} not after $, \ or {.
	bashSlot = regexp.MustCompile(`(?:^|[^$\\{])(\{\{?[A-Za-z_][\w.-]*\}?\})`)
	// angleSlot is <word…>: an identifier-like start, no nested brackets,
	// on one line. It does not match comparisons written with spaces
	// (a < b) or HTML closing tags.
	angleSlot = regexp.MustCompile(`<[\p{L}\p{N}_][^<>\n]{0,80}>`)
	// mustacheSlot is {{name}}.
	mustacheSlot = regexp.MustCompile(`\{\{[^{}\n]*\}\}`)
	// ellipsisElement is "..." standing for omitted elements: [...],
	// { ... }, f(...), "a, ...".
	ellipsisElement = regexp.MustCompile(`(?:\.\.\.|…)(\s*[\]\}\),])`)
	// ellipsisLine is a line that is only "..." (omitted statements).
	ellipsisLine = regexp.MustCompile(`(?m)^[ \t]*(?:\.\.\.|…)[ \t]*$`)
	// stringSlot is a whole string that is a slot.
	stringSlot = regexp.MustCompile(`^\s*(?:<[^<>]+>|\{\{?[^{}]+\}?\}|\[[^\[\]]*\]|\.\.\.|…)\s*$`)
	// pathSlot is a part of an output path: [sessionId], {name}, <slug>,
	// ${VAR}.
	pathSlot = regexp.MustCompile(`\[[A-Za-z_][\w-]*\]|\$?\{[A-Za-z_][\w.-]*\}|<[A-Za-z_][\w-]*>`)
)

// BashPlaceholder returns the first slot of a shell block's text and its
// byte offset; ok is false when it has none.
func BashPlaceholder(text string) (slot string, at int, ok bool) {
	if !bashSlotStart(text) {
		return "", 0, false // no slot: spare the regular expression
	}
	loc := bashSlot.FindStringSubmatchIndex(text)
	if loc == nil {
		return "", 0, false
	}
	return text[loc[2]:loc[3]], loc[2], true
}

// bashSlotStart reports whether text has what every bashSlot match
// starts with: a brace not after "$", "\\" or another brace, followed by a
// name's first character or a second brace. Shell blocks are full of
// braces (${VAR}, groups, functions) that start no slot, and the
// expression cannot skip to a candidate by itself.
func bashSlotStart(text string) bool {
	for i := 0; ; i++ {
		j := strings.IndexByte(text[i:], '{')
		if j < 0 {
			return false
		}
		i += j
		if i > 0 && (text[i-1] == '$' || text[i-1] == '\\' || text[i-1] == '{') || i+1 == len(text) {
			continue
		}
		if c := text[i+1]; c == '{' || c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' {
			return true
		}
	}
}

// angleSlotStart reports whether s has what every angleSlot match
// starts with: "<" before a letter, a digit or "_" (a byte past ASCII may
// start a letter). Code is full of "<" that starts no slot (a < b,
// heredocs, redirections), and the expression cannot skip to a candidate
// by itself.
func angleSlotStart(s string) bool {
	for i := 0; ; i++ {
		j := strings.IndexByte(s[i:], '<')
		if j < 0 {
			return false
		}
		i += j
		if i+1 == len(s) {
			return false
		}
		if c := s[i+1]; c == '_' || c >= utf8.RuneSelf || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' {
			return true
		}
	}
}

// JSStandIn is what UntemplateJS puts in a slot's place: an identifier,
// valid wherever a value is ({{items}}.map(…), count: <n>).
const JSStandIn = "_tpl_"

// UntemplateJS replaces a JavaScript block's slots by neutral values;
// changed is false when it has none.
func UntemplateJS(src string) (out string, changed bool) {
	out, back := untemplateJS(src)
	return out, back != nil
}

// untemplateJS is UntemplateJS, with back mapping a byte offset of out
// to the offset of src it came from (nil when nothing changed): a
// diagnostic of the filled text is given where the block has it. No
// replacement adds or removes a line break.
func untemplateJS(src string) (out string, back func(int) int) {
	// Each pattern needs a character most blocks lack: lint tries every
	// block that does not parse, so those skip the expression.
	var passes [][]edit
	out = src
	replace := func(re *regexp.Regexp, with string, keep bool) {
		var edits []edit
		out, edits = replaceEdits(re, out, with, keep)
		if edits != nil {
			passes = append(passes, edits)
		}
	}
	if angleSlotStart(out) {
		replace(angleSlot, JSStandIn, false)
	}
	if strings.Contains(out, "{{") {
		replace(mustacheSlot, JSStandIn, false)
	}
	if strings.Contains(out, "...") || strings.Contains(out, "…") {
		// Most blocks' "..." is a spread (f(...args)), a slot nowhere:
		// the expressions run only where a scan finds a match for them.
		if ellipsisBeforeCloser(out) {
			replace(ellipsisElement, "", true)
		}
		if ellipsisOnlyLine(out) {
			replace(ellipsisLine, "", false)
		}
	}
	if passes == nil {
		return out, nil
	}
	return out, func(off int) int {
		for i := len(passes) - 1; i >= 0; i-- {
			off = mapBack(passes[i], off)
		}
		return off
	}
}

// edit is one replacement of a pass: at in the pass's output, old bytes
// of its input became new bytes.
type edit struct{ at, old, new int }

// replaceEdits is re.ReplaceAllString(s, with), with the edits made; with
// keep, the match's first group stays as it was after the part replaced
// (the closer after an ellipsis).
func replaceEdits(re *regexp.Regexp, s, with string, keep bool) (string, []edit) {
	var (
		b     strings.Builder
		edits []edit
		last  int
	)
	for _, m := range re.FindAllStringSubmatchIndex(s, -1) {
		end := m[1]
		if keep {
			end = m[2]
		}
		b.WriteString(s[last:m[0]])
		edits = append(edits, edit{at: b.Len(), old: end - m[0], new: len(with)})
		b.WriteString(with)
		last = end
	}
	if edits == nil {
		return s, nil
	}
	b.WriteString(s[last:])
	return b.String(), edits
}

// mapBack maps an offset of a pass's output to its input: within a
// replacement, to the same distance into what it replaced, at most its
// last byte.
func mapBack(edits []edit, off int) int {
	shift := 0
	for _, e := range edits {
		if off < e.at {
			break
		}
		if off < e.at+e.new {
			return e.at - shift + min(off-e.at, max(e.old-1, 0))
		}
		shift += e.new - e.old
	}
	return off - shift
}

// ellipsisBeforeCloser reports whether ellipsisElement matches s: an
// ellipsis followed, past blanks, by a closing bracket or a comma.
func ellipsisBeforeCloser(s string) bool {
	for i := 0; i < len(s); i++ {
		n := 3
		switch {
		case strings.HasPrefix(s[i:], "..."):
		case strings.HasPrefix(s[i:], "…"):
			n = len("…")
		default:
			continue
		}
		k := i + n
		for k < len(s) && strings.IndexByte(" \t\n\f\r", s[k]) >= 0 { // \s in RE2
			k++
		}
		if k < len(s) && strings.IndexByte("]}),", s[k]) >= 0 {
			return true
		}
	}
	return false
}

// ellipsisOnlyLine reports whether ellipsisLine matches s: a line that is
// an ellipsis between spaces and tabs.
func ellipsisOnlyLine(s string) bool {
	for line := range strings.SplitSeq(s, "\n") {
		if t := strings.Trim(line, " \t"); t == "..." || t == "…" {
			return true
		}
	}
	return false
}

// UntemplateBash replaces a shell block's slots by a plain word; changed
// is false when it has none. Only angle slots break shell syntax (as
// redirections); {{x}} and [...] are valid words.
func UntemplateBash(src string) (out string, changed bool) {
	if !angleSlotStart(src) {
		return src, false
	}
	out = angleSlot.ReplaceAllString(src, "PLACEHOLDER")
	return out, out != src
}

// IsPlaceholderString reports whether a literal string value is a slot,
// not a value: '<timestamp>', '{ISO8601}', '{{id}}', '[...]', or any
// string holding {{.
func IsPlaceholderString(s string) bool {
	return stringSlot.MatchString(s) || strings.Contains(s, "{{")
}

// GlobPlaceholders turns an output path into a pattern: each slot becomes
// *, so that the file the model named can be matched.
func GlobPlaceholders(path string) string { return pathSlot.ReplaceAllString(path, "*") }
