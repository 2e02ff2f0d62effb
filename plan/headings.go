package plan

import (
	"bytes"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// sectionAliases maps a normalized heading to its canonical key. It is
// the one table of section names: the parser files sections under these
// keys, and lint's and the runtime's views of a section (has this phase
// an execution section?) follow from it, so they cannot disagree. Real
// skills write the same section many ways, in English and in Chinese: the
// forms of the corpus (parse/testdata/headings.golden lists every corpus
// heading that maps here) and their common variants.
var sectionAliases = map[string]string{
	"objective": SecObjective, "objectives": SecObjective, "goal": SecObjective,
	"goals": SecObjective, "task objective": SecObjective,
	"目标": SecObjective, "任务目标": SecObjective, "阶段目标": SecObjective,

	"input": SecInput, "inputs": SecInput,
	"输入": SecInput, "输入参数": SecInput,

	"execution": SecExecution, "execution steps": SecExecution, "steps": SecExecution,
	"execution flow": SecExecution, "execution process": SecExecution, "execution phases": SecExecution,
	"execution protocol": SecExecution, "execution logic": SecExecution,
	"执行": SecExecution, "执行步骤": SecExecution, "执行流程": SecExecution, "执行逻辑": SecExecution,
	"执行过程": SecExecution, "步骤": SecExecution, "操作步骤": SecExecution,

	"output": SecOutput, "outputs": SecOutput,
	"输出": SecOutput, "输出结果": SecOutput, "产出": SecOutput,

	"next phase": SecNextPhase, "next step": SecNextPhase,
	"下一阶段": SecNextPhase, "下一步": SecNextPhase,

	"purpose": SecPurpose, "目的": SecPurpose, "用途": SecPurpose,

	"preconditions": SecPreconditions, "precondition": SecPreconditions,
	"前置条件": SecPreconditions, "先决条件": SecPreconditions,

	"state update": SecStateUpdates, "state updates": SecStateUpdates,
	"状态更新": SecStateUpdates,

	"next actions": SecNextActions, "next actions (hints)": SecNextActions,
	"next action": SecNextActions, "下一步动作": SecNextActions, "后续动作": SecNextActions,

	"decision logic": SecDecisionLogic, "决策逻辑": SecDecisionLogic,

	"action catalog": SecActionCatalog, "available actions": SecActionCatalog,
	"动作目录": SecActionCatalog, "动作列表": SecActionCatalog,

	"initial state": SecInitialState, "初始状态": SecInitialState,
	"初始化": SecInitialState, "初始化状态": SecInitialState,

	// "Structure Definition" is execution modes' own heading.
	"schema definition": SecSchema, "structure definition": SecSchema,
	"state schema": SecSchema, "schema": SecSchema,
	"状态结构": SecSchema, "状态定义": SecSchema, "状态模式": SecSchema,
}

// trimGloss drops a heading's gloss, a parenthesised note after its
// name in either script's parentheses: "Execution Flow (执行流程)",
// "执行流程（Execution）". It reads the heading by hand, as the expression
// `\s*[(（][^()（）]*[)）]$` would (FuzzTrimGloss holds the two together):
// every heading of every file goes through it.
func trimGloss(h string) string {
	var body string
	switch {
	case strings.HasSuffix(h, ")"):
		body = h[:len(h)-len(")")]
	case strings.HasSuffix(h, "）"):
		body = h[:len(h)-len("）")]
	default:
		return h
	}
	i := strings.LastIndexAny(body, "()（）")
	if i < 0 || body[i] == ')' || strings.HasPrefix(body[i:], "）") {
		return h
	}
	return strings.TrimRight(h[:i], " \t\n\f\r") // \s in RE2
}

// stepHeading matches "Step 2", "Step 2.1: Title", "Step 3 - Title" and
// the Chinese "步骤 2". StepHeading reads a one-line heading by hand, the
// same way (FuzzStepHeading holds the two together): a long phase has a
// heading per step, each read at every change in an editor, and the
// expression backtracks over every one.
var stepHeading = regexp.MustCompile(`^(?i:step|步骤)\s*(\d+(?:\.\d+)*)\s*[:：.\-–—]?\s*(.*)$`)

// StepHeading reports whether a heading's text names a step, and its
// number and title: the parser's steps and lint's checks of headings
// that are not steps read it alike.
func StepHeading(text string) (number, title string, ok bool) {
	rest, ok := cutStepWord(text)
	if !ok {
		return "", "", false
	}
	if strings.ContainsAny(text, "\r\n") {
		// \s crosses lines where . does not: the expression decides.
		m := stepHeading.FindStringSubmatch(text)
		if m == nil {
			return "", "", false
		}
		return m[1], m[2], true
	}
	rest = trimSpaceLeft(rest)
	end := digits(rest)
	if end == 0 {
		return "", "", false
	}
	for end < len(rest) && rest[end] == '.' {
		n := digits(rest[end+1:])
		if n == 0 {
			break
		}
		end += 1 + n
	}
	number, rest = rest[:end], trimSpaceLeft(rest[end:])
	for _, sep := range []string{":", "：", ".", "-", "–", "—"} {
		if r, ok := strings.CutPrefix(rest, sep); ok {
			rest = r
			break
		}
	}
	return number, trimSpaceLeft(rest), true
}

// cutStepWord cuts the word a step heading starts with: "step" in any
// case (folded as the expression folds) or "步骤".
func cutStepWord(text string) (string, bool) {
	if r, ok := strings.CutPrefix(text, "步骤"); ok {
		return r, true
	}
	i := 0
	for n := 0; n < 4 && i < len(text); n++ {
		_, size := utf8.DecodeRuneInString(text[i:])
		i += size
	}
	if !strings.EqualFold(text[:i], "step") {
		return "", false
	}
	return text[i:], true
}

// trimSpaceLeft drops what \s matches: ASCII tab, newline, form feed,
// carriage return and space.
func trimSpaceLeft(s string) string {
	return strings.TrimLeft(s, "\t\n\f\r ")
}

// digits is how many ASCII digits s starts with.
func digits(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

// leadingEnumeration drops "1.", "2)" that some authors put before a
// heading's words.
var leadingEnumeration = regexp.MustCompile(`^(?:\d+[.)]\s*)+`)

// normalizeHeading lower-cases a heading and strips what does not change its
// meaning: enumeration, a trailing colon, bold marks, surrounding space.
func normalizeHeading(h string) string {
	if singleSpaced(h) {
		// Most headings: nothing to strip but case, and no copy to
		// make for that when it is already lower.
		return strings.ToLower(h)
	}
	return normalizeFull(h)
}

// normalizeFull is normalizeHeading for any heading.
func normalizeFull(h string) string {
	h = strings.TrimSpace(strings.ReplaceAll(h, "**", ""))
	if h != "" && h[0] >= '0' && h[0] <= '9' {
		h = leadingEnumeration.ReplaceAllString(h, "")
	}
	h = strings.TrimRight(h, ":： ")
	return strings.ToLower(strings.Join(strings.Fields(h), " "))
}

// singleSpaced reports whether normalizeHeading would only lower-case
// h: it starts with no digit, holds no "**", ends in no colon, and its
// words are apart by one ASCII space each, with none around them.
func singleSpaced(h string) bool {
	if h == "" || h[0] >= '0' && h[0] <= '9' || strings.Contains(h, "**") {
		return false
	}
	prevSpace := true // a space first is not single
	for _, r := range h {
		switch {
		case r == ' ':
			if prevSpace {
				return false
			}
			prevSpace = true
		case unicode.IsSpace(r):
			return false
		default:
			prevSpace = false
		}
	}
	return !prevSpace && !strings.HasSuffix(h, ":") && !strings.HasSuffix(h, "：")
}

// SectionKey returns the canonical key (a Sec constant) of a heading as
// written, "" for a heading that is no known section.
func SectionKey(heading string) string {
	if k, ok := sectionKeyASCII(heading); ok {
		return k
	}
	return sectionKeyFull(heading)
}

// sectionKeyASCII is SectionKey for the common heading, short, ASCII,
// single-spaced and without a gloss, lowered into a buffer rather than a
// new string (FuzzSectionKey holds it to sectionKeyFull): every heading
// of every file is keyed. ok is false for any other heading.
func sectionKeyASCII(h string) (key string, ok bool) {
	var buf [64]byte
	if len(h) > len(buf) || strings.HasSuffix(h, ")") || !singleSpaced(h) {
		return "", false
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		if c >= utf8.RuneSelf {
			return "", false
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	n := buf[:len(h)]
	if k, ok := sectionAliases[string(n)]; ok {
		return k, true
	}
	if bytes.HasPrefix(n, []byte("initial state")) {
		return SecInitialState, true
	}
	return "", true
}

// sectionKeyFull is SectionKey for any heading.
func sectionKeyFull(heading string) string {
	n := normalizeHeading(heading)
	if k, ok := sectionAliases[n]; ok {
		return k
	}
	// Bilingual skills gloss a heading in the other language; the name
	// before the gloss is the section's.
	if bare := trimGloss(n); bare != n && bare != "" {
		if k, ok := sectionAliases[bare]; ok {
			return k
		}
	}
	// "Initial State Template", "Initial State (New Cycle)".
	if strings.HasPrefix(n, "initial state") || strings.HasPrefix(n, "初始状态") {
		return SecInitialState
	}
	return ""
}
