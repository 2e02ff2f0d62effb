package script

import (
	"reflect"

	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/file"
)

// The heap watchdog polls from its own goroutine, and one JS instruction
// can allocate a lot: `s += s` doubles a string in one go. On a starved
// CPU the poll came two doublings late (6× the budget was seen in CI).
// So the code itself checks: every loop body and every function body is
// compiled with a call of tickName at its head, which weighs the heap on
// the evaluation's own goroutine before the next iteration or call can
// allocate again (meter.tick).

// tickName is the global the instrumented code calls. It is not a valid
// identifier, so no skill code can declare, shadow or assign it by name;
// the global itself is read-only.
const tickName = "skillkit tick"

// instrument adds a tick at the head of every loop body and function body
// of prog. The ticks take the position of their loop or function, so that
// a stop is reported there; no other node moves.
func instrument(prog *ast.Program) {
	walkAST(prog, func(n any) bool {
		addTick(n)
		return true
	})
}

// walkAST calls visit with every node under root, parents first, and goes
// below a node only where visit says so.
func walkAST(root any, visit func(n any) bool) {
	seen := map[uintptr]bool{}
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Interface:
			if !v.IsNil() {
				walk(v.Elem())
			}
		case reflect.Pointer:
			// Only the AST's own nodes: a node may be reached twice (a
			// function's declaration list names its variables again).
			if v.IsNil() || v.Elem().Kind() != reflect.Struct || v.Elem().Type().PkgPath() != astPkg || seen[v.Pointer()] {
				return
			}
			seen[v.Pointer()] = true
			if visit(v.Interface()) {
				walk(v.Elem())
			}
		case reflect.Struct:
			for i := range v.NumField() {
				if v.Type().Field(i).IsExported() {
					walk(v.Field(i))
				}
			}
		case reflect.Slice:
			for i := range v.Len() {
				walk(v.Index(i))
			}
		}
	}
	walk(reflect.ValueOf(root))
}

// unAsync makes the function a block is wrapped in (bodyHead) a plain
// one when the block awaits nothing at its own level: an async call makes
// goja build the Promise machinery of the runtime, a tenth of a no-op
// loop iteration, and a runtime lives one iteration. What the function
// would have rejected with, it throws (evaluation.runWith reports both
// alike); a result that is a promise is settled as before (await).
func unAsync(prog *ast.Program) {
	if len(prog.Body) != 1 {
		return
	}
	st, ok := prog.Body[0].(*ast.ExpressionStatement)
	if !ok {
		return
	}
	fn, ok := st.Expression.(*ast.FunctionLiteral)
	if !ok || !fn.Async || fn.Body == nil {
		return
	}
	awaits := false
	walkAST(fn.Body, func(n any) bool {
		switch n.(type) {
		case *ast.AwaitExpression:
			awaits = true
		case *ast.FunctionLiteral, *ast.ArrowFunctionLiteral:
			// Its awaits are its own.
			return false
		}
		return !awaits
	})
	fn.Async = awaits
}

var astPkg = reflect.TypeFor[ast.Program]().PkgPath()

// addTick puts a tick at the head of n's body when n is a loop or a
// function.
func addTick(n any) {
	switch n := n.(type) {
	case *ast.ForStatement:
		n.Body = ticked(n.Body, n.For)
	case *ast.ForInStatement:
		n.Body = ticked(n.Body, n.For)
	case *ast.ForOfStatement:
		n.Body = ticked(n.Body, n.For)
	case *ast.WhileStatement:
		n.Body = ticked(n.Body, n.While)
	case *ast.DoWhileStatement:
		n.Body = ticked(n.Body, n.Do)
	case *ast.FunctionLiteral:
		if n.Body != nil {
			n.Body.List = withTick(n.Body.List, n.Function)
		}
	case *ast.ArrowFunctionLiteral:
		switch body := n.Body.(type) {
		case *ast.BlockStatement:
			body.List = withTick(body.List, n.Start)
		case *ast.ExpressionBody:
			n.Body = &ast.BlockStatement{
				LeftBrace:  n.Start,
				List:       []ast.Statement{tickCall(n.Start), &ast.ReturnStatement{Return: body.Expression.Idx0(), Argument: body.Expression}},
				RightBrace: body.Expression.Idx1(),
			}
		}
	}
}

// ticked is a loop body with a tick before it.
func ticked(body ast.Statement, at file.Idx) ast.Statement {
	return &ast.BlockStatement{LeftBrace: at, List: []ast.Statement{tickCall(at), body}, RightBrace: body.Idx1()}
}

// withTick puts a tick after a function body's directive prologue ("use
// strict" is only a directive before any other statement).
func withTick(list []ast.Statement, at file.Idx) []ast.Statement {
	i := 0
	for ; i < len(list); i++ {
		st, ok := list[i].(*ast.ExpressionStatement)
		if !ok {
			break
		}
		if _, ok := st.Expression.(*ast.StringLiteral); !ok {
			break
		}
	}
	out := make([]ast.Statement, 0, len(list)+1)
	out = append(out, list[:i]...)
	out = append(out, tickCall(at))
	return append(out, list[i:]...)
}

func tickCall(at file.Idx) ast.Statement {
	return &ast.ExpressionStatement{Expression: &ast.CallExpression{
		Callee:          &ast.Identifier{Name: tickName, Idx: at},
		LeftParenthesis: at, RightParenthesis: at,
	}}
}
