package parse

import "github.com/skillkit/skillkit/plan"

// Docs keeps each markdown file's parse from one parse of a skill for the
// next, by path and content: an editor's parse after a change reads every
// file again but parses only the ones whose bytes changed. What a parse
// keeps is not changed after it (the role readers read a document and
// build new plan values from it; the diagnostics they add to it are
// dropped before it is used again), so the kept documents, code blocks
// and links are shared by the skills of successive parses. A parse
// forgets the files it did not read (deleted, renamed). Use one Docs per
// skill, from one goroutine at a time.
type Docs struct {
	m   map[string]*keptDoc
	gen int
}

// keptDoc is one file's parse and the bytes it was parsed from.
type keptDoc struct {
	data string
	// doc is nil for a file that was skipped (binary, nested too deep).
	doc *md
	// ownDiags is how many diagnostics the document had from its own
	// parse, before the role readers added theirs.
	ownDiags int
	// diags are the skill's diagnostics the file's parse added
	// (invalid UTF-8, a skipped file).
	diags []plan.Diagnostic
	gen   int
}

// NewDocs returns an empty cache of documents.
func NewDocs() *Docs { return &Docs{m: map[string]*keptDoc{}} }

// get returns the kept parse of the file p when data is what it was
// parsed from; nil otherwise.
func (d *Docs) get(p string, data []byte) *keptDoc {
	if d == nil {
		return nil
	}
	k := d.m[p]
	if k == nil || k.data != string(data) {
		return nil
	}
	k.gen = d.gen
	if m := k.doc; m != nil {
		m.diags = m.diags[:k.ownDiags:k.ownDiags]
		m.lastLine = 0
	}
	return k
}

// last returns the kept parse of the file p whatever its bytes were; nil
// when there is none.
func (d *Docs) last(p string) *md {
	if d == nil {
		return nil
	}
	if k := d.m[p]; k != nil {
		return k.doc
	}
	return nil
}

// put keeps the parse of the file p from data.
func (d *Docs) put(p string, data []byte, m *md, diags []plan.Diagnostic) {
	if d == nil {
		return
	}
	k := &keptDoc{data: string(data), doc: m, diags: diags, gen: d.gen}
	if m != nil {
		k.ownDiags = len(m.diags)
	}
	d.m[p] = k
}

// sweep forgets the files the last parse did not read.
func (d *Docs) sweep() {
	if d == nil {
		return
	}
	for p, k := range d.m {
		if k.gen < d.gen {
			delete(d.m, p)
		}
	}
	d.gen++
}
