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

// checkUnreachable reports step headings that are no step of their phase,
// with runnable code under them, inside a section of another purpose
// (Output, Next Phase, Purpose …; not Objective or Input, which every
// agent prompt of the phase carries): the run never sees that code. A
// "### Step 2" with a bash block placed under "## Output" is the case.
func checkUnreachable(p *Pass) {
	for _, ph := range p.Skill.Phases {
		if ph.IsOrchestrator || len(ph.Steps) == 0 || ph.Steps[0].Whole {
			continue
		}
		d := ph.Doc
		// Steps are in file order, so their ranges are sorted: a heading
		// is found among thousands of steps by a binary search.
		var steps, sent [][2]int
		for _, st := range ph.Steps {
			steps = append(steps, [2]int{st.Pos.Line, st.Pos.Line + strings.Count(st.Text, "\n")})
		}
		var exec *plan.Section
		for _, sec := range d.Sections {
			switch sec.Key {
			case plan.SecObjective, plan.SecInput:
				sent = append(sent, [2]int{sec.Pos.Line, sec.EndLine})
			case plan.SecExecution:
				if exec == nil {
					exec = sec
				}
			}
		}
		for _, sec := range d.Sections {
			if inStep(steps, sec.Pos.Line) || within(sent, sec.Pos.Line) {
				continue
			}
			if _, _, ok := plan.StepHeading(sec.Heading); !ok {
				continue
			}
			i := slices.IndexFunc(d.Code, func(c *plan.CodeBlock) bool {
				return c.Kind() != "" && c.Pos.Line > sec.Pos.Line && c.Pos.Line <= sec.EndLine
			})
			if i < 0 {
				continue
			}
			c := d.Code[i]
			// Under a section of another purpose (Output, Next Phase …) the
			// step is misplaced; under a heading skillkit does not know it
			// may be reference the steps point to, and is not reported.
			parent := enclosing(d, sec)
			if parent == nil || parent.Key == "" || parent.Key == plan.SecExecution {
				continue
			}
			under := strings.Repeat("#", parent.Level) + " " + parent.Heading + " (line " + strconv.Itoa(parent.Pos.Line) + ")"
			move := "into an execution section (## Execution) with the phase's other steps"
			if exec != nil {
				move = "under " + strings.Repeat("#", exec.Level) + " " + exec.Heading + " (line " + strconv.Itoa(exec.Pos.Line) + ") with the phase's other steps"
			}
			p.ReportRange(sec.Pos, sec.Pos.Col+sec.Level+1+len(sec.Heading),
				"%s %s has a %s block (line %d) under %s, not under the execution section: skillkit neither runs it nor sends it to the agent; move the step %s",
				strings.Repeat("#", sec.Level), sec.Heading, c.Kind(), c.Pos.Line, under, move)
		}
	}
}

// inStep reports whether line is in one of the sorted step ranges.
func inStep(steps [][2]int, line int) bool {
	i, _ := slices.BinarySearchFunc(steps, line, func(r [2]int, l int) int { return r[0] - l })
	if i < len(steps) && steps[i][0] == line {
		return true
	}
	return i > 0 && line <= steps[i-1][1]
}

// within reports whether line is in one of the ranges.
func within(ranges [][2]int, line int) bool {
	return slices.ContainsFunc(ranges, func(r [2]int) bool { return line >= r[0] && line <= r[1] })
}

// enclosing is the innermost section of d above sec that holds it, nil at
// the top level (under the title only).
func enclosing(d *plan.Doc, sec *plan.Section) *plan.Section {
	var out *plan.Section
	for _, s := range d.Sections {
		if s.Level > 1 && s.Level < sec.Level && s.Pos.Line < sec.Pos.Line && s.EndLine >= sec.Pos.Line {
			if out == nil || s.Level > out.Level {
				out = s
			}
		}
	}
	return out
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
