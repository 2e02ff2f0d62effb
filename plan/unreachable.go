package plan

import (
	"slices"
	"strings"
)

// Unreached is a step heading of a phase that is no step of it, with
// runnable code under it, inside a section of another purpose: a "###
// Step 2" with a bash block placed under "## Output". The run neither
// runs its code nor sends it to the agent (every agent prompt of the
// phase carries its steps, Objective and Input only).
type Unreached struct {
	Heading *Section
	// Block is the first runnable block under the heading.
	Block *CodeBlock
	// Under is the section that holds the heading; Exec is the phase's
	// execution section, nil when it has none.
	Under, Exec *Section
}

// Unreached lists the phase's unreached step headings. Under a heading
// skillkit does not know (## Mode 2) a step may be reference the steps
// point to, and under another execution section it is a layout question:
// neither is listed.
func (p *Phase) Unreached() []Unreached {
	if p.IsOrchestrator || len(p.Steps) == 0 || p.Steps[0].Whole {
		return nil
	}
	d := p.Doc
	// Steps are in file order, so their ranges are sorted: a heading is
	// found among thousands of steps by a binary search.
	var steps, sent [][2]int
	for _, st := range p.Steps {
		steps = append(steps, [2]int{st.Pos.Line, st.Pos.Line + strings.Count(st.Text, "\n")})
	}
	var exec *Section
	for _, sec := range d.Sections {
		switch sec.Key {
		case SecObjective, SecInput:
			sent = append(sent, [2]int{sec.Pos.Line, sec.EndLine})
		case SecExecution:
			if exec == nil {
				exec = sec
			}
		}
	}
	var out []Unreached
	for _, sec := range d.Sections {
		if inStep(steps, sec.Pos.Line) || slices.ContainsFunc(sent, func(r [2]int) bool { return sec.Pos.Line >= r[0] && sec.Pos.Line <= r[1] }) {
			continue
		}
		if _, _, ok := StepHeading(sec.Heading); !ok {
			continue
		}
		i := slices.IndexFunc(d.Code, func(c *CodeBlock) bool {
			return c.Kind() != "" && c.Pos.Line > sec.Pos.Line && c.Pos.Line <= sec.EndLine
		})
		if i < 0 {
			continue
		}
		under := enclosing(d, sec)
		if under == nil || under.Key == "" || under.Key == SecExecution {
			continue
		}
		out = append(out, Unreached{Heading: sec, Block: d.Code[i], Under: under, Exec: exec})
	}
	return out
}

// inStep reports whether line is in one of the sorted step ranges.
func inStep(steps [][2]int, line int) bool {
	i, _ := slices.BinarySearchFunc(steps, line, func(r [2]int, l int) int { return r[0] - l })
	if i < len(steps) && steps[i][0] == line {
		return true
	}
	return i > 0 && line <= steps[i-1][1]
}

// enclosing is the innermost section of d above sec that holds it, nil at
// the top level (under the title only).
func enclosing(d *Doc, sec *Section) *Section {
	var out *Section
	for _, s := range d.Sections {
		if s.Level > 1 && s.Level < sec.Level && s.Pos.Line < sec.Pos.Line && s.EndLine >= sec.Pos.Line {
			if out == nil || s.Level > out.Level {
				out = s
			}
		}
	}
	return out
}

// Markdown is the section's heading line as written: "## Output".
func (s *Section) Markdown() string { return strings.Repeat("#", s.Level) + " " + s.Heading }
