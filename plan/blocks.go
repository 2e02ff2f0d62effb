package plan

import (
	"sync"

	"github.com/skillkit/skillkit/jsstatic"
)

// Blocks keeps the parses of code blocks by their text, across parses
// of one skill: an editor re-parses the skill at every change, and
// almost every block of it is as it was. A parse depends on the text
// alone (positions in it are relative to the block), so a block that
// only moved reuses it as it is. The zero value is not usable: call
// NewBlocks. A nil *Blocks keeps nothing.
type Blocks struct {
	mu   sync.Mutex
	js   map[string]*blockEntry[*jsParse]
	bash map[string]*blockEntry[*bashParse]
	// gen counts sweeps: an entry read since the last one carries it.
	gen int
}

type blockEntry[T any] struct {
	v   T
	gen int
}

// NewBlocks returns an empty cache.
func NewBlocks() *Blocks {
	return &Blocks{js: map[string]*blockEntry[*jsParse]{}, bash: map[string]*blockEntry[*bashParse]{}}
}

// Sweep forgets the blocks no parse read since the last Sweep: the
// cache holds what the skill holds now, not every text it once had.
func (b *Blocks) Sweep() {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	sweep(b.js, b.gen)
	sweep(b.bash, b.gen)
	b.gen++
}

func sweep[T any](m map[string]*blockEntry[T], gen int) {
	for k, e := range m {
		if e.gen < gen {
			delete(m, k)
		}
	}
}

// Len returns how many parses the cache holds.
func (b *Blocks) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.js) + len(b.bash)
}

// JS is c.JS, the parse of a block Classify did not read (a State
// Updates section, a spec's example) taken from the cache too: an
// editor's lint reads those at every change.
func (b *Blocks) JS(c *CodeBlock) (*jsstatic.Program, error) {
	if c.js != nil || b == nil {
		return c.JS()
	}
	p := b.jsOf(c.Text)
	return p.prog, p.err
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

func lookup[T any](b *Blocks, m map[string]*blockEntry[T], text string, parse func(string) T) T {
	b.mu.Lock()
	e := m[text]
	if e != nil {
		e.gen = b.gen
	}
	b.mu.Unlock()
	if e != nil {
		return e.v
	}
	v := parse(text)
	b.mu.Lock()
	m[text] = &blockEntry[T]{v: v, gen: b.gen}
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
