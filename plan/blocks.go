package plan

import (
	"strings"
	"sync"
	"weak"

	"github.com/skillkit/skillkit/jsstatic"
)

// Blocks keeps the parses of code blocks by their text while some
// parsed skill holds them: a parse depends on the text alone (positions
// in it are relative to the block), so a block that only moved reuses it
// as it is. An editor re-parses its skill at every change while the
// server holds the last parse, so every unchanged block is parsed once
// per session; one lint run shares a parse between the skills that hold
// the same text (copies, versions of a repository) while one of them is
// alive, and keeps nothing once they are gone: the cache holds weak
// pointers, so it never keeps a run's parses to its end. The zero value
// is not usable: call NewBlocks. A nil *Blocks keeps nothing.
type Blocks struct {
	mu   sync.Mutex
	js   map[string]*blockEntry[jsParse]
	bash map[string]*blockEntry[bashParse]
	// filled holds the readings of blocks that do not parse as written,
	// once their template slots are filled (Filled).
	filled map[string]*blockEntry[jsParse]
	// gen counts sweeps: an entry read since the last one carries it.
	gen int
}

type blockEntry[T any] struct {
	v   weak.Pointer[T]
	gen int
}

// NewBlocks returns an empty cache.
func NewBlocks() *Blocks {
	return &Blocks{js: map[string]*blockEntry[jsParse]{}, bash: map[string]*blockEntry[bashParse]{}, filled: map[string]*blockEntry[jsParse]{}}
}

// Sweep forgets the blocks no parse read since the last Sweep, and
// those no skill holds any more.
func (b *Blocks) Sweep() {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	sweep(b.js, b.gen)
	sweep(b.bash, b.gen)
	sweep(b.filled, b.gen)
	b.gen++
}

func sweep[T any](m map[string]*blockEntry[T], gen int) {
	for k, e := range m {
		if e.gen < gen || e.v.Value() == nil {
			delete(m, k)
		}
	}
}

// Len returns how many parses the cache holds.
func (b *Blocks) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.js) + len(b.bash) + len(b.filled)
}

// JS is c.JS, the parse of a block Classify did not read (a State
// Updates section, a spec's example) taken from the cache too: an
// editor's lint reads those at every change. The block keeps it, as
// Classify's, so that the cache's weak pointer holds while the skill
// does; the skill is its lint's alone (a skill parsed with Blocks is
// linted by one goroutine before anything else reads it).
func (b *Blocks) JS(c *CodeBlock) (*jsstatic.Program, error) {
	if c.js != nil || b == nil {
		return c.JS()
	}
	c.js = b.jsOf(c.Text)
	return c.js.prog, c.js.err
}

// Bash is c.BashSyntax taken from the cache too, for a block Classify
// did not parse (one it gave to the agent for a placeholder first); the
// block keeps it, as JS does.
func (b *Blocks) Bash(c *CodeBlock) error { return c.bashParsed(b) }

// Filled is the program read reads from c's text with its template
// slots filled (UntemplateJS), for a block that does not parse as
// written: lint checks such a block as the template it is. It is nil
// when filling changes nothing or read fails. Like JS, it is taken from
// the cache by the block's text and kept by the block; every caller of
// one cache passes the same read.
func (b *Blocks) Filled(c *CodeBlock, read func(string) (*jsstatic.Program, error)) *jsstatic.Program {
	if c.filled == nil {
		fill := func(text string) *jsParse {
			t, back := untemplateJS(text)
			if back == nil {
				return &jsParse{}
			}
			prog, err := read(t)
			if prog != nil {
				prog.MapPositions(text, back)
			}
			return &jsParse{prog: prog, err: err}
		}
		if b == nil {
			c.filled = fill(c.Text)
		} else {
			c.filled = lookup(b, b.filled, c.Text, fill)
		}
	}
	if c.filled.err != nil {
		return nil
	}
	return c.filled.prog
}

// InheritParses gives each of blocks the parses a block of old with the
// same text holds, a parse depending on the text alone: a file read again
// after a change keeps its unchanged blocks' parses. The cache does not
// hold those for it: while the file was unchanged its whole parse was
// kept (parse.Docs) and its blocks were not looked up, so they were
// swept, and a file edited after another would otherwise have every
// block parsed again at its first change.
func InheritParses(blocks, old []*CodeBlock) {
	if len(old) == 0 || len(blocks) == 0 {
		return
	}
	byText := make(map[string]*CodeBlock, len(old))
	for _, c := range old {
		if c.js != nil || c.bash != nil || c.filled != nil {
			byText[c.Text] = c
		}
	}
	for _, c := range blocks {
		if o := byText[c.Text]; o != nil {
			c.js, c.bash, c.filled = o.js, o.bash, o.filled
		}
	}
}

func (b *Blocks) jsOf(text string) *jsParse {
	if b == nil {
		return newJSParse(text)
	}
	return lookup(b, b.js, text, newJSParse)
}

func (b *Blocks) bashOf(text string) *bashParse {
	if b == nil {
		return &bashParse{err: ParseBash(text)}
	}
	return lookup(b, b.bash, text, func(text string) *bashParse { return &bashParse{err: ParseBash(text)} })
}

func lookup[T any](b *Blocks, m map[string]*blockEntry[T], text string, parse func(string) *T) *T {
	b.mu.Lock()
	var v *T
	if e := m[text]; e != nil {
		if v = e.v.Value(); v != nil {
			e.gen = b.gen
		}
	}
	b.mu.Unlock()
	if v != nil {
		return v
	}
	// A block's text is a slice of its whole file, and a parse keeps its
	// source: both get a copy, so that the cache holds the blocks, not
	// every version of every file they came from.
	text = strings.Clone(text)
	v = parse(text)
	b.mu.Lock()
	m[text] = &blockEntry[T]{v: weak.Make(v), gen: b.gen}
	b.mu.Unlock()
	return v
}

func newJSParse(text string) *jsParse {
	prog, err := jsstatic.Parse(text)
	return &jsParse{prog: prog, err: err}
}

// names returns the block's free names and top-level names; none when
// it does not parse.
func (p *jsParse) names() ([]jsstatic.Ref, []string) {
	if p.prog == nil {
		return nil, nil
	}
	return p.prog.FreeNames(), p.prog.TopLevelNames()
}
