package lint

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/skillkit/skillkit/plan"
)

// Budgets: what a host loads of every skill (the listing) and of a skill
// that triggers (the body) is bounded, so a skill past them is cut or
// crowds out others.
const (
	// maxBodyLines and maxBodyTokens are the Agent Skills specification's
	// advice for SKILL.md's body: under 500 lines and 5,000 tokens, with
	// detail moved into referenced files.
	maxBodyLines  = 500
	maxBodyTokens = 5000
	// maxListing is how many characters of description and when_to_use
	// Claude Code shows in its skill listing.
	maxListing = 1536
)

var budgetRules = []Rule{
	newRule("body-length", plan.SevWarning,
		"SKILL.md's body is longer than the 500 lines or 5,000 tokens the Agent Skills specification advises", checkBodyLength),
	newRule("listing-too-long", plan.SevWarning,
		"description and when_to_use together are longer than the 1,536 characters Claude Code lists", checkListing),
	newRule("listing-budget", plan.SevWarning,
		"the skills of a repository together list more characters than the listing-budget of skillkit.yaml",
		// Checked across skills, after each is linted (listingBudgets).
		func(*Pass) {}),
	newRule("arguments-no-hint", plan.SevWarning,
		"SKILL.md uses $ARGUMENTS but has no argument-hint, so the user is not told what to pass", checkArgumentHint),
	newRule("allowed-tools-unknown", plan.SevWarning,
		"an allowed-tools entry is no tool of the profile's host", checkAllowedTools),
}

// bodyStart is SKILL.md's first line after the front matter: past the
// opening ---, the YAML lines (Raw joins them without a final newline)
// and the closing ---.
func bodyStart(s *plan.Skill) int {
	fm := s.FrontMatter
	switch {
	case fm == nil || !fm.Closed:
		return 1
	case fm.Raw == "":
		return 3
	}
	return strings.Count(fm.Raw, "\n") + 4
}

// lineTokens estimates the tokens of a line and its newline as a model's
// tokenizer counts them: about four characters of Latin script per token,
// one per CJK character. The newline is counted, not appended: the body
// rule calls this for every line of SKILL.md.
func lineTokens(text string) int {
	wide, other := 0, 1
	// Bytes below utf8.RuneSelf are whole characters and none is wide:
	// they are counted without decoding (the rule asks of every line of
	// every SKILL.md, and decoding each was a sixth of the rules' time).
	for i := 0; i < len(text); {
		if text[i] < utf8.RuneSelf {
			other++
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(text[i:])
		if isWide(r) {
			wide++
		} else {
			other++
		}
		i += n
	}
	return wide + (other+3)/4
}

func checkBodyLength(p *Pass) {
	s := p.Skill
	if s.Entry != "SKILL.md" || s.Body == nil {
		return
	}
	start := bodyStart(s)
	lines, toks, overAt := 0, 0, 0
	reason := ""
	for n := start; ; n++ {
		line, ok := p.src.line(s.Entry, n)
		if !ok || n > s.Body.Lines {
			break
		}
		lines++
		toks += lineTokens(line)
		if overAt == 0 && lines > maxBodyLines {
			overAt, reason = n, fmt.Sprintf("over %d lines", maxBodyLines)
		}
		if overAt == 0 && toks > maxBodyTokens {
			overAt, reason = n, fmt.Sprintf("over %d tokens", maxBodyTokens)
		}
	}
	if overAt > 0 {
		p.Report(plan.Pos{File: s.Entry, Line: overAt, Col: 1}, "SKILL.md body is %d lines and about %d tokens, %s from this line on; the Agent Skills specification advises under %d lines and %d tokens, with detail moved to referenced files",
			lines, toks, reason, maxBodyLines, maxBodyTokens)
	}
}

// listing returns the text a host lists for the skill: description and
// when_to_use, and where the description is.
func listing(p *Pass) (text string, at *plan.Field) {
	fm := frontMatter(p)
	for _, k := range []string{"description", "when_to_use"} {
		if f := fm.Get(k); f != nil {
			if v, ok := f.Value.(string); ok {
				text += v
				if at == nil {
					at = f
				}
			}
		}
	}
	return text, at
}

func checkListing(p *Pass) {
	text, at := listing(p)
	if n := utf8.RuneCountInString(text); n > maxListing {
		p.ReportRange(at.Pos, at.Pos.Col+len(at.Key), "description and when_to_use are %d characters; Claude Code lists only the first %d, so the rest cannot help it pick the skill", n, maxListing)
	}
}

// argumentsRef is a reference Claude Code replaces with the arguments.
var argumentsRef = regexp.MustCompile(`\$ARGUMENTS\b|\$ARGUMENTS\[\d+\]`)

func checkArgumentHint(p *Pass) {
	s := p.Skill
	if s.Entry != "SKILL.md" || !slices.Contains(p.profile().keys, "argument-hint") {
		return
	}
	if fm := s.FrontMatter; fm != nil && (fm.Error != nil || fm.Get("argument-hint") != nil) {
		return
	}
	for n := bodyStart(s); ; n++ {
		line, ok := p.src.line(s.Entry, n)
		if !ok {
			return
		}
		if !strings.Contains(line, "$ARGUMENTS") {
			continue // the expression's every match holds it
		}
		if loc := argumentsRef.FindStringIndex(line); loc != nil {
			p.ReportRange(plan.Pos{File: s.Entry, Line: n, Col: loc[0] + 1}, loc[1]+1,
				"SKILL.md uses $ARGUMENTS but the front matter has no argument-hint: the user is not told what to pass (for example argument-hint: \"[folder]\")")
			return
		}
	}
}

// toolEntries splits an allowed-tools value into its entries: a list, or
// a string separated by commas or spaces outside parentheses (Bash(git
// log:*) is one entry).
func toolEntries(v any) []string {
	var out []string
	switch v := v.(type) {
	case []any:
		for _, e := range v {
			if s, ok := e.(string); ok {
				out = append(out, toolEntries(s)...)
			}
		}
	case string:
		depth, start := 0, 0
		for i, r := range v + "," {
			switch {
			case r == '(':
				depth++
			case r == ')':
				depth--
			case depth <= 0 && (r == ',' || r == ' ' || r == '\t' || r == '\n'):
				if e := strings.TrimSpace(v[start:min(i, len(v))]); e != "" {
					out = append(out, e)
				}
				start = i + 1
			}
		}
	}
	return out
}

func checkAllowedTools(p *Pass) {
	prof := p.profile()
	f := frontMatter(p).Get("allowed-tools")
	if f == nil || prof.tools == nil {
		return
	}
	for _, e := range toolEntries(f.Value) {
		name, _, _ := strings.Cut(e, "(")
		if strings.HasPrefix(name, "mcp__") || strings.ContainsAny(name, "{}<>*") || slices.Contains(prof.tools, name) {
			continue
		}
		pos, end := p.tokenAt(f.ValuePos, name)
		// A block list has its entries on the lines below the key.
		for n := 1; end == 0 && n <= 50; n++ {
			pos, end = p.tokenAt(plan.Pos{File: f.ValuePos.File, Line: f.ValuePos.Line + n, Col: 1}, name)
		}
		if end == 0 {
			pos = f.ValuePos
		}
		p.ReportRange(pos, end, "allowed-tools names %s, which is no %s tool (profile %s, %s); the host ignores it", codeSpan(name), prof.title, prof.name, prof.version)
	}
}
