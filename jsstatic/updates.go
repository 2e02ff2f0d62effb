package jsstatic

import (
	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/token"
)

// Kinds of an update's value.
const (
	KindString  = "string"
	KindNumber  = "number"
	KindBoolean = "boolean"
	KindNull    = "null"
	KindArray   = "array"
	KindObject  = "object"
)

// Update is one state field an action sets.
type Update struct {
	// Key is the field, dotted for nested ones ('context.items', or a
	// key of an object literal under another key).
	Key string
	// Kind is one of the Kind constants when the value is a literal, ""
	// when it is computed.
	Kind string
	// Value is the literal for strings (string), numbers (float64) and
	// booleans (bool); nil otherwise.
	Value any
	// Nested is set for a key of an object literal written under another
	// key ({ctx: {mode: 'x'}} gives ctx and the nested ctx.mode).
	Nested bool
	// Line and Col are where the key is written; ValueLine and ValueCol
	// where its value is (the key's position for a shorthand {a}).
	Line, Col           int
	ValueLine, ValueCol int
}

// Updates returns the state updates the program returns. An action's
// result is {stateUpdates: {...}} or, when plain is set, also a plain
// object of updates (DESIGN 1.2); callers pass plain only where a returned
// object can mean nothing else. In a block that defines execute, the returns of execute count;
// otherwise the block's own returns; a program parsed with
// ParseExpression counts when it is an object literal. A returned local
// bound once to an object literal is followed. Keys of object literals
// nested under a key are reported too, dotted, since such a literal
// replaces the field with exactly those keys. The answer is worked out
// once per program and plain, and shared: read it, never change it.
func (p *Program) Updates(plain bool) []Update {
	m := &p.memo.updates[0]
	if plain {
		m = &p.memo.updates[1]
	}
	return m.get(func() []Update { return p.updates(plain) })
}

func (p *Program) updates(plain bool) []Update {
	var out []Update
	if p.expr {
		if st, ok := p.Body[0].(*ast.ExpressionStatement); ok {
			p.resultUpdates(&out, st.Expression, nil, plain)
		}
		return out
	}
	var block *ast.BlockStatement
	if _, body, _ := p.findFunction("execute"); body != nil {
		block, _ = body.(*ast.BlockStatement)
	}
	if block == nil {
		block = &ast.BlockStatement{List: p.Body}
	}
	locals := localAssignments(block)
	inspectOwn(block, func(n ast.Node) {
		if rs, ok := n.(*ast.ReturnStatement); ok && rs.Argument != nil {
			p.resultUpdates(&out, rs.Argument, locals, plain)
		}
	})
	return out
}

// resultUpdates reads one returned value.
func (p *Program) resultUpdates(out *[]Update, e ast.Expression, locals map[string][]ast.Expression, plain bool) {
	obj := objectLiteral(e, locals)
	if obj == nil {
		return
	}
	for _, prop := range obj.Value {
		if k, ok := prop.(*ast.PropertyKeyed); ok && !k.Computed && propertyName(k.Key) == "stateUpdates" {
			if inner := objectLiteral(k.Value, locals); inner != nil {
				p.objectUpdates(out, "", inner)
			}
			return
		}
	}
	if plain {
		p.objectUpdates(out, "", obj)
	}
}

// objectLiteral resolves e to an object literal: itself, or a local
// assigned exactly once.
func objectLiteral(e ast.Expression, locals map[string][]ast.Expression) *ast.ObjectLiteral {
	switch x := e.(type) {
	case *ast.ObjectLiteral:
		return x
	case *ast.AwaitExpression:
		return objectLiteral(x.Argument, locals)
	case *ast.Identifier:
		if vals := locals[string(x.Name)]; len(vals) == 1 {
			if o, ok := vals[0].(*ast.ObjectLiteral); ok {
				return o
			}
		}
	}
	return nil
}

func (p *Program) objectUpdates(out *[]Update, prefix string, obj *ast.ObjectLiteral) {
	for _, prop := range obj.Value {
		var key string
		var val ast.Expression
		var idx = prop.Idx0()
		switch k := prop.(type) {
		case *ast.PropertyKeyed:
			if k.Computed || k.Kind != ast.PropertyKindValue {
				continue
			}
			key, val = propertyName(k.Key), k.Value
		case *ast.PropertyShort:
			key, val = string(k.Name.Name), nil
		default:
			// A spread keeps fields we cannot name.
			continue
		}
		if key == "" {
			continue
		}
		full := key
		if prefix != "" {
			full = prefix + "." + key
		}
		u := Update{Key: full, Nested: prefix != ""}
		u.Line, u.Col = p.Position(idx)
		u.ValueLine, u.ValueCol = u.Line, u.Col
		if val != nil {
			u.ValueLine, u.ValueCol = p.Position(val.Idx0())
		}
		u.Kind, u.Value = literal(val)
		*out = append(*out, u)
		if o, ok := val.(*ast.ObjectLiteral); ok {
			p.objectUpdates(out, full, o)
		}
	}
}

func propertyName(e ast.Expression) string {
	switch k := e.(type) {
	case *ast.Identifier:
		return string(k.Name)
	case *ast.StringLiteral:
		return string(k.Value)
	case *ast.NumberLiteral:
		return k.Literal
	}
	return ""
}

// literal classifies a value expression.
func literal(e ast.Expression) (kind string, value any) {
	switch x := e.(type) {
	case *ast.StringLiteral:
		return KindString, string(x.Value)
	case *ast.TemplateLiteral:
		if x.Tag == nil && len(x.Expressions) == 0 && len(x.Elements) == 1 {
			return KindString, string(x.Elements[0].Parsed)
		}
		// Any template without a tag is a string, whatever it holds.
		if x.Tag == nil {
			return KindString, nil
		}
	case *ast.NumberLiteral:
		switch v := x.Value.(type) {
		case int64:
			return KindNumber, float64(v)
		case float64:
			return KindNumber, v
		}
		return KindNumber, nil
	case *ast.UnaryExpression:
		if n, ok := x.Operand.(*ast.NumberLiteral); ok && x.Operator == token.MINUS && !x.Postfix {
			if _, v := literal(n); v != nil {
				return KindNumber, -v.(float64)
			}
		}
	case *ast.BooleanLiteral:
		return KindBoolean, x.Value
	case *ast.NullLiteral:
		return KindNull, nil
	case *ast.ArrayLiteral:
		return KindArray, nil
	case *ast.ObjectLiteral:
		return KindObject, nil
	}
	return "", nil
}
