package jsstatic

import (
	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/file"
	"github.com/dop251/goja/token"
)

// StringLit is a string literal and where it is.
type StringLit struct {
	Value     string
	Line, Col int
}

// Returns is what a function can return, as far as its return statements
// show.
type Returns struct {
	// Found is false when the program defines no such function.
	Found bool
	// Strings are the string literals it can return, in source order.
	Strings []StringLit
	// Null is true when it can return null or undefined: a bare return, a
	// null or undefined value, or running off the end of its body.
	Null bool
	// Dynamic is true when some return value is computed, so Strings may
	// not be all it returns.
	Dynamic bool
	// Line and Col are where the function is defined.
	Line, Col int
}

// FunctionReturns reads what the named function (a declaration, or a
// const/let/var bound to a function or arrow) can return. Returns of
// nested functions are not its own and are skipped. A local variable
// returned by name counts as the literals assigned to it in the function.
func (p *Program) FunctionReturns(name string) Returns {
	fn, body, idx := p.findFunction(name)
	if fn == nil {
		return Returns{}
	}
	r := Returns{Found: true}
	r.Line, r.Col = p.Position(idx)
	if eb, ok := body.(*ast.ExpressionBody); ok {
		p.returnValue(&r, eb.Expression, nil, 0)
		return r
	}
	block := body.(*ast.BlockStatement)
	locals := localAssignments(block)
	inspectOwn(block, func(n ast.Node) {
		if rs, ok := n.(*ast.ReturnStatement); ok {
			if rs.Argument == nil {
				r.Null = true
				return
			}
			p.returnValue(&r, rs.Argument, locals, 0)
		}
	})
	if !terminates(block.List) {
		r.Null = true
	}
	return r
}

// Params returns the parameters of the named function (found as
// FunctionReturns finds it) that have no default value, in order, each
// with where it is; a pattern parameter ({a, b}) is named by its text.
// nil when the program defines no such function.
func (p *Program) Params(name string) []Ref {
	fn, _, _ := p.findFunction(name)
	var list *ast.ParameterList
	switch f := fn.(type) {
	case *ast.FunctionLiteral:
		list = f.ParameterList
	case *ast.ArrowFunctionLiteral:
		list = f.ParameterList
	default:
		return nil
	}
	var params []Ref
	for _, b := range list.List {
		if b.Initializer != nil {
			continue
		}
		r := Ref{Name: p.source(b.Target)}
		r.Line, r.Col = p.Position(b.Target.Idx0())
		params = append(params, r)
	}
	return params
}

// findFunction returns the function named name, its body and
// the position of its name.
func (p *Program) findFunction(name string) (fn ast.Node, body ast.ConciseBody, idx file.Idx) {
	Inspect(p.AST, func(n ast.Node) bool {
		if fn != nil {
			return false
		}
		switch n := n.(type) {
		case *ast.FunctionDeclaration:
			if f := n.Function; f.Name != nil && string(f.Name.Name) == name {
				fn, body, idx = f, f.Body, f.Name.Idx
				return false
			}
		case *ast.Binding:
			id, ok := n.Target.(*ast.Identifier)
			if !ok || string(id.Name) != name {
				return true
			}
			switch f := n.Initializer.(type) {
			case *ast.FunctionLiteral:
				fn, body, idx = f, f.Body, id.Idx
			case *ast.ArrowFunctionLiteral:
				fn, body, idx = f, f.Body, id.Idx
			}
			return fn == nil
		}
		return true
	})
	return fn, body, idx
}

// maxDepth bounds how far returned locals are followed (x = y; y = x).
const maxDepth = 8

func (p *Program) returnValue(r *Returns, e ast.Expression, locals map[string][]ast.Expression, depth int) {
	switch x := e.(type) {
	case *ast.StringLiteral:
		line, col := p.Position(x.Idx)
		r.Strings = append(r.Strings, StringLit{Value: string(x.Value), Line: line, Col: col})
	case *ast.TemplateLiteral:
		if x.Tag == nil && len(x.Expressions) == 0 && len(x.Elements) == 1 {
			line, col := p.Position(x.OpenQuote)
			r.Strings = append(r.Strings, StringLit{Value: string(x.Elements[0].Parsed), Line: line, Col: col})
			return
		}
		r.Dynamic = true
	case *ast.NullLiteral:
		r.Null = true
	case *ast.Identifier:
		if x.Name == "undefined" {
			r.Null = true
			return
		}
		vals, ok := locals[string(x.Name)]
		if !ok || depth >= maxDepth {
			r.Dynamic = true
			return
		}
		for _, v := range vals {
			p.returnValue(r, v, locals, depth+1)
		}
	case *ast.ConditionalExpression:
		p.returnValue(r, x.Consequent, locals, depth+1)
		p.returnValue(r, x.Alternate, locals, depth+1)
	case *ast.UnaryExpression:
		if x.Operator == token.VOID {
			r.Null = true
			return
		}
		r.Dynamic = true
	default:
		r.Dynamic = true
	}
}

// localAssignments maps each variable declared in the function body (not
// in nested functions) to every value assigned to it: its initializer and
// each plain assignment. A declaration without initializer holds
// undefined.
func localAssignments(block *ast.BlockStatement) map[string][]ast.Expression {
	locals := map[string][]ast.Expression{}
	undef := &ast.Identifier{Name: "undefined"}
	inspectOwn(block, func(n ast.Node) {
		switch n := n.(type) {
		case *ast.Binding:
			if id, ok := n.Target.(*ast.Identifier); ok {
				if n.Initializer == nil {
					locals[string(id.Name)] = append(locals[string(id.Name)], undef)
				} else {
					locals[string(id.Name)] = append(locals[string(id.Name)], n.Initializer)
				}
			}
		}
	})
	inspectOwn(block, func(n ast.Node) {
		as, ok := n.(*ast.AssignExpression)
		if !ok {
			return
		}
		id, ok := as.Left.(*ast.Identifier)
		if !ok {
			return
		}
		if _, local := locals[string(id.Name)]; !local {
			return
		}
		if as.Operator == token.ASSIGN {
			locals[string(id.Name)] = append(locals[string(id.Name)], as.Right)
		} else {
			// x += "…" computes a value.
			locals[string(id.Name)] = append(locals[string(id.Name)], as)
		}
	})
	return locals
}

// inspectOwn calls f for every node of a function body that belongs to the
// function itself, not to functions or classes nested in it.
func inspectOwn(block *ast.BlockStatement, f func(ast.Node)) {
	Inspect(block, func(n ast.Node) bool {
		switch n.(type) {
		case *ast.FunctionLiteral, *ast.ArrowFunctionLiteral, *ast.ClassLiteral, *ast.FunctionDeclaration, *ast.ClassDeclaration:
			return false
		}
		f(n)
		return true
	})
}

// terminates reports whether a statement list always ends in a return or
// throw, so control cannot run off its end. It is conservative: loops and
// switches are taken as possibly falling through.
func terminates(list []ast.Statement) bool {
	if len(list) == 0 {
		return false
	}
	switch s := list[len(list)-1].(type) {
	case *ast.ReturnStatement, *ast.ThrowStatement:
		return true
	case *ast.BlockStatement:
		return terminates(s.List)
	case *ast.IfStatement:
		return s.Alternate != nil && terminates([]ast.Statement{s.Consequent}) && terminates([]ast.Statement{s.Alternate})
	case *ast.TryStatement:
		if s.Finally != nil && terminates(s.Finally.List) {
			return true
		}
		return terminates(s.Body.List) && (s.Catch == nil || terminates(s.Catch.Body.List))
	}
	return false
}
