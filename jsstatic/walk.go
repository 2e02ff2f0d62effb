package jsstatic

import "github.com/dop251/goja/ast"

// Inspect walks the AST below n depth-first, calling f for each node; when
// f returns false the node's children are skipped. goja's ast package has
// no walker of its own.
func Inspect(n ast.Node, f func(ast.Node) bool) {
	if n == nil || isNilNode(n) || !f(n) {
		return
	}
	for _, c := range children(n) {
		Inspect(c, f)
	}
}

// isNilNode catches typed nil pointers stored in interfaces (an absent
// Initializer, Alternate, Label …).
func isNilNode(n ast.Node) bool {
	switch n := n.(type) {
	case *ast.BlockStatement:
		return n == nil
	case *ast.Identifier:
		return n == nil
	case *ast.FunctionLiteral:
		return n == nil
	case *ast.ClassLiteral:
		return n == nil
	case *ast.CatchStatement:
		return n == nil
	case *ast.ParameterList:
		return n == nil
	case *ast.Binding:
		return n == nil
	}
	return false
}

func exprs[T ast.Node](list []T) []ast.Node {
	out := make([]ast.Node, 0, len(list))
	for _, e := range list {
		out = append(out, e)
	}
	return out
}

// children lists a node's direct children, nil entries included (Inspect
// skips them).
func children(n ast.Node) []ast.Node {
	switch n := n.(type) {
	case *ast.Program:
		return exprs(n.Body)
	case *ast.ArrayLiteral:
		return exprs(n.Value)
	case *ast.ArrayPattern:
		return append(exprs(n.Elements), n.Rest)
	case *ast.AssignExpression:
		return []ast.Node{n.Left, n.Right}
	case *ast.AwaitExpression:
		return []ast.Node{n.Argument}
	case *ast.YieldExpression:
		return []ast.Node{n.Argument}
	case *ast.BinaryExpression:
		return []ast.Node{n.Left, n.Right}
	case *ast.BracketExpression:
		return []ast.Node{n.Left, n.Member}
	case *ast.CallExpression:
		return append([]ast.Node{n.Callee}, exprs(n.ArgumentList)...)
	case *ast.ConditionalExpression:
		return []ast.Node{n.Test, n.Consequent, n.Alternate}
	case *ast.DotExpression:
		return []ast.Node{n.Left}
	case *ast.PrivateDotExpression:
		return []ast.Node{n.Left}
	case *ast.OptionalChain:
		return []ast.Node{n.Expression}
	case *ast.Optional:
		return []ast.Node{n.Expression}
	case *ast.FunctionLiteral:
		return []ast.Node{n.ParameterList, n.Body}
	case *ast.ArrowFunctionLiteral:
		return []ast.Node{n.ParameterList, n.Body}
	case *ast.ExpressionBody:
		return []ast.Node{n.Expression}
	case *ast.ClassLiteral:
		return append([]ast.Node{n.SuperClass}, exprs(n.Body)...)
	case *ast.FieldDefinition:
		return []ast.Node{n.Key, n.Initializer}
	case *ast.MethodDefinition:
		return []ast.Node{n.Key, n.Body}
	case *ast.ClassStaticBlock:
		return []ast.Node{n.Block}
	case *ast.NewExpression:
		return append([]ast.Node{n.Callee}, exprs(n.ArgumentList)...)
	case *ast.ObjectLiteral:
		return exprs(n.Value)
	case *ast.ObjectPattern:
		return append(exprs(n.Properties), n.Rest)
	case *ast.ParameterList:
		return append(exprs(n.List), n.Rest)
	case *ast.Binding:
		return []ast.Node{n.Target, n.Initializer}
	case *ast.PropertyShort:
		return []ast.Node{&n.Name, n.Initializer}
	case *ast.PropertyKeyed:
		return []ast.Node{n.Key, n.Value}
	case *ast.SpreadElement:
		return []ast.Node{n.Expression}
	case *ast.SequenceExpression:
		return exprs(n.Sequence)
	case *ast.TemplateLiteral:
		return append([]ast.Node{n.Tag}, exprs(n.Expressions)...)
	case *ast.UnaryExpression:
		return []ast.Node{n.Operand}
	case *ast.BlockStatement:
		return exprs(n.List)
	case *ast.CaseStatement:
		return append([]ast.Node{n.Test}, exprs(n.Consequent)...)
	case *ast.CatchStatement:
		return []ast.Node{n.Parameter, n.Body}
	case *ast.DoWhileStatement:
		return []ast.Node{n.Body, n.Test}
	case *ast.ExpressionStatement:
		return []ast.Node{n.Expression}
	case *ast.ForInStatement:
		return []ast.Node{n.Into, n.Source, n.Body}
	case *ast.ForOfStatement:
		return []ast.Node{n.Into, n.Source, n.Body}
	case *ast.ForStatement:
		return []ast.Node{n.Initializer, n.Test, n.Update, n.Body}
	case *ast.ForLoopInitializerExpression:
		return []ast.Node{n.Expression}
	case *ast.ForLoopInitializerVarDeclList:
		return exprs(n.List)
	case *ast.ForLoopInitializerLexicalDecl:
		return exprs(n.LexicalDeclaration.List)
	case *ast.ForIntoVar:
		return []ast.Node{n.Binding}
	case *ast.ForDeclaration:
		return []ast.Node{n.Target}
	case *ast.ForIntoExpression:
		return []ast.Node{n.Expression}
	case *ast.IfStatement:
		return []ast.Node{n.Test, n.Consequent, n.Alternate}
	case *ast.LabelledStatement:
		return []ast.Node{n.Statement}
	case *ast.ReturnStatement:
		return []ast.Node{n.Argument}
	case *ast.SwitchStatement:
		return append([]ast.Node{n.Discriminant}, exprs(n.Body)...)
	case *ast.ThrowStatement:
		return []ast.Node{n.Argument}
	case *ast.TryStatement:
		return []ast.Node{n.Body, n.Catch, n.Finally}
	case *ast.VariableStatement:
		return exprs(n.List)
	case *ast.LexicalDeclaration:
		return exprs(n.List)
	case *ast.WhileStatement:
		return []ast.Node{n.Test, n.Body}
	case *ast.WithStatement:
		return []ast.Node{n.Object, n.Body}
	case *ast.FunctionDeclaration:
		return []ast.Node{n.Function}
	case *ast.ClassDeclaration:
		return []ast.Node{n.Class}
	}
	return nil
}
