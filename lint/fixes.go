package lint

import (
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/skillkit/skillkit/plan"
)

// The safe fixes (docs/lint-rules.md, "Fixes"). Each is built from the
// source lines, changes only what its finding is about, and makes that
// finding go away, so a second --fix finds nothing to do.

// replaceLine is the edit that replaces one line.
func replaceLine(file string, n int, text string) Edit {
	return Edit{File: file, Line: n, EndLine: n, Lines: []string{text}}
}

// frontMatterEnd is the line of the closing --- of SKILL.md's front
// matter, 0 when it has none.
func frontMatterEnd(s *plan.Skill) int {
	if fm := s.FrontMatter; fm != nil && fm.Closed {
		return bodyStart(s) - 1
	}
	return 0
}

// fieldEnd is the last line of a top-level front matter key's value: the
// line before the next line that starts a key or closes the block.
func (p *Pass) fieldEnd(f *plan.Field) int {
	end := frontMatterEnd(p.Skill)
	n := f.Pos.Line + 1
	for ; n < end; n++ {
		if l := p.line(p.Skill.Entry, n); l != "" && l[0] != ' ' && l[0] != '\t' && l[0] != '#' {
			break
		}
	}
	return n - 1
}

// nameFix sets name to the folder's name, when that is a valid name and
// the key is on one line.
func (p *Pass) nameFix(f *plan.Field) []Edit {
	folder := skillFolderName(p.Skill)
	if !validName(folder) || p.fieldEnd(f) != f.Pos.Line {
		return nil
	}
	return []Edit{replaceLine(p.Skill.Entry, f.Pos.Line, "name: "+folder)}
}

// metadataFix moves a top-level key with a scalar value on one line into
// metadata (whose values are strings): after metadata's last entry, or
// into a new metadata block at the end of the front matter.
func (p *Pass) metadataFix(f *plan.Field) []Edit {
	file := p.Skill.Entry
	if p.fieldEnd(f) != f.Pos.Line {
		return nil
	}
	value := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(p.line(file, f.Pos.Line)), f.Key+":"))
	switch v := f.Value.(type) {
	case string:
		if strings.HasPrefix(value, "|") || strings.HasPrefix(value, ">") || strings.HasPrefix(value, "&") {
			return nil
		}
	case bool, int, int64, uint64, float64:
		value = strconv.Quote(fmt.Sprint(v))
	default:
		return nil
	}
	entry := "  " + f.Key + ": " + value
	remove := Edit{File: file, Line: f.Pos.Line, EndLine: f.Pos.Line}
	if m := frontMatter(p).Get("metadata"); m != nil {
		if _, ok := m.Value.(map[string]any); !ok || m.ValuePos.Line == m.Pos.Line {
			return nil // an empty or flow mapping: not one to append to
		}
		last := p.fieldEnd(m)
		indent := leadingSpace(p.line(file, m.Pos.Line+1))
		entry = indent + f.Key + ": " + value
		return []Edit{remove, {File: file, Line: last + 1, EndLine: last, Lines: []string{entry}}}
	}
	end := frontMatterEnd(p.Skill)
	return []Edit{remove, {File: file, Line: end, EndLine: end - 1, Lines: []string{"metadata:", entry}}}
}

func leadingSpace(s string) string { return s[:len(s)-len(strings.TrimLeft(s, " \t"))] }

// plainColon is a plain (unquoted) value holding ": ", which YAML reads
// as a nested mapping.
var plainColon = regexp.MustCompile(`^(description|when_to_use|argument-hint):[ \t]+([^'"|>\[{&*!\s].*: .*)$`)

// quoteFix quotes the description (or when_to_use, argument-hint) whose
// ": " breaks the front matter, when quoting it makes the YAML parse.
func (p *Pass) quoteFix() []Edit {
	fm := p.Skill.FrontMatter
	end := frontMatterEnd(p.Skill)
	if fm == nil || end == 0 {
		return nil
	}
	lines := strings.Split(strings.TrimSuffix(fm.Raw, "\n"), "\n")
	var edits []Edit
	for i, l := range lines {
		m := plainColon.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		lines[i] = m[1] + ": " + strconv.Quote(strings.TrimSpace(m[2]))
		edits = append(edits, replaceLine(p.Skill.Entry, i+2, lines[i]))
	}
	var v map[string]any
	if len(edits) == 0 || yaml.Unmarshal([]byte(strings.Join(lines, "\n")), &v) != nil {
		return nil
	}
	return edits
}

// nextPhaseFix points a Next Phase link at the phase that comes next,
// labelled with its title.
func (p *Pass) nextPhaseFix(ph, next *plan.Phase) []Edit {
	file := ph.Doc.File
	if path.Dir(next.Doc.File) != path.Dir(file) {
		return nil
	}
	line := p.line(file, ph.Next.Pos.Line)
	end := strings.Index(line, "]("+ph.Next.Target+")")
	if end < 0 {
		return nil
	}
	start := strings.LastIndex(line[:end], "[")
	if start < 0 {
		return nil
	}
	label := next.Doc.Title
	if label == "" {
		label = path.Base(next.Doc.File)
	}
	tail := line[end+len("]("+ph.Next.Target+")"):]
	return []Edit{replaceLine(file, ph.Next.Pos.Line, line[:start]+"["+label+"]("+path.Base(next.Doc.File)+")"+tail)}
}

// headingLine matches an ATX heading.
var headingLine = regexp.MustCompile(`^(#{1,6})[ \t]+(.+?)[ \t#]*$`)

// executionHeadingFix rewrites an execution heading the parser did not
// take as the section (one at level 1, where the title goes) as the
// canonical "## Execution".
func (p *Pass) executionHeadingFix(d *plan.Doc) []Edit {
	for n := 1; n <= d.Lines; n++ {
		line := p.line(d.File, n)
		if !strings.HasPrefix(line, "#") {
			continue // not a heading: spare the expression
		}
		m := headingLine.FindStringSubmatch(line)
		if m == nil || plan.SectionKey(m[2]) != plan.SecExecution || p.inCode(d, n) {
			continue
		}
		return []Edit{replaceLine(d.File, n, "## Execution")}
	}
	return nil
}

// inCode reports whether line n of d is inside a fenced block.
func (p *Pass) inCode(d *plan.Doc, n int) bool {
	for _, c := range d.Code {
		if c.Fence != "" && n >= c.Pos.Line && n <= lastLine(c)+1 {
			return true
		}
	}
	return false
}

// purposeNesting are the languages of a block that holds other fenced
// blocks on purpose: an example of a markdown file.
var purposeNesting = map[string]bool{"": true, "markdown": true, "md": true, "mdx": true, "text": true, "txt": true}

// fenceFix lengthens the outer fence of a block that holds a fenced
// block on purpose: its opening line and the bare fence that was meant to
// close it (the one after the inner block's closing fence).
func (p *Pass) fenceFix(d *plan.Doc, n *nesting) []Edit {
	c := n.outer
	if !purposeNesting[c.Lang] {
		return nil
	}
	char := c.Fence[:1]
	bare := func(l string) bool {
		t := strings.TrimSpace(l)
		return len(t) >= len(c.Fence) && strings.Trim(t, char) == ""
	}
	innerClose := 0
	for i := n.line + 1; i <= d.Lines; i++ {
		if bare(p.line(d.File, i)) {
			innerClose = i
			break
		}
	}
	if innerClose == 0 {
		return nil
	}
	for i := innerClose + 1; i <= d.Lines; i++ {
		l := p.line(d.File, i)
		if t := strings.TrimSpace(l); strings.HasPrefix(t, char+char+char) && !bare(l) {
			return nil // another block opens first: the pairing is not clear
		}
		if bare(l) {
			run := strings.Repeat(char, len(n.run)+1)
			open := p.line(d.File, c.Pos.Line)
			ind := leadingSpace(open)
			return []Edit{
				replaceLine(d.File, c.Pos.Line, ind+run+strings.TrimLeft(open, " \t")[len(c.Fence):]),
				replaceLine(d.File, i, leadingSpace(l)+run),
			}
		}
	}
	return nil
}
