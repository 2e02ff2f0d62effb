package lint

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/skillkit/skillkit/plan"
)

var reachRules = []Rule{
	newRule("code-unreachable", plan.SevWarning,
		"a step heading with code sits under a section that is not the execution section: skillkit neither runs its code nor sends it to the agent", checkUnreachable),
	newRule("fence-swallows", plan.SevError,
		"a code block has no closing fence: it swallows a section or step heading and the markdown after it", checkFenceSwallows),
}

// checkUnreachable reports the step headings of a phase that neither run
// nor reach the agent (plan.Phase.Unreached), and where to move them.
func checkUnreachable(p *Pass) {
	for _, ph := range p.Skill.Phases {
		for _, u := range ph.Unreached() {
			move := "into an execution section (## Execution) with the phase's other steps"
			if u.Exec != nil {
				move = "under " + u.Exec.Markdown() + " (line " + strconv.Itoa(u.Exec.Pos.Line) + ") with the phase's other steps"
			}
			sec := u.Heading
			p.ReportRange(sec.Pos, sec.Pos.Col+len(sec.Markdown()),
				"%s has a %s block (line %d) under %s (line %d), not under the execution section: skillkit neither runs it nor sends it to the agent; move the step %s",
				sec.Markdown(), u.Block.Kind(), u.Block.Pos.Line, u.Under.Markdown(), u.Under.Pos.Line, move)
		}
	}
}

// swallowedHeading is a markdown heading line as it would read were it not
// inside a code block.
var swallowedHeading = regexp.MustCompile(`^ {0,3}(#{1,6})[ \t]+(.+?)[ \t#]*$`)

// proseLangs are the info strings of blocks that hold markdown on
// purpose: templates, examples of a document.
var proseLangs = []string{"", "markdown", "md", "text", "txt", "plain", "plaintext"}

// swallowed is the first section or step heading written inside the
// code block that misreads the fences of d (see nesting): a block of code
// (not a markdown template) whose closing fence is missing runs on over
// the next heading until the next block's opening fence, which fence
// nesting then sees. Zero when the misread has another cause.
func (p *Pass) swallowed(d *plan.Doc) (line int, heading string) {
	n := p.nesting(d)
	if n == nil || n.ended > 0 || slices.Contains(proseLangs, n.outer.Lang) {
		return 0, ""
	}
	for k := n.outer.Body.Line; k > 0 && k < n.line; k++ {
		m := swallowedHeading.FindStringSubmatch(p.line(d.File, k))
		if m == nil {
			continue
		}
		if _, _, step := plan.StepHeading(m[2]); step || plan.SectionKey(m[2]) != "" {
			return k, strings.TrimSpace(m[0])
		}
	}
	return 0, ""
}

// checkFenceSwallows reports a code block whose closing fence is missing
// at its opening line, where the fix goes: it swallows a heading, and the
// next block's opening fence is read as a line of it. A block that runs
// to the end of the file is fence-unclosed's.
func checkFenceSwallows(p *Pass) {
	for _, d := range p.Docs() {
		line, heading := p.swallowed(d)
		if line == 0 {
			continue
		}
		c := p.nesting(d).outer
		p.ReportRange(c.Pos, c.Pos.Col+len(c.Fence)+len(c.Info),
			"the %s block opened here has no closing fence: it swallows the heading %q at line %d and what follows, up to the next block's fence; close it before that heading",
			describeFence(c), heading, line)
	}
}
