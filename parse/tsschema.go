package parse

import (
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/skillkit/skillkit/plan"
)

// The TypeScript-interface converter reads the subset of TypeScript that
// state schemas are written in (DESIGN §1.4) and builds a JSON Schema
// (draft 2020-12). What it does not support becomes "any" with a note, so
// a schema is always produced.

type tsTok struct {
	kind rune // 'i' ident, 's' string, 'n' number, or the punctuation rune; 0 at EOF
	text string
	line int // 0-based within the block
	col  int // 1-based
}

// tsLex splits src into tokens; end is where the text ends, the position
// of what is read past the last token.
func tsLex(src string) (toks []tsTok, end tsTok) {
	line, col := 0, 1
	rs := []rune(src)
	for i := 0; i < len(rs); {
		r := rs[i]
		adv := func(n int) {
			for k := 0; k < n && i < len(rs); k++ {
				if rs[i] == '\n' {
					line++
					col = 1
				} else {
					col++
				}
				i++
			}
		}
		switch {
		case unicode.IsSpace(r):
			adv(1)
		case r == '/' && i+1 < len(rs) && rs[i+1] == '/':
			for i < len(rs) && rs[i] != '\n' {
				adv(1)
			}
		case r == '/' && i+1 < len(rs) && rs[i+1] == '*':
			adv(2)
			for i < len(rs) && !(rs[i] == '*' && i+1 < len(rs) && rs[i+1] == '/') {
				adv(1)
			}
			adv(2)
		case r == '\'' || r == '"' || r == '`':
			l, c := line, col
			adv(1)
			var b strings.Builder
			for i < len(rs) && rs[i] != r && rs[i] != '\n' {
				if rs[i] == '\\' && i+1 < len(rs) {
					adv(1)
				}
				if i < len(rs) {
					b.WriteRune(rs[i])
				}
				adv(1)
			}
			adv(1)
			toks = append(toks, tsTok{'s', b.String(), l, c})
		case unicode.IsDigit(r) || r == '-' && i+1 < len(rs) && unicode.IsDigit(rs[i+1]):
			l, c := line, col
			j := i + 1
			for j < len(rs) && (unicode.IsDigit(rs[j]) || rs[j] == '.') {
				j++
			}
			toks = append(toks, tsTok{'n', string(rs[i:j]), l, c})
			adv(j - i)
		case r == '_' || r == '$' || unicode.IsLetter(r):
			l, c := line, col
			j := i + 1
			for j < len(rs) && (rs[j] == '_' || rs[j] == '$' || unicode.IsLetter(rs[j]) || unicode.IsDigit(rs[j])) {
				j++
			}
			toks = append(toks, tsTok{'i', string(rs[i:j]), l, c})
			adv(j - i)
		case r == '=' && i+1 < len(rs) && rs[i+1] == '>':
			toks = append(toks, tsTok{'F', "=>", line, col})
			adv(2)
		default:
			toks = append(toks, tsTok{r, string(r), line, col})
			adv(1)
		}
	}
	return toks, tsTok{line: line, col: col}
}

type tsParser struct {
	toks []tsTok
	// end is the token past the last: its position is the text's end, where
	// a block cut short is reported.
	end   tsTok
	i     int
	block *plan.CodeBlock
	notes []plan.Diagnostic
	defs  map[string]map[string]any
	order []string
	bases map[string][]string
	root  string
	depth int // nesting of typeExpr, bounded by maxTSDepth
}

// maxTSDepth bounds how deeply types may nest: a state schema nests a few
// levels, and a block of ten thousand "{" must not exhaust the stack.
const maxTSDepth = 200

func (p *tsParser) peek() tsTok {
	if p.i < len(p.toks) {
		return p.toks[p.i]
	}
	return p.end
}

func (p *tsParser) next() tsTok {
	t := p.peek()
	if p.i < len(p.toks) {
		p.i++
	}
	return t
}

func (p *tsParser) accept(kind rune, text string) bool {
	t := p.peek()
	if t.kind == kind && (text == "" || t.text == text) {
		p.i++
		return true
	}
	return false
}

func (p *tsParser) pos(t tsTok) plan.Pos {
	pos := p.block.Body
	pos.Line += t.line
	if t.line == 0 {
		pos.Col += t.col - 1
	} else {
		pos.Col = t.col
	}
	return pos
}

func (p *tsParser) note(t tsTok, format string, args ...any) {
	p.notes = append(p.notes, plan.Diagnostic{
		Pos: p.pos(t), Severity: plan.SevInfo, Code: "state-schema-unsupported",
		Message: fmt.Sprintf(format, args...),
	})
}

// skipBalanced skips tokens up to and including the closer that matches
// the current nesting, stopping early at a top-level stop rune.
func (p *tsParser) skipBalanced(stops string) {
	depth := 0
	for p.peek().kind != 0 {
		t := p.peek()
		switch t.kind {
		case '{', '(', '[', '<':
			depth++
		case '}', ')', ']', '>':
			if depth == 0 {
				return
			}
			depth--
		}
		if depth == 0 && strings.ContainsRune(stops, t.kind) {
			return
		}
		p.next()
	}
}

// convertTS converts the interfaces and type aliases of a typescript block
// into a JSON Schema rooted at the interface named like *State (else the
// first one). ok is false when the block declares nothing.
func convertTS(block *plan.CodeBlock) (schema map[string]any, root string, notes []plan.Diagnostic, ok bool) {
	toks, end := tsLex(block.Text)
	p := &tsParser{toks: toks, end: end, block: block, defs: map[string]map[string]any{}, bases: map[string][]string{}}
	for p.peek().kind != 0 {
		p.accept('i', "export")
		p.accept('i', "declare")
		t := p.peek()
		switch {
		case t.kind == 'i' && t.text == "interface":
			p.next()
			p.interfaceDecl()
		case t.kind == 'i' && t.text == "type" && p.i+1 < len(p.toks) && p.toks[p.i+1].kind == 'i':
			p.next()
			name := p.next()
			if p.peek().kind == '<' {
				p.note(p.peek(), "generic type %s is not supported; treated as any", name.text)
				p.skipBalanced("=")
			}
			if !p.accept('=', "") {
				continue
			}
			p.define(name.text, p.typeExpr())
			p.accept(';', "")
		default:
			p.next()
		}
	}
	if len(p.order) == 0 {
		return nil, "", p.notes, false
	}
	root = p.order[0]
	for _, n := range p.order {
		if strings.HasSuffix(n, "State") {
			root = n
			break
		}
	}
	p.root = root
	p.applyBases()
	p.breakRefCycles()
	schema = map[string]any{"$schema": "https://json-schema.org/draft/2020-12/schema", "title": root}
	for k, v := range p.defs[root] {
		schema[k] = v
	}
	defs := map[string]any{}
	for _, n := range p.order {
		if n != root {
			defs[n] = p.defs[n]
		}
	}
	if len(defs) > 0 {
		schema["$defs"] = defs
	}
	p.checkRefs(schema)
	return schema, root, p.notes, true
}

func (p *tsParser) define(name string, s map[string]any) {
	if _, dup := p.defs[name]; !dup {
		p.order = append(p.order, name)
	}
	p.defs[name] = s
}

func (p *tsParser) interfaceDecl() {
	name := p.next()
	if name.kind != 'i' {
		return
	}
	if p.peek().kind == '<' {
		p.note(p.peek(), "generic interface %s is not supported; its type parameters are treated as any", name.text)
		p.skipBalanced("{")
	}
	if p.accept('i', "extends") {
		for {
			b := p.next()
			if b.kind == 'i' {
				p.bases[name.text] = append(p.bases[name.text], b.text)
			}
			if p.peek().kind == '<' {
				p.skipBalanced("{,")
			}
			if !p.accept(',', "") {
				break
			}
		}
	}
	if p.peek().kind != '{' {
		return
	}
	p.define(name.text, p.objectType())
}

// applyBases merges the properties of extended interfaces declared in the
// same block into the interfaces that extend them.
func (p *tsParser) applyBases() {
	var merge func(name string, seen map[string]bool)
	merge = func(name string, seen map[string]bool) {
		if seen[name] {
			return
		}
		seen[name] = true
		for _, b := range p.bases[name] {
			base, ok := p.defs[b]
			if !ok {
				continue
			}
			merge(b, seen)
			props, _ := p.defs[name]["properties"].(map[string]any)
			if props == nil {
				continue
			}
			bp, _ := base["properties"].(map[string]any)
			for k, v := range bp {
				if _, own := props[k]; !own {
					props[k] = v
				}
			}
			req, _ := p.defs[name]["required"].([]any)
			if br, ok := base["required"].([]any); ok {
				// A diamond or a self-extension names a field twice; JSON
				// Schema wants required without repeats.
				for _, r := range br {
					if !slices.Contains(req, r) {
						req = append(req, r)
					}
				}
			}
			if len(req) > 0 {
				p.defs[name]["required"] = req
			}
		}
	}
	for _, n := range p.order {
		merge(n, map[string]bool{})
	}
}

// objectType reads { member; member } into an object schema.
func (p *tsParser) objectType() map[string]any {
	p.accept('{', "")
	props := map[string]any{}
	var required []any
	s := map[string]any{"type": "object"}
	for p.peek().kind != 0 && p.peek().kind != '}' {
		if p.accept(';', "") || p.accept(',', "") {
			continue
		}
		p.accept('i', "readonly")
		t := p.peek()
		switch {
		case t.kind == '[':
			// Index signature [key: string]: T.
			p.skipBalanced("")
			p.accept(']', "")
			p.accept('?', "")
			if p.accept(':', "") {
				s["additionalProperties"] = p.typeExpr()
			}
		case t.kind == 'i' || t.kind == 's' || t.kind == 'n':
			p.next()
			optional := p.accept('?', "")
			if p.peek().kind == '(' || p.peek().kind == '<' {
				p.note(t, "method %s is not supported; treated as any", t.text)
				p.skipBalanced(";,\n")
				props[t.text] = map[string]any{}
				continue
			}
			if !p.accept(':', "") {
				p.note(t, "property %s has no type; treated as any", t.text)
				props[t.text] = map[string]any{}
				continue
			}
			if optional {
				// TypeScript reads x?: T as x: T | undefined, and
				// undefined is null here (see named): JSON has no
				// undefined, and null is what JavaScript writes to a
				// state.json for a value it has not got.
				props[t.text] = p.typeExpr(map[string]any{"type": "null"})
			} else {
				props[t.text] = p.typeExpr()
			}
			if !optional && !slices.Contains(required, any(t.text)) {
				required = append(required, t.text)
			}
		default:
			p.note(t, "unexpected %q in an object type; skipped", t.text)
			p.next()
		}
	}
	p.accept('}', "")
	s["properties"] = props
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

// typeExpr reads a type; more are alternatives the type is joined with,
// as if written after it with |.
func (p *tsParser) typeExpr(more ...map[string]any) map[string]any {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxTSDepth {
		p.note(p.peek(), "types nest more than %d levels deep; the rest of the block is treated as any", maxTSDepth)
		p.i = len(p.toks)
		return map[string]any{}
	}
	p.accept('|', "")
	alts := []map[string]any{p.intersection()}
	for p.accept('|', "") {
		alts = append(alts, p.intersection())
	}
	return union(append(alts, more...))
}

// union folds alternatives: literals into one enum, simple types into a
// type list, the rest into anyOf.
func union(alts []map[string]any) map[string]any {
	if len(alts) == 1 {
		return alts[0]
	}
	var enum, types []any
	simple := true
	for _, a := range alts {
		switch {
		case a["const"] != nil || (len(a) == 1 && a["type"] == "null"):
			c := a["const"]
			if !slices.Contains(enum, c) {
				// string | null | undefined is one null.
				enum = append(enum, c)
			}
		case len(a) == 1 && a["type"] != nil:
			// A union in parentheses, (string | null), is a type list.
			list, ok := a["type"].([]any)
			if !ok {
				list = []any{a["type"]}
			}
			for _, t := range list {
				switch {
				case t == "null" && !slices.Contains(enum, nil):
					enum = append(enum, nil)
				case t != "null" && !slices.Contains(types, t):
					types = append(types, t)
				}
			}
		case len(a) == 0:
			return map[string]any{}
		default:
			simple = false
		}
	}
	if simple && len(types) == 0 {
		return map[string]any{"enum": enum}
	}
	if simple && len(enum) == 1 && enum[0] == nil {
		return map[string]any{"type": append(types, "null")}
	}
	if simple && len(enum) == 0 {
		return map[string]any{"type": types}
	}
	anyOf := make([]any, len(alts))
	for i, a := range alts {
		anyOf[i] = a
	}
	return map[string]any{"anyOf": anyOf}
}

func (p *tsParser) intersection() map[string]any {
	parts := []any{p.postfix()}
	for p.accept('&', "") {
		parts = append(parts, p.postfix())
	}
	if len(parts) == 1 {
		return parts[0].(map[string]any)
	}
	return map[string]any{"allOf": parts}
}

func (p *tsParser) postfix() map[string]any {
	s := p.primary()
	for p.peek().kind == '[' && p.i+1 < len(p.toks) && p.toks[p.i+1].kind == ']' {
		p.i += 2
		s = map[string]any{"type": "array", "items": s}
	}
	return s
}

func (p *tsParser) primary() map[string]any {
	t := p.next()
	switch t.kind {
	case 's':
		return map[string]any{"const": t.text}
	case 'n':
		var f float64
		if _, err := fmt.Sscan(t.text, &f); err == nil {
			return map[string]any{"const": f}
		}
		return map[string]any{"type": "number"}
	case '{':
		p.i--
		return p.objectType()
	case '(':
		if p.isFunctionType() {
			p.note(t, "function types are not supported; treated as any")
			p.skipFunction()
			return map[string]any{}
		}
		s := p.typeExpr()
		p.accept(')', "")
		return s
	case '[':
		p.note(t, "tuple types are not supported; treated as an array of any")
		p.skipBalanced("")
		p.accept(']', "")
		return map[string]any{"type": "array"}
	case 'i':
		return p.named(t)
	}
	if t.kind != 0 {
		p.note(t, "unexpected %q in a type; treated as any", t.text)
	}
	return map[string]any{}
}

// isFunctionType looks past a parenthesized group for "=>".
func (p *tsParser) isFunctionType() bool {
	depth := 1
	for j := p.i; j < len(p.toks); j++ {
		switch p.toks[j].kind {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return j+1 < len(p.toks) && p.toks[j+1].kind == 'F'
			}
		}
	}
	return false
}

func (p *tsParser) skipFunction() {
	depth := 1
	for depth > 0 && p.peek().kind != 0 {
		switch p.next().kind {
		case '(':
			depth++
		case ')':
			depth--
		}
	}
	p.accept('F', "")
	p.postfix()
}

func (p *tsParser) typeArgs() []map[string]any {
	var args []map[string]any
	if !p.accept('<', "") {
		return nil
	}
	for p.peek().kind != 0 && p.peek().kind != '>' {
		args = append(args, p.typeExpr())
		if !p.accept(',', "") {
			break
		}
	}
	p.accept('>', "")
	return args
}

func (p *tsParser) named(t tsTok) map[string]any {
	switch t.text {
	case "string", "Date":
		return map[string]any{"type": "string"}
	case "number", "bigint":
		return map[string]any{"type": "number"}
	case "boolean":
		return map[string]any{"type": "boolean"}
	case "true", "false":
		return map[string]any{"const": t.text == "true"}
	case "null", "undefined", "void":
		return map[string]any{"type": "null"}
	case "any", "unknown":
		return map[string]any{}
	case "object", "Object":
		return map[string]any{"type": "object"}
	case "Array", "ReadonlyArray":
		args := p.typeArgs()
		if len(args) == 1 {
			return map[string]any{"type": "array", "items": args[0]}
		}
		return map[string]any{"type": "array"}
	case "Record":
		args := p.typeArgs()
		if len(args) == 2 {
			return map[string]any{"type": "object", "additionalProperties": args[1]}
		}
		return map[string]any{"type": "object"}
	}
	if p.peek().kind == '<' {
		p.note(t, "generic type %s<…> is not supported; treated as any", t.text)
		p.typeArgs()
		return map[string]any{}
	}
	if p.peek().kind == '.' {
		p.note(t, "qualified type names are not supported; treated as any")
		for p.accept('.', "") {
			p.next()
		}
		return map[string]any{}
	}
	return map[string]any{"$ref": "#/$defs/" + t.text, "x-ref-pos": p.pos(t)}
}

// breakRefCycles replaces the definitions that refer to themselves with no
// nesting between (type A = A | string, or A = B and B = A) by any: such a
// schema would validate a value by validating the same value again, for
// ever. A reference inside properties or items is fine (a tree type).
func (p *tsParser) breakRefCycles() {
	type ref struct {
		to  string
		pos plan.Pos
	}
	edges := map[string][]ref{}
	var collect func(name string, v any)
	collect = func(name string, v any) {
		m, ok := v.(map[string]any)
		if !ok {
			return
		}
		if r, ok := m["$ref"].(string); ok {
			pos, _ := m["x-ref-pos"].(plan.Pos)
			if to := strings.TrimPrefix(r, "#/$defs/"); p.defs[to] != nil {
				edges[name] = append(edges[name], ref{to, pos})
			}
		}
		for _, k := range []string{"anyOf", "allOf"} {
			list, _ := m[k].([]any)
			for _, e := range list {
				collect(name, e)
			}
		}
	}
	for _, n := range p.order {
		collect(n, p.defs[n])
	}
	// Tarjan's strongly connected components over the same-value edges.
	index, low := map[string]int{}, map[string]int{}
	onStack := map[string]bool{}
	var stack []string
	var visit func(n string)
	visit = func(n string) {
		index[n], low[n] = len(index), len(index)
		stack = append(stack, n)
		onStack[n] = true
		for _, e := range edges[n] {
			if _, seen := index[e.to]; !seen {
				visit(e.to)
				low[n] = min(low[n], low[e.to])
			} else if onStack[e.to] {
				low[n] = min(low[n], index[e.to])
			}
		}
		if low[n] != index[n] {
			return
		}
		var comp []string
		for {
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			onStack[top] = false
			comp = append(comp, top)
			if top == n {
				break
			}
		}
		self := slices.ContainsFunc(edges[n], func(e ref) bool { return e.to == n })
		if len(comp) == 1 && !self {
			return
		}
		for _, c := range comp {
			pos := p.block.Body
			if len(edges[c]) > 0 {
				pos = edges[c][0].pos
			}
			p.notes = append(p.notes, plan.Diagnostic{Pos: pos, Severity: plan.SevInfo, Code: "state-schema-unsupported",
				Message: fmt.Sprintf("type %s is defined in terms of itself; treated as any", c)})
			p.defs[c] = map[string]any{}
		}
	}
	for _, n := range p.order {
		if _, seen := index[n]; !seen {
			visit(n)
		}
	}
}

// checkRefs replaces references to names the block does not declare with
// any, noting each, and removes the position markers.
func (p *tsParser) checkRefs(v any) {
	switch v := v.(type) {
	case map[string]any:
		if ref, ok := v["$ref"].(string); ok {
			pos, _ := v["x-ref-pos"].(plan.Pos)
			delete(v, "x-ref-pos")
			name := strings.TrimPrefix(ref, "#/$defs/")
			if _, known := p.defs[name]; !known {
				p.notes = append(p.notes, plan.Diagnostic{Pos: pos, Severity: plan.SevInfo, Code: "state-schema-unsupported",
					Message: fmt.Sprintf("type %s is not declared in this block; treated as any", name)})
				delete(v, "$ref")
			} else if name == p.root {
				v["$ref"] = "#"
			}
		}
		// The root schema holds $defs beside its own $ref: walk on.
		for k, e := range v {
			if k != "$ref" {
				p.checkRefs(e)
			}
		}
	case []any:
		for _, e := range v {
			p.checkRefs(e)
		}
	}
}
