package jsstatic

import (
	"reflect"

	"github.com/dop251/goja/ast"
)

// Inspect walks the AST below n depth-first, calling f for each node; when
// f returns false the node's children are skipped. goja's ast package has
// no walker of its own.
func Inspect(n ast.Node, f func(ast.Node) bool) {
	if n == nil || isNilNode(n) || !f(n) {
		return
	}
	eachChild(n, func(c ast.Node) { Inspect(c, f) })
}

// isNilNode catches typed nil pointers stored in interfaces (an absent
// Initializer, Alternate, Label …), whatever the node type.
func isNilNode(n ast.Node) bool {
	v := reflect.ValueOf(n)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

func visitList[T ast.Node](f func(ast.Node), list []T) {
	for _, e := range list {
		f(e)
	}
}

// eachChild calls f with each of a node's direct children, nil entries
// included (Inspect skips them). It calls rather than returns a list so
// that walking allocates nothing per node.
func eachChild(n ast.Node, f func(ast.Node)) {
	switch n := n.(type) {
	case *ast.Program:
		visitList(f, n.Body)
	case *ast.ArrayLiteral:
		visitList(f, n.Value)
	case *ast.ArrayPattern:
		visitList(f, n.Elements)
		f(n.Rest)
	case *ast.AssignExpression:
		f(n.Left)
		f(n.Right)
	case *ast.AwaitExpression:
		f(n.Argument)
	case *ast.YieldExpression:
		f(n.Argument)
	case *ast.BinaryExpression:
		f(n.Left)
		f(n.Right)
	case *ast.BracketExpression:
		f(n.Left)
		f(n.Member)
	case *ast.CallExpression:
		f(n.Callee)
		visitList(f, n.ArgumentList)
	case *ast.ConditionalExpression:
		f(n.Test)
		f(n.Consequent)
		f(n.Alternate)
	case *ast.DotExpression:
		f(n.Left)
	case *ast.PrivateDotExpression:
		f(n.Left)
	case *ast.OptionalChain:
		f(n.Expression)
	case *ast.Optional:
		f(n.Expression)
	case *ast.FunctionLiteral:
		f(n.ParameterList)
		f(n.Body)
	case *ast.ArrowFunctionLiteral:
		f(n.ParameterList)
		f(n.Body)
	case *ast.ExpressionBody:
		f(n.Expression)
	case *ast.ClassLiteral:
		f(n.SuperClass)
		visitList(f, n.Body)
	case *ast.FieldDefinition:
		f(n.Key)
		f(n.Initializer)
	case *ast.MethodDefinition:
		f(n.Key)
		f(n.Body)
	case *ast.ClassStaticBlock:
		f(n.Block)
	case *ast.NewExpression:
		f(n.Callee)
		visitList(f, n.ArgumentList)
	case *ast.ObjectLiteral:
		visitList(f, n.Value)
	case *ast.ObjectPattern:
		visitList(f, n.Properties)
		f(n.Rest)
	case *ast.ParameterList:
		visitList(f, n.List)
		f(n.Rest)
	case *ast.Binding:
		f(n.Target)
		f(n.Initializer)
	case *ast.PropertyShort:
		f(&n.Name)
		f(n.Initializer)
	case *ast.PropertyKeyed:
		f(n.Key)
		f(n.Value)
	case *ast.SpreadElement:
		f(n.Expression)
	case *ast.SequenceExpression:
		visitList(f, n.Sequence)
	case *ast.TemplateLiteral:
		f(n.Tag)
		visitList(f, n.Expressions)
	case *ast.UnaryExpression:
		f(n.Operand)
	case *ast.BlockStatement:
		visitList(f, n.List)
	case *ast.CaseStatement:
		f(n.Test)
		visitList(f, n.Consequent)
	case *ast.CatchStatement:
		f(n.Parameter)
		f(n.Body)
	case *ast.DoWhileStatement:
		f(n.Body)
		f(n.Test)
	case *ast.ExpressionStatement:
		f(n.Expression)
	case *ast.ForInStatement:
		f(n.Into)
		f(n.Source)
		f(n.Body)
	case *ast.ForOfStatement:
		f(n.Into)
		f(n.Source)
		f(n.Body)
	case *ast.ForStatement:
		f(n.Initializer)
		f(n.Test)
		f(n.Update)
		f(n.Body)
	case *ast.ForLoopInitializerExpression:
		f(n.Expression)
	case *ast.ForLoopInitializerVarDeclList:
		visitList(f, n.List)
	case *ast.ForLoopInitializerLexicalDecl:
		visitList(f, n.LexicalDeclaration.List)
	case *ast.ForIntoVar:
		f(n.Binding)
	case *ast.ForDeclaration:
		f(n.Target)
	case *ast.ForIntoExpression:
		f(n.Expression)
	case *ast.IfStatement:
		f(n.Test)
		f(n.Consequent)
		f(n.Alternate)
	case *ast.LabelledStatement:
		f(n.Statement)
	case *ast.ReturnStatement:
		f(n.Argument)
	case *ast.SwitchStatement:
		f(n.Discriminant)
		visitList(f, n.Body)
	case *ast.ThrowStatement:
		f(n.Argument)
	case *ast.TryStatement:
		f(n.Body)
		f(n.Catch)
		f(n.Finally)
	case *ast.VariableStatement:
		visitList(f, n.List)
	case *ast.LexicalDeclaration:
		visitList(f, n.List)
	case *ast.WhileStatement:
		f(n.Test)
		f(n.Body)
	case *ast.WithStatement:
		f(n.Object)
		f(n.Body)
	case *ast.FunctionDeclaration:
		f(n.Function)
	case *ast.ClassDeclaration:
		f(n.Class)
	}
}
