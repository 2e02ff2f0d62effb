package lint

import (
	"math"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/skillkit/skillkit/plan"
)

var layoutRules = []Rule{
	diagnosticRule("file-unreadable", plan.SevError, "a file of the skill cannot be read"),
	diagnosticRule("file-binary", plan.SevError, "a markdown file holds NUL bytes"),
	diagnosticRule("file-encoding", plan.SevWarning, "a markdown file is not valid UTF-8"),
	diagnosticRule("file-too-deep", plan.SevError, "a markdown file nests blocks more than 250 levels deep and is skipped"),
	diagnosticRule("step-attribute", plan.SevError, "a step attribute (Timeout, Confirm, On error) has a value skillkit cannot read, or a retry count or backoff past its bounds"),
	newRule("mode-agent", plan.SevInfo,
		"the skill has a phases/ folder but no numbered phase, orchestrator or action: it runs as one agent unit, not natively", checkModeAgent(false)),
	newRule("mode-router", plan.SevInfo,
		"the skill is a router: its entry sends the agent to one of the phases/ files it names, with no numbered phase, orchestrator or action", checkModeAgent(true)),
	newRule("phase-number-duplicate", plan.SevError,
		"two phase files have the same number, so their order is undefined", checkPhaseDuplicates),
	newRule("phase-number-invalid", plan.SevError,
		"a file in phases/ starts with digits that are not a phase number", checkPhaseInvalid),
	newRule("phase-heading-number", plan.SevWarning,
		"the phase title's number differs from the file name's", checkHeadingNumber),
	newRule("phase-no-steps", plan.SevWarning,
		"a numbered phase file has no Execution section and no Step headings: its whole body goes to the agent as one step", checkPhaseNoSteps),
	newRule("action-no-execution", plan.SevWarning,
		"an action file has no Execution section: its whole body goes to the agent", checkActionNoExecution),
	newRule("next-phase-link", plan.SevWarning,
		"a Next Phase link skips past the phase that comes next", checkNextPhase),
	newRule("fence-unclosed", plan.SevError,
		"a code fence is never closed and swallows the rest of the file", checkFenceUnclosed),
	newRule("fence-nested", plan.SevError,
		"a fence inside a fence of the same length ends the outer block early", checkFenceNested),
	newRule("fence-in-html", plan.SevError,
		"a fence right below an HTML tag alone on its line is read as HTML: no code block starts there", checkFenceInHTML),
}

// checkModeAgent explains why a skill with a phases/ folder runs as one
// agent unit: as a router (router set) when the entry names files of
// phases/, the mode real router skills have, else with the reason the
// run's class gives.
func checkModeAgent(router bool) func(p *Pass) {
	return func(p *Pass) {
		s := p.Skill
		if s.Mode != plan.ModeAgent {
			return
		}
		routes, at := p.routes()
		if router {
			if len(routes) > 0 {
				p.Report(at, "%s routes to %s, with no numbered phase, orchestrator or action: an agent follows %s to pick one; skillkit run cannot order them", s.Entry, listSome(routes, 4), s.Entry)
			}
			return
		}
		if len(routes) > 0 {
			return
		}
		// A plain SKILL.md is the common shape and means to be one agent
		// unit; a phases/ folder says its author meant phases.
		if slices.ContainsFunc(s.Files, func(f string) bool { return f == "phases" || strings.HasPrefix(f, "phases/") }) {
			p.Report(plan.Pos{File: "phases"}, "%s", s.AgentReason())
		}
	}
}

// phaseMention is a path into phases/ written in prose or code.
var phaseMention = regexp.MustCompile(`phases/[\w.-]+\.md`)

// routes returns the markdown files of phases/ that the entry document
// links to or names, sorted, and where it first does.
func (p *Pass) routes() (out []string, at plan.Pos) {
	s := p.Skill
	if s.Body == nil {
		return nil, at
	}
	add := func(rel string, pos plan.Pos) {
		if strings.HasPrefix(rel, "phases/") && slices.Contains(s.Files, rel) && !slices.Contains(out, rel) {
			out = append(out, rel)
			if at.File == "" || pos.Line < at.Line {
				at = pos
			}
		}
	}
	for _, l := range s.Body.Links {
		if rel, ok := resolveLink(s.Body.File, l.Target); ok {
			add(rel, l.Pos)
		}
	}
	for n := 1; ; n++ {
		line, ok := p.src.line(s.Body.File, n)
		if !ok {
			break
		}
		for _, m := range phaseMention.FindAllStringIndex(line, -1) {
			add(line[m[0]:m[1]], plan.Pos{File: s.Body.File, Line: n, Col: m[0] + 1})
		}
	}
	slices.Sort(out)
	return out, at
}

func checkPhaseDuplicates(p *Pass) {
	phases := p.Skill.Phases
	for i := 1; i < len(phases); i++ {
		a, b := phases[i-1], phases[i]
		if a.Number.Equal(b.Number) {
			p.Report(declaration(b.Doc), "phase number %s is also %s: the two run in file-name order, which is likely not meant", b.Number, path.Base(a.Doc.File))
		}
	}
}

// leadingDigits matches a file name that starts like a phase number.
var leadingDigits = regexp.MustCompile(`^\d`)

func checkPhaseInvalid(p *Pass) {
	for _, d := range p.Skill.Docs {
		dir, base := path.Split(d.File)
		if dir == "phases/" && leadingDigits.MatchString(base) {
			p.Report(plan.Pos{File: d.File}, "%s starts with digits but is not a phase number (01-name.md, 02.5-name.md, 03a-name.md): it is not run", base)
		}
	}
}

// headingNumber reads the number of a "Phase N:" title the way file names
// are read: 2, 2.5, 2-5, 3a.
var headingNumber = regexp.MustCompile(`^(\d+)(?:[.-](\d+))?([a-z])?$`)

func checkHeadingNumber(p *Pass) {
	for _, ph := range p.Skill.Phases {
		if ph.HeadingNumber == "" {
			continue
		}
		mm := headingNumber.FindStringSubmatch(ph.HeadingNumber)
		if mm == nil {
			continue
		}
		n := plan.Number{Major: atoi(mm[1]), Minor: atoi(mm[2]), Letter: mm[3]}
		if sameSlot(n, ph.Number) {
			continue
		}
		p.ReportRange(ph.Doc.TitlePos, ph.Doc.TitlePos.Col+len("# ")+len(ph.Doc.Title),
			"title says Phase %s but the file is numbered %s", ph.HeadingNumber, ph.Number.Raw)
	}
}

// sameSlot reports whether a title's number and a file's number put the
// phase in the same place: equal, or both "between N and N+1" written two
// ways (Phase 3.5 in 03a-x.md).
func sameSlot(title, file plan.Number) bool {
	if title.Equal(file) {
		return true
	}
	sub := func(n plan.Number) bool { return n.Minor != 0 || n.Letter != "" }
	return title.Major == file.Major && sub(title) && sub(file) &&
		(title.Minor == 0) != (file.Minor == 0)
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}

func checkPhaseNoSteps(p *Pass) {
	for _, ph := range p.Skill.Phases {
		if len(ph.Steps) != 1 || !ph.Steps[0].Whole || p.htmlMisled(ph.Doc, math.MaxInt) {
			// A block an HTML fence misled may hold the headings:
			// fence-in-html tells the cause.
			continue
		}
		p.ReportFix(declaration(ph.Doc), 0, p.executionHeadingFix(ph.Doc), "phase has no Execution section (## Execution) and no Step headings (### Step N: …): its whole body goes to the agent as one step")
	}
}

func checkActionNoExecution(p *Pass) {
	for _, a := range p.Skill.Actions {
		if a.Execution.Whole {
			p.ReportFix(declaration(a.Doc), 0, p.executionHeadingFix(a.Doc), "action has no Execution section (## Execution): its whole body goes to the agent")
		}
	}
}

// branching matches the words of a Next Phase section that offers a
// choice or a loop, where a link past or before the next phase is meant.
var branching = regexp.MustCompile(`(?i)\b(?:if|when|unless|otherwise|else|loop|re-?run|repeat|return)\b|如果|若|否则|循环|重新`)

// checkNextPhase reports a Next Phase link that skips forward past the
// next phase: the mark of a phase inserted (02.5) without rewiring the
// link before it. Links back (loops) and sections that offer a choice are
// deliberate and left alone.
func checkNextPhase(p *Pass) {
	phases := p.Skill.Phases
	byFile := map[string]int{}
	for i, ph := range phases {
		byFile[ph.Doc.File] = i
	}
	for i, ph := range phases {
		if ph.Next == nil || i+1 >= len(phases) {
			continue
		}
		target, ok := resolveLink(ph.Doc.File, ph.Next.Target)
		if !ok {
			continue
		}
		// The words are read last: most links go to the next phase, and
		// the expression (case-folded, with alternatives) is the cost.
		j, isPhase := byFile[target]
		if !isPhase || j <= i+1 || branching.MatchString(ph.NextText) {
			continue
		}
		p.ReportFix(ph.Next.Pos, 0, p.nextPhaseFix(ph, phases[i+1]), "Next Phase links to %s, but %s comes first", path.Base(target), path.Base(phases[i+1].Doc.File))
	}
}

func checkFenceUnclosed(p *Pass) {
	for _, d := range p.Docs() {
		if n := p.nesting(d); n != nil && n.ended > 0 && !p.htmlMisled(d, n.outer.Pos.Line) {
			c := n.outer
			p.Report(plan.Pos{File: d.File, Line: n.ended, Col: 1},
				"this line is indented less than the %s block opened at line %d, inside a list item: it ends the item and the block with it, and the fences after it pair up wrongly; indent it by %d spaces like the block, or close the block before it",
				describeFence(c), c.Pos.Line, c.Pos.Col-1)
		}
		for _, c := range d.Code {
			if c.Fence == "" || c.Closed || p.misread(d, c) {
				continue
			}
			p.ReportRange(c.Pos, c.Pos.Col+len(c.Fence), "%s fence opened here is never closed: everything after it is code", c.Fence)
		}
	}
}

// nesting is the first fence of a document that is misread: written
// inside a fenced block of the same length, or ended early by a line
// that ends the list item the block is in.
type nesting struct {
	outer     *plan.CodeBlock
	line, col int // of the inner opening line, in the file
	run, info string
	// ended is the line that ends the list item, and the outer block
	// with it, when that is the cause; 0 for a nested fence.
	ended int
}

// firstNesting finds the first misread fence of a document. One kind is a
// fence written inside a fenced block with a fence no longer than the
// outer one: CommonMark reads the inner opening line as content (a closing
// fence has no info string) and the inner closing fence as the end of the
// outer block, so the rest of the intended block becomes markdown. The
// inner opening line is the mark: a fence run at least as long as the
// outer fence, of the same character, followed by an info string. The
// other kind is a block in a list item that a line indented less than the
// item ends before its closing fence: the parser reports the block open
// to the end of its container, and that closing fence then opens a new
// block. Every fence after either pairs up wrongly, so only the first one
// is known to be a mistake of its own.
func (p *Pass) firstNesting(d *plan.Doc) *nesting {
	for _, c := range d.Code {
		if c.Fence == "" {
			continue
		}
		if !c.Closed {
			if end := p.nextTextLine(d, lastLine(c)+1); end > 0 {
				return &nesting{outer: c, ended: end}
			}
		}
		if n, indent, run, info, ok := innerFence(c.Text, c.Fence); ok && !closedWithin(c.Text, n, run) {
			pos := c.At(n, indent+1)
			return &nesting{outer: c, line: pos.Line, col: pos.Col, run: run, info: info}
		}
	}
	return nil
}

// innerFence finds the first line of a fenced block's text that opens a
// fence of the same character, at least as long, with an info string; n
// is its 1-based line in text and indent the blanks before the run. Only
// a line whose first character past its blanks is the fence's can, so it
// jumps from one such character to the next instead of reading every
// line: a long block holds few.
func innerFence(text, fence string) (n, indent int, run, info string, ok bool) {
	n = 1 // the line that starts at start
	for start, off := 0, 0; ; {
		at := strings.IndexByte(text[off:], fence[0])
		if at < 0 {
			return 0, 0, "", "", false
		}
		at += off
		if nl := strings.LastIndexByte(text[:at], '\n') + 1; nl > start {
			n += strings.Count(text[start:nl], "\n")
			start = nl
		}
		line := text[start:]
		if end := strings.IndexByte(line, '\n'); end >= 0 {
			line = line[:end]
		}
		t := strings.TrimLeft(line, " \t")
		if start+len(line)-len(t) == at {
			run = fenceRun(t)
			info = strings.TrimSpace(t[len(run):])
			if len(run) >= len(fence) && info != "" && (fence[0] != '`' || !strings.Contains(info, "`")) {
				return n, len(line) - len(t), run, info, true
			}
		}
		// The rest of this line cannot open a fence.
		off = start + len(line) + 1
		if off >= len(text) {
			return 0, 0, "", "", false
		}
	}
}

// closedWithin reports whether the block text holds, after its line n,
// a closing fence for run: a fence the outer block kept as content (one
// indented four columns, as a fence quoted in a YAML prompt is), so the
// inner block closed without ending the outer one, and nothing is misread.
func closedWithin(text string, n int, run string) bool {
	lines := strings.Split(text, "\n")
	for _, l := range lines[min(n, len(lines)):] {
		if closes(strings.TrimLeft(l, " \t"), run) {
			return true
		}
	}
	return false
}

// quoted is a line of markdown without its indent and the markers of
// the blockquotes it is in: what goldmark reads as an HTML block's line.
func quoted(l string) string { return strings.TrimLeft(l, " \t>") }

// closes reports whether line t, its indent removed, is a closing fence
// for a block opened by the fence run.
func closes(t, run string) bool {
	r := fenceRun(t)
	return r != "" && run != "" && len(r) >= len(run) && r[0] == run[0] && strings.TrimSpace(t[len(r):]) == ""
}

// lastLine is the last line of a fenced block's content, its opening line
// when it has none.
func lastLine(c *plan.CodeBlock) int {
	if c.Text == "" {
		return c.Pos.Line
	}
	return c.Body.Line + strings.Count(strings.TrimSuffix(c.Text, "\n"), "\n")
}

// nextTextLine returns the first line from n on that is not blank, 0 when
// the document ends first.
func (p *Pass) nextTextLine(d *plan.Doc, n int) int {
	for ; n <= d.Lines; n++ {
		if strings.TrimSpace(p.line(d.File, n)) != "" {
			return n
		}
	}
	return 0
}

// misread reports whether a block of d may be misread because of a
// misnested fence before it (or is the misnested outer block itself):
// what is wrong with it is that fence's fault.
func (p *Pass) misread(d *plan.Doc, c *plan.CodeBlock) bool {
	if p.htmlMisled(d, c.Pos.Line) {
		return true
	}
	n := p.nesting(d)
	return n != nil && c.Pos.Line >= n.outer.Pos.Line
}

// htmlMisled reports whether a fence that an HTML block holds (plan.Doc's
// HTMLFences) misleads the reading of line: it is above it, and the HTML
// block ends at a blank line before the code's closing fence, which then
// opens a block. An HTML block that holds the closing fence too
// (`<Good>`, the code without a blank line, `</Good>`) keeps the code as
// HTML and leaves every line after it as written.
func (p *Pass) htmlMisled(d *plan.Doc, line int) bool {
	for _, f := range d.HTMLFences {
		if f.Line >= line {
			return false
		}
		if !p.closedInHTML(d.File, f.Line) {
			return true
		}
	}
	return false
}

// closedInHTML reports whether the lines after the fence on line n, up to
// the blank line that ends its HTML block, hold a closing fence for it.
func (p *Pass) closedInHTML(file string, n int) bool {
	run := fenceRun(quoted(p.line(file, n)))
	for n++; ; n++ {
		l, ok := p.src.line(file, n)
		t := quoted(l)
		if !ok || strings.TrimSpace(t) == "" {
			return false
		}
		if closes(t, run) {
			return true
		}
	}
}

// checkFenceInHTML reports the first fence each HTML block holds
// (plan.Doc's HTMLFences): obra/superpowers writes `<Good>` and a
// ```typescript fence on the next line, so the code is HTML up to its
// first blank line, and the fence meant to close it opens a block that
// swallows what follows.
func checkFenceInHTML(p *Pass) {
	for _, d := range p.Docs() {
		for _, f := range d.HTMLFences {
			tag := f.Line - 1
			for tag > 1 && !strings.HasPrefix(quoted(p.line(d.File, tag)), "<") {
				tag--
			}
			run := fenceRun(quoted(p.line(d.File, f.Line)))
			p.ReportRange(f, f.Col+len(run),
				"this fence is read as HTML, not as the start of a code block: the tag %s on line %d opens an HTML block that runs to the next blank line, and where that comes first the fence meant to close the block opens one; put a blank line between the tag and the fence",
				strings.TrimSpace(quoted(p.line(d.File, tag))), tag)
		}
	}
}

// nesting is firstNesting, once per document.
func (p *Pass) nesting(d *plan.Doc) *nesting {
	n, ok := p.nestings[d]
	if !ok {
		n = p.firstNesting(d)
		p.nestings[d] = n
	}
	return n
}

func checkFenceNested(p *Pass) {
	for _, d := range p.Docs() {
		n := p.nesting(d)
		if n == nil || n.ended > 0 {
			continue // fence-unclosed reports a list item that ends a block
		}
		if p.htmlMisled(d, n.outer.Pos.Line) {
			continue // fence-in-html reports the fence that misled
		}
		if line, _ := p.swallowed(d); line > 0 {
			continue // fence-swallows reports the missing closing fence
		}
		c := n.outer
		p.ReportFix(plan.Pos{File: d.File, Line: n.line, Col: n.col}, n.col+len(n.run)+len(n.info), p.fenceFix(d, n),
			"%s%s inside the %s block opened at line %d: its closing %s ends the outer block, and the fences after it pair up wrongly; open the outer block with a longer fence (%s)",
			n.run, n.info, describeFence(c), c.Pos.Line, n.run, strings.Repeat(c.Fence[:1], len(n.run)+1))
	}
}

func describeFence(c *plan.CodeBlock) string {
	if c.Lang != "" {
		return c.Fence + c.Lang
	}
	return c.Fence
}

// fenceRun returns the run of ` or ~ that starts s (at least three).
func fenceRun(s string) string {
	if s == "" || s[0] != '`' && s[0] != '~' {
		return ""
	}
	i := 0
	for i < len(s) && s[i] == s[0] {
		i++
	}
	if i < 3 {
		return ""
	}
	return s[:i]
}
