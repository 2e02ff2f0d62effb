package jsstatic

import (
	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/token"
)

// Builtins are the global names of goja's runtime: the ECMAScript
// built-ins (plus goja's GoError) that any block can read without
// declaring them. A test keeps the list equal to what goja.New() defines.
var Builtins = []string{
	"AggregateError", "Array", "ArrayBuffer", "BigInt", "BigInt64Array", "BigUint64Array",
	"Boolean", "DataView", "Date", "Error", "EvalError", "Float32Array", "Float64Array",
	"Function", "GoError", "Infinity", "Int16Array", "Int32Array", "Int8Array", "JSON",
	"Map", "Math", "NaN", "Number", "Object", "Promise", "Proxy", "RangeError",
	"ReferenceError", "Reflect", "RegExp", "Set", "String", "Symbol", "SyntaxError",
	"TypeError", "URIError", "Uint16Array", "Uint32Array", "Uint8Array", "Uint8ClampedArray",
	"WeakMap", "WeakSet", "decodeURI", "decodeURIComponent", "encodeURI",
	"encodeURIComponent", "escape", "eval", "globalThis", "isFinite", "isNaN",
	"parseFloat", "parseInt", "undefined", "unescape",
	// Every block runs as the body of a function, which has its own
	// arguments object.
	"arguments",
}

// Ref is a name a block reads without declaring it.
type Ref struct {
	Name string
	// Called is set when the name is called (helper(...)): a helper
	// function nothing declares, rather than a value nothing defines.
	Called bool
	// Line and Col are the first use in the block's text.
	Line, Col int
}

// FreeNames returns the names the program reads but declares nowhere, in
// order of first use, each once. A name declared anywhere in the block
// (in any function or block scope) counts as declared: the question is
// whether the code is pseudo-code that uses names nothing defines, not
// whether each use is in its binding's scope, which the run itself
// reports. The operand of typeof is not a read: `typeof x` of an
// undefined x is no error.
func (p *Program) FreeNames() []Ref { return p.memo.free.get(p.freeNames) }

func (p *Program) freeNames() []Ref {
	// One walk gathers the declarations and the reads; the reads are
	// sorted out once every declaration is known. The walk skips only
	// property keys and typeof's operand, which declare nothing.
	declared := map[string]bool{}
	type read struct {
		id     *ast.Identifier
		called bool
	}
	var reads []read
	var visit func(n ast.Node) bool
	visit = func(n ast.Node) bool {
		for _, name := range declaredBy(n) {
			declared[name] = true
		}
		switch n := n.(type) {
		case *ast.Identifier:
			reads = append(reads, read{n, false})
		case *ast.CallExpression:
			if id, ok := n.Callee.(*ast.Identifier); ok {
				reads = append(reads, read{id, true})
			}
		case *ast.UnaryExpression:
			if _, ok := n.Operand.(*ast.Identifier); ok && n.Operator == token.TYPEOF {
				return false
			}
		// A key that is not computed is a property name, not a read.
		case *ast.PropertyKeyed:
			if !n.Computed {
				Inspect(n.Value, visit)
				return false
			}
		case *ast.MethodDefinition:
			if !n.Computed {
				Inspect(n.Body, visit)
				return false
			}
		case *ast.FieldDefinition:
			if !n.Computed {
				Inspect(n.Initializer, visit)
				return false
			}
		}
		return true
	}
	Inspect(p.AST, visit)
	var out []Ref
	seen := map[string]int{}
	for _, r := range reads {
		name, _ := MCPToolName(r.id.Name.String())
		if declared[name] {
			continue
		}
		if i, ok := seen[name]; ok {
			out[i].Called = out[i].Called || r.called
			continue
		}
		line, col := p.Position(r.id.Idx)
		seen[name] = len(out)
		out = append(out, Ref{Name: name, Called: r.called, Line: line, Col: col})
	}
	return out
}

// TopLevelNames returns the names the block's own statements declare at
// its top level (var, let, const, function, class): what a later step
// of the same phase may use.
func (p *Program) TopLevelNames() []string { return p.memo.top.get(p.topLevelNames) }

func (p *Program) topLevelNames() []string {
	var out []string
	for _, st := range p.Body {
		switch st := st.(type) {
		case *ast.VariableStatement:
			for _, b := range st.List {
				out = append(out, patternNames(b.Target)...)
			}
		case *ast.LexicalDeclaration:
			for _, b := range st.List {
				out = append(out, patternNames(b.Target)...)
			}
		case *ast.FunctionDeclaration:
			out = append(out, identName(st.Function.Name)...)
		case *ast.ClassDeclaration:
			out = append(out, identName(st.Class.Name)...)
		}
	}
	return out
}

// Bindings are a block's top-level bindings that a later block can be
// given: Values names every variable, const and let (their values are
// read after the block ran), Decls is the source of every function and
// class declaration (declared again, as they have no JSON value).
type Bindings struct {
	Values []string
	Decls  []string
}

// TopLevelBindings returns the block's top-level bindings.
func (p *Program) TopLevelBindings() Bindings {
	var b Bindings
	for _, st := range p.Body {
		switch st := st.(type) {
		case *ast.VariableStatement:
			for _, x := range st.List {
				b.Values = append(b.Values, patternNames(x.Target)...)
			}
		case *ast.LexicalDeclaration:
			for _, x := range st.List {
				b.Values = append(b.Values, patternNames(x.Target)...)
			}
		case *ast.FunctionDeclaration, *ast.ClassDeclaration:
			b.Decls = append(b.Decls, p.source(st))
		}
	}
	return b
}

// source is the text of a node of the block.
func (p *Program) source(n ast.Node) string {
	from, to := int(n.Idx0())-1-p.shift, int(n.Idx1())-1-p.shift
	if from < 0 || to > len(p.src) || from >= to {
		return ""
	}
	return p.src[from:to]
}

// declaredBy returns the names a node binds: declarations, parameters,
// function and class names, catch parameters, loop variables.
func declaredBy(n ast.Node) []string {
	switch n := n.(type) {
	case *ast.Binding:
		// Variable declarations, parameters and for-in/of var bindings.
		return patternNames(n.Target)
	case *ast.ParameterList:
		return patternNames(n.Rest)
	case *ast.FunctionLiteral:
		return identName(n.Name)
	case *ast.ClassLiteral:
		return identName(n.Name)
	case *ast.CatchStatement:
		return patternNames(n.Parameter)
	case *ast.ForDeclaration:
		return patternNames(n.Target)
	}
	return nil
}

func identName(id *ast.Identifier) []string {
	if id == nil {
		return nil
	}
	return []string{id.Name.String()}
}

// patternNames returns the names a binding target binds: an identifier,
// or every identifier of an array or object pattern (defaults and
// computed keys aside).
func patternNames(n ast.Node) []string {
	if n == nil || isNilNode(n) {
		return nil
	}
	switch n := n.(type) {
	case *ast.Identifier:
		return []string{n.Name.String()}
	case *ast.ArrayPattern:
		var out []string
		for _, e := range n.Elements {
			out = append(out, patternNames(e)...)
		}
		return append(out, patternNames(n.Rest)...)
	case *ast.ObjectPattern:
		var out []string
		for _, prop := range n.Properties {
			switch prop := prop.(type) {
			case *ast.PropertyShort:
				out = append(out, prop.Name.Name.String())
			case *ast.PropertyKeyed:
				out = append(out, patternNames(prop.Value)...)
			}
		}
		return append(out, patternNames(n.Rest)...)
	case *ast.AssignExpression:
		// A default value: [a = 1] binds a.
		return patternNames(n.Left)
	}
	return nil
}
