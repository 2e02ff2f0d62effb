package parse

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/skillkit/skillkit/jsstatic"
	"github.com/skillkit/skillkit/plan"
)

// readPhase fills a phase from its markdown.
func readPhase(m *md, n plan.Number, slug string) *plan.Phase {
	p := &plan.Phase{Doc: m.doc, Number: n, Slug: slug, Title: m.doc.Title}
	if mm := phaseTitle.FindStringSubmatch(m.doc.Title); mm != nil {
		p.HeadingNumber, p.Title = mm[1], mm[2]
	}
	p.Description = firstParagraph(m)
	p.Objective, p.Input = sectionText(m, plan.SecObjective), sectionText(m, plan.SecInput)
	p.Steps = readSteps(m)
	if len(p.Steps) == 0 && slug != "orchestrator" {
		// Never skip a phase silently: what it says is for the agent.
		p.Steps = []*plan.Step{{Title: p.Title, Pos: plan.Pos{File: m.doc.File, Line: 1, Col: 1}, Text: m.text(1, m.numLines()), Whole: true}}
	}
	if s := m.section(plan.SecOutput); s != nil {
		p.Outputs = readOutputs(m, s)
	}
	if s := m.section(plan.SecNextPhase); s != nil {
		p.NextText = sectionText(m, plan.SecNextPhase)
		for _, l := range m.doc.Links {
			if l.Pos.Line > s.Pos.Line && l.Pos.Line <= s.EndLine {
				p.Next = l
				break
			}
		}
	}
	return p
}

// sectionText is the markdown of the section with key, heading excluded,
// or "" when there is none.
func sectionText(m *md, key string) string {
	s := m.section(key)
	if s == nil {
		return ""
	}
	return strings.TrimSpace(m.text(s.Pos.Line+1, s.EndLine))
}

// firstParagraph is the text between the H1 and the first other heading,
// the phase's one-sentence description.
func firstParagraph(m *md) string {
	start := m.doc.TitlePos.Line + 1
	if m.doc.TitlePos.Line == 0 {
		return ""
	}
	var out []string
	for n := start; n <= m.numLines(); n++ {
		l := strings.TrimSpace(m.line(n))
		if strings.HasPrefix(l, "#") || strings.HasPrefix(l, "```") || strings.HasPrefix(l, "|") {
			break
		}
		if l == "" {
			if len(out) > 0 {
				break
			}
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, " ")
}

// readSteps finds a phase's steps. Step headings ("### Step 2: x",
// "## Step 2.1") inside the execution section, else anywhere, are the steps,
// at the outermost level they occur; without step headings the execution
// section as a whole is one step. "Anywhere" also applies when the
// execution section has none: an "Execution Process" overview followed by
// "Detailed Steps" keeps its steps.
func readSteps(m *md) []*plan.Step {
	exec := m.section(plan.SecExecution)
	from, to := 1, m.numLines()
	if exec != nil {
		from, to = exec.Pos.Line, exec.EndLine
	}
	heads, level := stepHeads(m, from, to, exec != nil)
	if len(heads) == 0 && exec != nil {
		from, to = 1, m.numLines()
		heads, level = stepHeads(m, from, to, false)
	}
	var steps []*plan.Step
	for _, hi := range heads {
		h := m.headings[hi]
		if h.level != level {
			continue
		}
		end := to
		for _, next := range m.headings[hi+1:] {
			if next.level <= h.level {
				end = min(end, next.line-1)
				break
			}
		}
		number, title, _ := plan.StepHeading(h.text)
		st := &plan.Step{Number: number, Title: title, Pos: m.at(h.line, h.col), Text: m.text(h.line, end)}
		fillStep(m, st, h.line, end)
		steps = append(steps, st)
	}
	if len(steps) == 0 && exec != nil {
		st := &plan.Step{Title: exec.Heading, Pos: exec.Pos, Text: m.text(exec.Pos.Line, exec.EndLine)}
		fillStep(m, st, exec.Pos.Line, exec.EndLine)
		steps = append(steps, st)
	}
	return steps
}

// stepHeads returns the indexes into m.headings of the step headings
// within lines from..to (after from when inside is set), and the
// outermost level they occur at.
func stepHeads(m *md, from, to int, inside bool) (heads []int, level int) {
	level = 7
	for i, h := range m.headings {
		if h.line <= from && inside || h.line > to || h.level < 2 {
			continue
		}
		if _, _, ok := plan.StepHeading(h.text); ok {
			heads = append(heads, i)
			level = min(level, h.level)
		}
	}
	return heads, level
}

func fillStep(m *md, st *plan.Step, from, to int) {
	st.Code = m.codeIn(from, to)
	readAttrs(m, &st.Attrs, from, to)
	if st.Attrs.Tool != nil {
		toolStep(m, st)
	}
}

// readAttrs reads the bold-key attribute list right under the heading at
// line from: the first non-blank line after it must start the list.
func readAttrs(m *md, attrs *plan.StepAttrs, from, to int) {
	first := from + 1
	for first <= to && strings.TrimSpace(m.line(first)) == "" {
		first++
	}
	for _, it := range m.listsIn(first, to) {
		if it.line > first && !attrListContinues(m, first, it.line) {
			break
		}
		if !readAttr(m, attrs, it) {
			break
		}
		first = it.line
	}
}

// attrListContinues reports whether lines from..to are all list lines
// (so the attribute list is still going).
func attrListContinues(m *md, from, to int) bool {
	for n := from; n < to; n++ {
		l := strings.TrimSpace(m.line(n))
		if l != "" && !strings.HasPrefix(l, "-") && !strings.HasPrefix(l, "*") {
			return false
		}
	}
	return true
}

// boldKey matches "**Key**: value" and "**Key:** value".
var boldKey = regexp.MustCompile(`^\*\*([^*:：]+?)\s*[:：]?\*\*\s*[:：]?\s*(.*)$`)

// matchBoldKey is boldKey's submatches of s, nil when none. Most list
// items do not start with "**": they skip the expression, whose set-up
// alone costs in proportion to the item's length.
func matchBoldKey(s string) []string {
	if !strings.HasPrefix(s, "**") {
		return nil
	}
	return boldKey.FindStringSubmatch(s)
}

// readAttr reads one attribute line into the step; false when the line is
// not an attribute, which ends the attribute list.
func readAttr(m *md, attrs *plan.StepAttrs, it *listItem) bool {
	mm := matchBoldKey(it.text)
	if mm == nil {
		return false
	}
	key := strings.ToLower(strings.TrimSpace(mm[1]))
	val := strings.TrimSpace(mm[2])
	p := m.at(it.line, it.col)
	switch key {
	case "condition":
		attrs.Condition = &plan.Expr{Text: val, JS: conditionJS(val), Pos: p}
	case "confirm":
		attrs.Confirm = readConfirm(m, val, p)
	case "on error", "on-error", "onerror":
		attrs.OnError = readOnError(m, val, p)
	case "review":
		// "required" is the one value: a step without the attribute needs
		// no review.
		if !strings.EqualFold(strings.Trim(val, "`"), "required") {
			m.diag(p, plan.SevError, "step-attribute", "Review "+strconv.Quote(val)+" is not required (the one value; leave the attribute out for no review)")
			return true
		}
		attrs.Review = &p
	case "timeout":
		d, err := time.ParseDuration(strings.Trim(val, "`"))
		if err != nil || d <= 0 {
			m.diag(p, plan.SevError, "step-attribute", "Timeout "+strconv.Quote(val)+" is not a Go duration such as 30s or 2m")
			return true
		}
		attrs.Timeout = &plan.Timeout{Duration: d, Pos: p}
	case "tool":
		name := strings.Trim(val, "`")
		if _, _, ok := jsstatic.SplitMCP(name); !ok {
			m.diag(p, plan.SevError, "step-attribute", "Tool "+strconv.Quote(val)+" is not an MCP tool name such as mcp__server__tool")
			return true
		}
		if attrs.Tool == nil {
			attrs.Tool = &plan.ToolCall{}
		}
		attrs.Tool.Name, attrs.Tool.Pos = name, p
	case "save as":
		if attrs.Tool == nil {
			// Placed here until a Tool line says where the call is.
			attrs.Tool = &plan.ToolCall{Pos: p}
		}
		attrs.Tool.SaveAs = strings.Trim(val, "`")
	default:
		return false
	}
	return true
}

// confirmTail matches the "(default: skip, timeout: 30s)" tail of Confirm.
var confirmTail = regexp.MustCompile(`\(([^()]*)\)\s*$`)

func readConfirm(m *md, val string, p plan.Pos) *plan.Confirm {
	c := &plan.Confirm{Question: val, Default: plan.ConfirmAbort, Pos: p}
	mm := confirmTail.FindStringSubmatch(val)
	if mm == nil {
		return c
	}
	c.Question = strings.TrimSpace(val[:len(val)-len(mm[0])])
	for _, part := range strings.Split(mm[1], ",") {
		k, v, ok := strings.Cut(part, ":")
		if !ok {
			continue
		}
		k, v = strings.ToLower(strings.TrimSpace(k)), strings.ToLower(strings.TrimSpace(v))
		switch k {
		case "default":
			switch a := plan.ConfirmAnswer(v); a {
			case plan.ConfirmYes, plan.ConfirmSkip, plan.ConfirmAbort, plan.ConfirmAgent:
				c.Default = a
			case "let_claude":
				// The specification's word for agent.
				c.Default = plan.ConfirmAgent
			default:
				m.diag(p, plan.SevError, "step-attribute", "Confirm default "+strconv.Quote(v)+" is not one of yes, skip, abort, agent (or let_claude)")
			}
		case "timeout":
			d, err := time.ParseDuration(v)
			if err != nil {
				m.diag(p, plan.SevError, "step-attribute", "Confirm timeout "+strconv.Quote(v)+" is not a Go duration")
				continue
			}
			c.Timeout = d
		}
	}
	return c
}

// onErrorRe reads "abort", "continue", "retry 3", "retry 3 backoff 2s".
var onErrorRe = regexp.MustCompile(`^(?i)(abort|continue|retry)(?:\s+(\d+))?(?:\s*,?\s*backoff\s+(\S+))?$`)

func readOnError(m *md, val string, p plan.Pos) *plan.OnError {
	mm := onErrorRe.FindStringSubmatch(strings.Trim(strings.TrimSpace(val), "`"))
	if mm == nil {
		m.diag(p, plan.SevError, "step-attribute", "On error "+strconv.Quote(val)+" is not abort, continue or retry N [backoff D]")
		return nil
	}
	oe := &plan.OnError{Policy: plan.Policy(strings.ToLower(mm[1])), Pos: p}
	if oe.Policy == plan.OnErrorRetry {
		oe.Retries = 1
		if mm[2] != "" {
			// Atoi fails past the int range: that is over the bound too.
			n, err := strconv.Atoi(mm[2])
			if err != nil || n > plan.MaxRetries {
				m.diag(p, plan.SevError, "step-attribute", fmt.Sprintf("On error retry %s is more than %d retries", mm[2], plan.MaxRetries))
				n = plan.MaxRetries
			}
			oe.Retries = n
		}
		if mm[3] != "" {
			oe.Backoff = readBackoff(m, mm[3], p)
		}
	}
	return oe
}

// readBackoff reads the D of "retry N backoff D", within the bounds.
func readBackoff(m *md, val string, p plan.Pos) time.Duration {
	d, err := time.ParseDuration(val)
	switch {
	case err != nil:
		m.diag(p, plan.SevError, "step-attribute", "On error backoff "+strconv.Quote(val)+" is not a Go duration")
		return 0
	case d < plan.MinBackoff:
		m.diag(p, plan.SevError, "step-attribute", fmt.Sprintf("On error backoff %s is under %v", val, plan.MinBackoff))
		return plan.MinBackoff
	case d > plan.MaxBackoff:
		m.diag(p, plan.SevError, "step-attribute", fmt.Sprintf("On error backoff %s is over %v, the longest wait between attempts", val, plan.MaxBackoff))
		return plan.MaxBackoff
	}
	return d
}

// readOutputs reads "**File**: `x`", "**Format**: JSON", "**Schema**: `s`"
// lines; Format and Schema belong to the File above them.
func readOutputs(m *md, s *plan.Section) []*plan.Output {
	var out []*plan.Output
	var walk func(items []*listItem)
	walk = func(items []*listItem) {
		for _, it := range items {
			if mm := matchBoldKey(it.text); mm != nil {
				val := strings.TrimSpace(mm[2])
				switch strings.ToLower(strings.TrimSpace(mm[1])) {
				case "file", "文件":
					out = append(out, &plan.Output{File: firstCodeSpan(val), Pos: m.at(it.line, it.col)})
				case "format", "格式":
					if len(out) > 0 {
						out[len(out)-1].Format = outputFormat(val)
					}
				case "schema":
					if len(out) > 0 {
						out[len(out)-1].Schema = firstCodeSpan(val)
					}
				}
			}
			walk(it.children)
		}
	}
	walk(m.listsIn(s.Pos.Line, s.EndLine))
	return out
}

// firstCodeSpan returns the text of the first `code span`, else the whole
// value trimmed.
func firstCodeSpan(v string) string {
	if i := strings.Index(v, "`"); i >= 0 {
		if j := strings.Index(v[i+1:], "`"); j >= 0 {
			return v[i+1 : i+1+j]
		}
	}
	return strings.TrimSpace(v)
}

func outputFormat(v string) string {
	w := strings.ToLower(strings.Trim(strings.TrimSpace(v), "`"))
	if f := strings.Fields(w); len(f) > 0 {
		w = strings.Trim(f[0], ",.;()")
	}
	switch w {
	case "json", "jsonl":
		return "json"
	case "yaml", "yml":
		return "yaml"
	case "markdown", "md":
		return "markdown"
	case "text", "txt", "plain":
		return "text"
	}
	return w
}
