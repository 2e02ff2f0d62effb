package parse

import (
	"bytes"
	"sort"
	"strings"
	"unicode"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"github.com/skillkit/skillkit/plan"
)

// md is one markdown file read through goldmark, with what the role
// readers (phase, action, orchestrator …) need beyond plan.Doc: the raw
// lines, the headings in order and the lists with their nesting.
type md struct {
	doc *plan.Doc
	// src is the file's bytes while goldmark's tree is read; nil after.
	src []byte
	// str is src as a string, made once: lines, block texts and section
	// texts are substrings of it rather than copies.
	str string
	// starts holds the byte offset of each line's start; line n (1-based)
	// runs from starts[n-1] to the next newline.
	starts []int
	// lastLine is the 0-based line of pos's last answer.
	lastLine int
	headings []*heading
	lists    []*listItem // top-level items of top-level lists, in order
	diags    []plan.Diagnostic
	fm       *plan.FrontMatter // the front matter, kept for the entry document
}

type heading struct {
	level int
	text  string
	line  int
	col   int
}

type listItem struct {
	text     string // raw markdown of the item's first block
	line     int
	col      int
	children []*listItem
}

// markdown is CommonMark without emphasis: nothing skillkit reads is in
// emphasis nodes (bold keys are read from the raw line), and the emphasis
// delimiter pass was a fifth of the parse. Links, code spans, autolinks
// and raw HTML (comments) are kept.
var markdown = goldmark.New(goldmark.WithParser(parser.NewParser(
	parser.WithBlockParsers(parser.DefaultBlockParsers()...),
	parser.WithInlineParsers(
		util.Prioritized(parser.NewCodeSpanParser(), 100),
		util.Prioritized(parser.NewLinkParser(), 200),
		util.Prioritized(parser.NewAutoLinkParser(), 300),
		util.Prioritized(parser.NewRawHTMLParser(), 400),
	),
	parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...),
)))

// readMarkdown parses src (already normalized to LF, front matter blanked)
// as the file rel.
func readMarkdown(rel string, src []byte) *md { return readMarkdownLines(rel, src, lineStarts(src)) }

// readMarkdownLines is readMarkdown with src's lineStarts, which readDoc
// has found already for the nesting check (splitting every file into
// lines twice was 3% of a lint).
func readMarkdownLines(rel string, src []byte, starts []int) *md {
	m := &md{doc: &plan.Doc{File: rel}, src: src, str: string(src), starts: starts}
	m.doc.Lines = len(starts)
	root := markdown.Parser().Parse(text.NewReader(src))
	for n := root.FirstChild(); n != nil; n = n.NextSibling() {
		switch n := n.(type) {
		case *ast.Heading:
			m.addHeading(n)
		case *ast.List:
			m.lists = append(m.lists, m.listItems(n)...)
		}
	}
	m.visit(root)
	m.buildSections()
	// The tree is read: what the role readers need is in str (substrings
	// of it), and a kept document (Docs) would otherwise hold its file
	// twice more.
	m.src = nil
	return m
}

// visit reads the nodes below n in document order: code blocks (not
// their lines), links, images, autolinks and HTML. It is ast.Walk without
// the second call per node and without a call for a leaf of text, the
// most numerous node, which holds nothing read here.
func (m *md) visit(n ast.Node) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Text:
			continue
		case *ast.FencedCodeBlock:
			m.addFenced(c)
			continue
		case *ast.CodeBlock:
			m.addIndented(c)
			continue
		case *ast.Link:
			m.addLink(string(c.Destination), m.inlineText(c), c.Pos())
		case *ast.Image:
			m.addLink(string(c.Destination), m.inlineText(c), c.Pos())
		case *ast.AutoLink:
			m.addLink(string(c.URL(m.src)), string(c.Label(m.src)), c.Pos())
		case *ast.HTMLBlock:
			m.addComments(m.blockText(c), c.Pos())
			m.htmlFences(c)
		case *ast.RawHTML:
			var b bytes.Buffer
			for i := 0; i < c.Segments.Len(); i++ {
				seg := c.Segments.At(i)
				b.Write(seg.Value(m.src))
			}
			m.addComments(b.String(), c.Segments.At(0).Start)
		}
		if c.HasChildren() {
			m.visit(c)
		}
	}
}

// lineStarts returns the byte offset of each line's start: line n
// (1-based) runs from starts[n-1] to the next newline, and a newline that
// ends src starts no line.
func lineStarts(src []byte) []int {
	if len(src) == 0 {
		return nil
	}
	starts := make([]int, 1, bytes.Count(src, []byte("\n"))+1)
	for off := 0; ; {
		i := bytes.IndexByte(src[off:], '\n')
		if i < 0 || off+i+1 == len(src) {
			break
		}
		off += i + 1
		starts = append(starts, off)
	}
	return starts
}

// numLines is the number of lines in the file.
func (m *md) numLines() int { return len(m.starts) }

// pos turns a byte offset into a position.
func (m *md) pos(off int) plan.Pos {
	if off < 0 {
		return plan.Pos{File: m.doc.File}
	}
	// Nodes are read mostly in document order: the line of the last
	// answer, or one a few lines on (a code block's body and last line,
	// the next heading), usually holds off; the search starts there.
	lo, hi := 0, len(m.starts)-1
	if last := m.lastLine; last < len(m.starts) && m.starts[last] <= off {
		lo = last
		for end := min(last+8, hi); lo < end && m.starts[lo+1] <= off; {
			lo++
		}
	}
	for lo < hi && m.starts[lo+1] <= off {
		mid := (lo + hi + 1) / 2
		if m.starts[mid] <= off {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	m.lastLine = lo
	return plan.Pos{File: m.doc.File, Line: lo + 1, Col: off - m.starts[lo] + 1}
}

func (m *md) at(line, col int) plan.Pos {
	return plan.Pos{File: m.doc.File, Line: line, Col: col}
}

// line returns line n (1-based), or "" past the end.
func (m *md) line(n int) string {
	if n < 1 || n > len(m.starts) {
		return ""
	}
	line := m.str[m.starts[n-1]:]
	if i := strings.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	return line
}

// text returns lines from..to (inclusive, 1-based) joined.
func (m *md) text(from, to int) string {
	from = max(from, 1)
	to = min(to, len(m.starts))
	if from > to {
		return ""
	}
	return m.str[m.starts[from-1] : m.starts[to-1]+len(m.line(to))]
}

// body is the document's text without the space around it, and the line
// where it begins (0 when it is empty), so that what goes wrong in it is
// told at its line.
func (m *md) body() (string, int) {
	all := m.text(1, m.numLines())
	trimmed := strings.TrimLeftFunc(all, unicode.IsSpace)
	text := strings.TrimRightFunc(trimmed, unicode.IsSpace)
	if text == "" {
		return "", 0
	}
	return text, 1 + strings.Count(all[:len(all)-len(trimmed)], "\n")
}

// blockText is the text of a block's lines. Most blocks are one run of the
// source, returned as a substring; a block whose lines had indentation or
// container marks removed (a fence inside a list) is assembled.
func (m *md) blockText(n ast.Node) string {
	lines := n.Lines()
	if lines.Len() == 0 {
		return ""
	}
	first, last := lines.At(0), lines.At(lines.Len()-1)
	contiguous := true
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		if seg.Padding != 0 || i > 0 && seg.Start != lines.At(i-1).Stop {
			contiguous = false
			break
		}
	}
	if contiguous {
		return m.str[first.Start:last.Stop]
	}
	var b strings.Builder
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		b.Write(seg.Value(m.src))
	}
	return b.String()
}

// inlineText is the plain text of an inline container (a link's label).
func (m *md) inlineText(n ast.Node) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c := c.(type) {
		case *ast.Text:
			seg := c.Segment
			b.Write(seg.Value(m.src))
		case *ast.String:
			b.Write(c.Value)
		case *ast.CodeSpan:
			for t := c.FirstChild(); t != nil; t = t.NextSibling() {
				if tx, ok := t.(*ast.Text); ok {
					seg := tx.Segment
					b.Write(seg.Value(m.src))
				}
			}
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

func (m *md) addHeading(n *ast.Heading) {
	p := m.pos(n.Pos())
	raw := strings.TrimSpace(m.blockText(n))
	// ATX closing sequence: "## Title ##".
	raw = strings.TrimSpace(strings.TrimRight(raw, "#"))
	if raw == "" {
		raw = strings.TrimSpace(m.blockText(n))
	}
	m.headings = append(m.headings, &heading{level: n.Level, text: raw, line: p.Line, col: p.Col})
	if n.Level == 1 && m.doc.Title == "" {
		m.doc.Title = raw
		m.doc.TitlePos = p
	}
}

func (m *md) listItems(l *ast.List) []*listItem {
	var out []*listItem
	for it := l.FirstChild(); it != nil; it = it.NextSibling() {
		item := &listItem{}
		p := m.pos(it.Pos())
		item.line, item.col = p.Line, p.Col
		for c := it.FirstChild(); c != nil; c = c.NextSibling() {
			switch c := c.(type) {
			case *ast.List:
				item.children = append(item.children, m.listItems(c)...)
			case *ast.TextBlock, *ast.Paragraph:
				if item.text == "" {
					item.text = strings.TrimSpace(strings.ReplaceAll(m.blockText(c), "\n", " "))
					cp := m.pos(c.Pos())
					if cp.Line > 0 {
						item.line, item.col = cp.Line, cp.Col
					}
				}
			}
		}
		out = append(out, item)
	}
	return out
}

func (m *md) addFenced(n *ast.FencedCodeBlock) {
	p := m.pos(n.Pos())
	info := ""
	if n.Info != nil {
		// The info string is a run of the source: a substring, not a
		// copy, unless goldmark padded it.
		if seg := n.Info.Segment; seg.Padding == 0 {
			info = strings.TrimSpace(m.str[seg.Start:seg.Stop])
		} else {
			info = strings.TrimSpace(string(seg.Value(m.src)))
		}
	}
	lang := ""
	if info != "" {
		// The first word: info is trimmed of the spaces that part words.
		first := info
		if i := strings.IndexFunc(info, unicode.IsSpace); i >= 0 {
			first = info[:i]
		}
		lang = strings.ToLower(strings.Trim(first, "{}."))
	}
	body := p
	body.Line++
	body.Col = 1
	lines := n.Lines()
	last := p.Line
	if lines.Len() > 0 {
		body = m.pos(lines.At(0).Start)
		last = m.pos(lines.At(lines.Len() - 1).Start).Line
	}
	opening := strings.TrimLeft(m.line(p.Line), " \t>")
	fence := leadingRun(opening)
	cb := &plan.CodeBlock{
		Lang: lang, Info: info, Text: m.blockText(n), Pos: p, Body: body, Fence: fence,
		Closed: isClosingFence(m.line(last+1), fence),
	}
	m.doc.Code = append(m.doc.Code, cb)
}

func (m *md) addIndented(n *ast.CodeBlock) {
	lines := n.Lines()
	if lines.Len() == 0 {
		return
	}
	p := m.pos(lines.At(0).Start)
	m.doc.Code = append(m.doc.Code, &plan.CodeBlock{Text: m.blockText(n), Pos: p, Body: p, Closed: true})
}

// leadingRun returns the run of ` or ~ that opens a fence line.
func leadingRun(s string) string {
	if s == "" || (s[0] != '`' && s[0] != '~') {
		return ""
	}
	i := 0
	for i < len(s) && s[i] == s[0] {
		i++
	}
	return s[:i]
}

func isClosingFence(line, fence string) bool {
	if fence == "" {
		return true
	}
	l := strings.TrimLeft(line, " \t>")
	run := leadingRun(l)
	return run != "" && run[0] == fence[0] && len(run) >= len(fence) && strings.TrimSpace(l[len(run):]) == ""
}

func (m *md) addLink(target, label string, off int) {
	m.doc.Links = append(m.doc.Links, &plan.Link{Text: label, Target: target, Pos: m.pos(off)})
}

// htmlFences records the first fence line of an HTML block that ends at a
// blank line (CommonMark's kinds 6 and 7: a tag alone on its line), which
// hold as HTML what their author meant as code. A comment, <pre> or
// <script> block ends at its closing mark: a fence there is meant.
func (m *md) htmlFences(n *ast.HTMLBlock) {
	if n.HTMLBlockType != ast.HTMLBlockType6 && n.HTMLBlockType != ast.HTMLBlockType7 {
		return
	}
	lines := n.Lines()
	for i := 1; i < lines.Len(); i++ {
		seg := lines.At(i)
		l := seg.Value(m.src)
		t := bytes.TrimLeft(l, " ")
		if len(l)-len(t) <= 3 && (bytes.HasPrefix(t, []byte("```")) || bytes.HasPrefix(t, []byte("~~~"))) {
			p := m.pos(seg.Start)
			p.Col += len(l) - len(t)
			m.doc.HTMLFences = append(m.doc.HTMLFences, p)
			return // the fences after it in the block close or repeat it
		}
	}
}

func (m *md) addComments(html string, off int) {
	base := m.pos(off)
	for rest, shift := html, 0; ; {
		i := strings.Index(rest, "<!--")
		if i < 0 {
			return
		}
		// The closing --> may share the opener's dashes: "<!-->" and
		// "<!--->" are whole, empty comments (CommonMark, HTML), so the
		// search starts after "<!" and the body may be empty.
		j := strings.Index(rest[i+2:], "-->")
		if j < 0 {
			return
		}
		end := i + 2 + j
		body := rest[min(i+4, end):end]
		p := base
		p.Line += strings.Count(html[:shift+i], "\n")
		m.doc.Comments = append(m.doc.Comments, &plan.Comment{Text: strings.TrimSpace(body), Pos: p})
		shift += end + 3
		rest = rest[end+3:]
	}
}

func (m *md) buildSections() {
	for i, h := range m.headings {
		if h.level < 2 {
			continue
		}
		end := m.numLines()
		for _, next := range m.headings[i+1:] {
			if next.level <= h.level {
				end = next.line - 1
				break
			}
		}
		m.doc.Sections = append(m.doc.Sections, &plan.Section{
			Heading: h.text, Key: plan.SectionKey(h.text), Level: h.level,
			Pos: m.at(h.line, h.col), EndLine: end,
		})
	}
}

// section returns the first section with the key, or nil.
func (m *md) section(key string) *plan.Section {
	for _, s := range m.doc.Sections {
		if s.Key == key {
			return s
		}
	}
	return nil
}

// codeIn returns the code blocks whose opening fence lies in lines from..to.
// Blocks are in document order, so a binary search finds the first: a
// phase of 100,000 steps must not scan every block for each step.
func (m *md) codeIn(from, to int) []*plan.CodeBlock {
	code := m.doc.Code
	i := sort.Search(len(code), func(i int) bool { return code[i].Pos.Line >= from })
	j := i
	for j < len(code) && code[j].Pos.Line <= to {
		j++
	}
	return code[i:j:j]
}

// listsIn returns the top-level list items that lie in lines from..to.
func (m *md) listsIn(from, to int) []*listItem {
	i := sort.Search(len(m.lists), func(i int) bool { return m.lists[i].line >= from })
	j := i
	for j < len(m.lists) && m.lists[j].line <= to {
		j++
	}
	return m.lists[i:j:j]
}

// inCode reports whether line n lies inside a code block: the last block
// that opens at or before n.
func (m *md) inCode(n int) bool {
	code := m.doc.Code
	i := sort.Search(len(code), func(i int) bool { return code[i].Pos.Line > n }) - 1
	if i < 0 {
		return false
	}
	c := code[i]
	end := c.Body.Line + strings.Count(c.Text, "\n")
	if c.Fence != "" && !c.Closed {
		end = m.numLines()
	}
	return n <= end
}

func (m *md) diag(p plan.Pos, sev plan.Severity, code, msg string) {
	m.diags = append(m.diags, plan.Diagnostic{Pos: p, Severity: sev, Code: code, Message: msg})
}
