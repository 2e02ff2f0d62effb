package jsstatic

import (
	"slices"
	"strings"

	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/token"
)

// Path is a state field that code uses: state.a.b is {"a", "b"}. Only
// the static part of a member chain is kept; state.a[i].b is {"a"}.
type Path struct {
	Fields []string
	// Line and Col are where the chain starts in the block's text.
	Line, Col int
}

// String joins the fields with dots.
func (p Path) String() string { return strings.Join(p.Fields, ".") }

// StateReads returns the state paths used below n (the whole program when
// n is nil), in source order. Every member chain rooted at an identifier
// named state counts: the parameter of selectNextAction and execute, and
// a local parsed from state.json, are all the skill's state.
func (p *Program) StateReads(n ast.Node) []Path {
	if n == nil {
		return p.memo.reads.get(func() []Path { return p.stateReads(p.AST) })
	}
	return p.stateReads(n)
}

func (p *Program) stateReads(n ast.Node) []Path {
	var out []Path
	Inspect(n, func(n ast.Node) bool {
		switch b := n.(type) {
		case *ast.DotExpression, *ast.BracketExpression, *ast.OptionalChain, *ast.Optional:
		case *ast.Binding:
			out = append(out, p.destructured(b)...)
			return true
		default:
			return true
		}
		root, fields, rest := memberChain(n.(ast.Expression))
		if id, ok := root.(*ast.Identifier); ok && id.Name == "state" {
			if len(fields) > 0 {
				line, col := p.Position(id.Idx)
				out = append(out, Path{Fields: fields, Line: line, Col: col})
			}
			// Computed members (state.a[b.c]) hold reads of their own.
			for _, e := range rest {
				out = append(out, p.stateReads(e)...)
			}
			return false
		}
		return true
	})
	return out
}

// destructured are the fields a binding takes from the state by name:
// `const { a, b: c } = state` reads a and b, as state.a and state.b do.
func (p *Program) destructured(b *ast.Binding) []Path {
	pat, ok := b.Target.(*ast.ObjectPattern)
	if !ok || b.Initializer == nil {
		return nil
	}
	root, fields, _ := memberChain(b.Initializer)
	if id, ok := root.(*ast.Identifier); !ok || id.Name != "state" {
		return nil
	}
	var out []Path
	for _, prop := range pat.Properties {
		var name string
		var at ast.Node
		switch x := prop.(type) {
		case *ast.PropertyShort:
			name, at = string(x.Name.Name), &x.Name
		case *ast.PropertyKeyed:
			switch k := x.Key.(type) {
			case *ast.Identifier:
				name, at = string(k.Name), k
			case *ast.StringLiteral:
				name, at = string(k.Value), k
			}
		}
		if name == "" {
			continue
		}
		line, col := p.Position(at.Idx0())
		out = append(out, Path{Fields: append(slices.Clone(fields), name), Line: line, Col: col})
	}
	return out
}

// memberChain unwinds a.b["c"][d].e into its root (a), the static field
// names from the root up to the first computed member (b, c), and the
// computed member expressions met on the way (d). An empty default is
// part of the chain: (a.b || []).c is a.b.c.
func memberChain(e ast.Expression) (root ast.Expression, fields []string, computed []ast.Expression) {
	var rev []string
	for {
		switch x := e.(type) {
		case *ast.OptionalChain:
			e = x.Expression
			continue
		case *ast.Optional:
			e = x.Expression
			continue
		case *ast.BinaryExpression:
			// (state.a || []).b reads state.a's b: the default stands in
			// for an absent field, as defensive code writes it.
			if isDefault(x) {
				e = x.Left
				continue
			}
		case *ast.DotExpression:
			rev = append(rev, string(x.Identifier.Name))
			e = x.Left
			continue
		case *ast.BracketExpression:
			if s, ok := x.Member.(*ast.StringLiteral); ok {
				rev = append(rev, string(s.Value))
			} else {
				computed = append(computed, x.Member)
				// Everything after a computed member is not a static path.
				rev = rev[:0]
			}
			e = x.Left
			continue
		}
		root = e
		break
	}
	for i := len(rev) - 1; i >= 0; i-- {
		fields = append(fields, rev[i])
	}
	return root, fields, computed
}

// isDefault reports whether b is a field with an empty default, `a || []`
// or `a ?? {}`.
func isDefault(b *ast.BinaryExpression) bool {
	if b.Operator != token.LOGICAL_OR && b.Operator != token.COALESCE {
		return false
	}
	switch r := b.Right.(type) {
	case *ast.ArrayLiteral:
		return len(r.Value) == 0
	case *ast.ObjectLiteral:
		return len(r.Value) == 0
	}
	return false
}

// NullTests returns the state fields compared with null by === or !==
// (state.x === null, null !== state.x), each where its chain starts.
// Strictly, an absent field is undefined, not null: such a test tells a
// field that is null from one that is set, but takes an absent one for
// set.
func (p *Program) NullTests() []Path {
	var out []Path
	Inspect(p.AST, func(n ast.Node) bool {
		b, ok := n.(*ast.BinaryExpression)
		if !ok || b.Operator != token.STRICT_EQUAL && b.Operator != token.STRICT_NOT_EQUAL {
			return true
		}
		for _, side := range [][2]ast.Expression{{b.Left, b.Right}, {b.Right, b.Left}} {
			if _, null := side[1].(*ast.NullLiteral); !null {
				continue
			}
			root, fields, _ := memberChain(side[0])
			if id, ok := root.(*ast.Identifier); ok && id.Name == "state" && len(fields) > 0 {
				line, col := p.Position(id.Idx)
				out = append(out, Path{Fields: fields, Line: line, Col: col})
			}
		}
		return true
	})
	return out
}
