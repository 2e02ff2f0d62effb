// Package jsstatic reads the JavaScript of a skill without running it:
// which state fields code reads, which action ids selectNextAction can
// return, which state updates an action returns. Lint uses it to cross-check
// code against the state schema and the action files; the runtime can use
// it to explain a plan.
//
// Everything here works on goja's AST (github.com/dop251/goja/ast), so
// what parses here is what the embedded engine accepts.
package jsstatic

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/file"
	"github.com/dop251/goja/parser"
)

// prefix and suffix wrap a block body in an async function: real skills
// write top-level await and top-level return, both valid inside a
// function body. The prefix has no newline, so only line 1's columns move.
const (
	prefix = "(async function(){"
	suffix = "\n})"
)

// Program is a parsed JavaScript block.
type Program struct {
	// AST is the wrapped program: its one statement is the async function
	// expression whose body holds the block's statements.
	AST *ast.Program
	// Body is the block's statements.
	Body []ast.Statement
	src  string
	// starts holds the byte offset of each line of src.
	starts []int
	// shift is how far src sits into the parsed text.
	shift int
	// expr is set by ParseExpression: Body is one expression statement.
	expr bool
	// written is the block as written, where src is a copy of it with
	// spans replaced on their lines (MapPositions): positions are its.
	written struct {
		starts []int
		back   func(int) int
	}
	// memo keeps what the whole-program questions answered: a program
	// is read by parse, Classify, several lint rules and the runtime,
	// and an editor's lint reads a cached one at every change. Answers
	// are shared: read them, never change them.
	memo struct {
		free   memo[[]Ref]
		top    memo[[]string]
		reads  memo[[]Path]
		mcp    memo[[]MCPCall]
		writes memo[[]Update]
		// updates answers Updates, without plain and with it.
		updates [2]memo[[]Update]
	}
}

// memo is a value worked out once, on first use, by any goroutine.
type memo[T any] struct {
	once sync.Once
	v    T
}

func (m *memo[T]) get(f func() T) T {
	m.once.Do(func() { m.v = f() })
	return m.v
}

// SyntaxError is a parse failure at a 1-based line and byte column of the
// block's text.
type SyntaxError struct {
	Line, Col int
	Msg       string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("%d:%d: %s", e.Line, e.Col, e.Msg) }

// parses counts the runs of goja's parser, for Parses.
var parses atomic.Int64

// Parses returns how many times Parse and ParseExpression have run goja's
// parser in this process: the tests and benchmarks that hold a skill to
// one parse per block read it.
func Parses() int64 { return parses.Load() }

// Parse parses the body of a skill's JavaScript block.
func Parse(src string) (*Program, error) {
	p := &Program{src: src, shift: len(prefix)}
	p.index()
	parses.Add(1)
	prog, err := parser.ParseFile(nil, "", prefix+RewriteMCP(src)+suffix, 0, parser.WithDisableSourceMaps)
	if err != nil {
		return nil, p.syntaxError(err)
	}
	body, ok := wrappedBody(prog)
	if !ok {
		// The block closed the wrapper early ("}) ; (" tricks): not a
		// plain body.
		return nil, &SyntaxError{Line: 1, Col: 1, Msg: "block is not a sequence of statements"}
	}
	p.AST, p.Body = prog, body
	return p, nil
}

// ParseExpression parses src as one JavaScript expression. The returned
// program's Body is a single expression statement.
func ParseExpression(src string) (*Program, ast.Expression, error) {
	p := &Program{src: src, shift: 1, expr: true}
	p.index()
	parses.Add(1)
	prog, err := parser.ParseFile(nil, "", "("+RewriteMCP(src)+"\n)", 0, parser.WithDisableSourceMaps)
	if err != nil {
		return nil, nil, p.syntaxError(err)
	}
	if len(prog.Body) != 1 {
		return nil, nil, &SyntaxError{Line: 1, Col: 1, Msg: "not a single expression"}
	}
	st, ok := prog.Body[0].(*ast.ExpressionStatement)
	if !ok {
		return nil, nil, &SyntaxError{Line: 1, Col: 1, Msg: "not an expression"}
	}
	p.AST, p.Body = prog, prog.Body
	return p, st.Expression, nil
}

func wrappedBody(prog *ast.Program) ([]ast.Statement, bool) {
	if len(prog.Body) != 1 {
		return nil, false
	}
	st, ok := prog.Body[0].(*ast.ExpressionStatement)
	if !ok {
		return nil, false
	}
	fn, ok := st.Expression.(*ast.FunctionLiteral)
	if !ok || fn.Body == nil {
		return nil, false
	}
	return fn.Body.List, true
}

func (p *Program) index() {
	p.starts = append(p.starts[:0], 0)
	for i := 0; i < len(p.src); i++ {
		if p.src[i] == '\n' {
			p.starts = append(p.starts, i+1)
		}
	}
}

// Position turns an AST index into a 1-based line and byte column of the
// block's text: of the text as written, after MapPositions.
func (p *Program) Position(idx file.Idx) (line, col int) {
	off := int(idx) - 1 - p.shift
	if w := &p.written; w.back != nil {
		line, _ := p.offsetPos(off)
		off = w.back(max(0, min(off, len(p.src))))
		return line, off - w.starts[line-1] + 1
	}
	return p.offsetPos(off)
}

// MapPositions makes the program's positions those of text, where the
// program was read from a copy of text with spans replaced, each within
// its line (a template's slots filled): back maps a byte offset of the
// copy to one of text. Call it before asking the program anything: its
// answers are kept.
func (p *Program) MapPositions(text string, back func(int) int) {
	starts := []int{0}
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			starts = append(starts, i+1)
		}
	}
	if len(starts) != len(p.starts) {
		// Lines were added or removed: a column of text could not be
		// found on the line of the copy; the copy's positions stand.
		return
	}
	p.written.starts, p.written.back = starts, back
}

func (p *Program) offsetPos(off int) (line, col int) {
	off = max(0, min(off, len(p.src)))
	i := sort.Search(len(p.starts), func(i int) bool { return p.starts[i] > off }) - 1
	return i + 1, off - p.starts[i] + 1
}

// syntaxError maps goja's first error back onto the block's text.
func (p *Program) syntaxError(err error) error {
	var list parser.ErrorList
	if errors.As(err, &list) && len(list) > 0 {
		e := list[0]
		line, col := e.Position.Line, e.Position.Column
		if line == 1 {
			col -= p.shift
		}
		// Errors at the end of input point into the suffix.
		if last := len(p.starts); line > last {
			line, col = p.offsetPos(len(p.src))
		}
		// A closer with no opener ends the wrapping function early, and
		// goja trips over what follows it, lines later or at the block's
		// end: the mistake is the closer.
		if off, ok := strayCloser(p.src); ok {
			if l, c := p.offsetPos(off); l < line || l == line && c <= col {
				return &SyntaxError{Line: l, Col: c, Msg: fmt.Sprintf("unmatched %q: no bracket opens it", p.src[off])}
			}
		}
		return &SyntaxError{Line: line, Col: max(col, 1), Msg: e.Message}
	}
	return &SyntaxError{Line: 1, Col: 1, Msg: strings.TrimSpace(err.Error())}
}

// strayCloser finds the first ), ] or } of src that closes nothing,
// outside strings, template literals, regular expressions and comments;
// it returns its byte offset. A slash is taken for a regular expression
// where an operand is expected (after an operator, an opening bracket or
// nothing), as the parser does; a case this misreads is why its answer
// is used only where goja's error comes after it.
func strayCloser(src string) (int, bool) {
	depth := 0
	prev := byte(0) // the last character that is not space or comment
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case '/':
			switch {
			case strings.HasPrefix(src[i:], "//"):
				// To the line's end, or the text's: no copy of the rest.
				if end := strings.IndexByte(src[i:], '\n'); end >= 0 {
					i += end
				} else {
					i = len(src)
				}
				continue
			case strings.HasPrefix(src[i:], "/*"):
				end := strings.Index(src[i+2:], "*/")
				if end < 0 {
					return 0, false
				}
				i += end + 3
				continue
			case prev == 0 || strings.IndexByte("(,=:[!&|?{};+-*%<>~^", prev) >= 0:
				i = skipRegexp(src, i)
			}
		case '\'', '"', '`':
			for i++; i < len(src) && src[i] != c; i++ {
				if src[i] == '\\' {
					i++
				}
			}
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			if depth--; depth < 0 {
				return i, true
			}
		}
		prev = c
	}
	return 0, false
}

// skipRegexp returns the offset of the slash that ends the regular
// expression literal starting at i, or the end of its line.
func skipRegexp(src string, i int) int {
	inClass := false
	for i++; i < len(src) && src[i] != '\n'; i++ {
		switch src[i] {
		case '\\':
			i++
		case '[':
			inClass = true
		case ']':
			inClass = false
		case '/':
			if !inClass {
				return i
			}
		}
	}
	return i
}
