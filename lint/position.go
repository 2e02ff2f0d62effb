package lint

import (
	"strings"
	"unicode/utf8"

	"github.com/skillkit/skillkit/parse"
	"github.com/skillkit/skillkit/plan"
)

// Positions inside lint are byte columns, as the parser and the
// JavaScript and shell parsers give them. Findings leave lint with
// code-point columns, the unit every format shares: a terminal caret,
// SARIF's default columnKind, GitHub annotations, and a count an editor can
// turn into its own unit (UTF-16 for LSP) from the line alone.

// sources reads the lines of files once each, by path.
type sources struct {
	read  func(path string) ([]byte, error)
	cache map[string]*lineIndex
}

// lineIndex is a file's text with where each line starts: a line is a
// substring of the one copy, so the rules that read a long file line by
// line (body length, mentions) allocate nothing per line.
type lineIndex struct {
	text   string
	starts []int
}

func newSources(read func(string) ([]byte, error)) *sources {
	return &sources{read: read, cache: map[string]*lineIndex{}}
}

// line returns line n (1-based) of file; false when unreadable.
func (s *sources) line(file string, n int) (string, bool) {
	ix, ok := s.cache[file]
	if !ok {
		if data, err := s.read(file); err == nil {
			ix = indexLines(string(parse.NormalizeNewlines(data)))
		}
		s.cache[file] = ix
	}
	if ix == nil || n < 1 || n > len(ix.starts) {
		return "", false
	}
	end := len(ix.text)
	if n < len(ix.starts) {
		end = ix.starts[n] - 1
	}
	return ix.text[ix.starts[n-1]:end], true
}

// indexLines splits text at "\n" as strings.Split does (a text ending in a
// newline has an empty last line), keeping offsets instead of copies.
func indexLines(text string) *lineIndex {
	ix := &lineIndex{text: text, starts: make([]int, 1, strings.Count(text, "\n")+1)}
	for off := 0; ; {
		i := strings.IndexByte(text[off:], '\n')
		if i < 0 {
			return ix
		}
		off += i + 1
		ix.starts = append(ix.starts, off)
	}
}

// codePointCol turns a 1-based byte column of line into a 1-based
// code-point column; 0 stays 0 (unknown). Bytes past the end of the line
// count one each, so a column just past the last character stays there.
func codePointCol(line string, col int) int {
	if col <= 1 {
		return col
	}
	return utf8.RuneCountInString(line[:min(col-1, len(line))]) + 1 + max(0, col-1-len(line))
}

// runePrefix returns the first n code points of s (all of s when shorter).
func runePrefix(s string, n int) string {
	for i := range s {
		if n <= 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// tokenAt finds the first of tokens on pos's line at or after pos's
// column, as a whole word, and returns its position and the column just
// past it (bytes, like pos). Parsed expressions are often rewritten
// (shorthand preconditions, table cells), so their own columns are not the
// file's; the source line is. When no token is there, it returns pos and
// 0.
func (p *Pass) tokenAt(pos plan.Pos, tokens ...string) (plan.Pos, int) {
	if pos.Line == 0 {
		return pos, 0
	}
	line := p.line(pos.File, pos.Line)
	from := min(max(pos.Col-1, 0), len(line))
	for _, tok := range tokens {
		if tok == "" {
			continue
		}
		for off := from; ; {
			i := strings.Index(line[off:], tok)
			if i < 0 {
				break
			}
			start, end := off+i, off+i+len(tok)
			if !identByte(line, start-1) && !identByte(line, end) {
				at := pos
				at.Col = start + 1
				return at, end + 1
			}
			off = start + 1
		}
	}
	return pos, 0
}

// identByte reports whether line[i] exists and can be part of an
// identifier, so a token next to it is part of a longer word.
func identByte(line string, i int) bool {
	if i < 0 || i >= len(line) {
		return false
	}
	c := line[i]
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// declaration is where a finding about a whole document goes: its title
// heading, else its first line.
func declaration(d *plan.Doc) plan.Pos {
	if d.TitlePos.Line > 0 {
		return d.TitlePos
	}
	return plan.Pos{File: d.File, Line: 1}
}
