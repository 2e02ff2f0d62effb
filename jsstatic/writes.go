package jsstatic

import (
	"strings"

	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/token"
)

// StateWrites returns the state fields the program writes other than by
// returning them, the ways real skills write state: a call of a function
// named updateState (or setState) with an object literal, state = {...},
// Object.assign(state, {...}), and state.a.b = value. The keys of each
// object literal count as in Updates; an assignment to a path is one
// update of that path, at the path.
func (p *Program) StateWrites() []Update { return p.memo.writes.get(p.stateWrites) }

func (p *Program) stateWrites() []Update {
	var out []Update
	Inspect(p.AST, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.CallExpression:
			if isStateSetter(x.Callee) && len(x.ArgumentList) > 0 {
				if obj, ok := x.ArgumentList[0].(*ast.ObjectLiteral); ok {
					p.objectUpdates(&out, "", obj)
				}
			}
			if isObjectAssign(x.Callee) && len(x.ArgumentList) > 1 && isState(x.ArgumentList[0]) {
				for _, a := range x.ArgumentList[1:] {
					if obj, ok := a.(*ast.ObjectLiteral); ok {
						p.objectUpdates(&out, "", obj)
					}
				}
			}
		case *ast.AssignExpression:
			if x.Operator != token.ASSIGN {
				return true
			}
			if isState(x.Left) {
				if obj, ok := x.Right.(*ast.ObjectLiteral); ok {
					p.objectUpdates(&out, "", obj)
				}
				return true
			}
			root, fields, computed := memberChain(x.Left)
			if id, ok := root.(*ast.Identifier); ok && id.Name == "state" && len(fields) > 0 && len(computed) == 0 {
				u := Update{Key: strings.Join(fields, ".")}
				u.Line, u.Col = p.Position(id.Idx)
				u.ValueLine, u.ValueCol = p.Position(x.Right.Idx0())
				u.Kind, u.Value = literal(x.Right)
				out = append(out, u)
				if obj, ok := x.Right.(*ast.ObjectLiteral); ok {
					p.objectUpdates(&out, u.Key, obj)
				}
			}
		}
		return true
	})
	return out
}

// InitialObject returns the keys of the object literal a block of initial
// state holds, as updates: the block itself ({...}), or the first object
// literal bound at top level (const initialState = {...}, export default
// {...}, return {...}). ok is false when there is none.
func (p *Program) InitialObject() (out []Update, ok bool) {
	var obj *ast.ObjectLiteral
	for _, st := range p.Body {
		Inspect(st, func(n ast.Node) bool {
			if obj != nil {
				return false
			}
			switch x := n.(type) {
			case *ast.ObjectLiteral:
				obj = x
				return false
			case *ast.FunctionLiteral, *ast.ArrowFunctionLiteral, *ast.CallExpression:
				// An object inside a function or passed to a call is not
				// the state the block shows.
				return false
			}
			return true
		})
	}
	if obj == nil {
		return nil, false
	}
	p.objectUpdates(&out, "", obj)
	return out, true
}

// isStateSetter reports a callee named updateState or setState, called
// bare or as a method.
func isStateSetter(e ast.Expression) bool {
	name := ""
	switch c := e.(type) {
	case *ast.Identifier:
		name = string(c.Name)
	case *ast.DotExpression:
		name = string(c.Identifier.Name)
	}
	return name == "updateState" || name == "setState"
}

// isObjectAssign reports Object.assign.
func isObjectAssign(e ast.Expression) bool {
	d, ok := e.(*ast.DotExpression)
	if !ok || d.Identifier.Name != "assign" {
		return false
	}
	id, ok := d.Left.(*ast.Identifier)
	return ok && id.Name == "Object"
}

// isState reports the identifier state.
func isState(e ast.Expression) bool {
	id, ok := e.(*ast.Identifier)
	return ok && id.Name == "state"
}
