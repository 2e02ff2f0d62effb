package script

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/dop251/goja"
	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/parser"

	"github.com/skillkit/skillkit/plan"
)

// PureEnv is what pure code (preconditions, step conditions,
// selectNextAction) sees: state, inputs and the orchestrator's
// declarations, and nothing else: no host API, no console.
type PureEnv struct {
	State  map[string]any
	Inputs map[string]string
	// Decls are JS blocks whose top-level declarations (function, class,
	// const, let, var) are in scope: plan.Orchestrator.Declarations. Their
	// other top-level statements are not run.
	Decls []*plan.CodeBlock
	// Timeout bounds one call of EvalExpr, Preconditions or
	// SelectNextAction; zero means DefaultPureTimeout.
	Timeout time.Duration
	// Memory is the heap budget of one call, as Options.JSMemory; zero
	// means DefaultJSMemory.
	Memory int64
}

// pureVM is a runtime prepared for pure evaluations, under a deadline.
type pureVM struct {
	vm *goja.Runtime
	// g guards vm's allocations, and protects its conversions.
	g     *guard
	state goja.Value
	stop  func()
}

// newPure builds a fresh runtime for env: a fresh one per call, so that
// nothing one evaluation leaves behind (a global, a changed state) is seen
// by the next.
func newPure(ctx context.Context, env PureEnv) (*pureVM, error) {
	timeout := env.Timeout
	if timeout <= 0 {
		timeout = DefaultPureTimeout
	}
	r := prepare(env.Memory)
	vm := r.vm
	_, stop := deadline(ctx, r, timeout)
	p := &pureVM{vm: vm, g: r.gl.g, stop: stop}
	var err error
	if p.state, err = toJS(vm, env.State); err != nil {
		p.stop()
		return nil, err
	}
	inputs, err := toJS(vm, inputsValue(env.Inputs))
	if err != nil {
		p.stop()
		return nil, err
	}
	_ = vm.Set("state", p.state)
	_ = vm.Set("inputs", inputs)
	for _, b := range env.Decls {
		if err := p.declare(b); err != nil {
			p.stop()
			return nil, err
		}
	}
	return p, nil
}

// declare runs the top-level declarations of b. A block that does not
// parse is left out (lint reports it), and so is a declaration whose
// initializer throws: it stays uninitialized, and code that uses it gets a
// ReferenceError then. Only running out of time stops the evaluation.
func (p *pureVM) declare(b *plan.CodeBlock) error {
	decls, _ := declarations(b)
	for _, d := range decls {
		prog, err := compile(kindDecl, d.pos, d.src)
		if err != nil {
			continue
		}
		if _, err := p.vm.RunProgram(prog); err != nil {
			var ierr *goja.InterruptedError
			if errors.As(err, &ierr) {
				return jsError(p.vm, err, d.pos)
			}
		}
	}
	return nil
}

// eval evaluates one expression to a boolean.
func (p *pureVM) eval(e *plan.Expr) (bool, error) {
	if !e.Checkable() {
		return true, nil
	}
	prog, err := compile(kindExpr, e.Pos, e.JS)
	if err != nil {
		return false, err
	}
	v, err := p.vm.RunProgram(prog)
	if err != nil {
		return false, jsError(p.vm, err, e.Pos)
	}
	return v.ToBoolean(), nil
}

// holds reports whether a precondition line holds: its own expression,
// and one of its nested any-of lines when it has some.
func (p *pureVM) holds(pc *plan.Precondition) (bool, error) {
	ok, err := p.eval(&pc.Expr)
	if err != nil || !ok || len(pc.AnyOf) == 0 {
		return ok, err
	}
	for _, alt := range pc.AnyOf {
		ok, err := p.holds(alt)
		if err != nil || ok {
			return ok, err
		}
	}
	return false, nil
}

// EvalExpr evaluates a condition or precondition expression to a boolean
// (JS truthiness). An expression that is not checkable (prose) is true.
func EvalExpr(ctx context.Context, e *plan.Expr, env PureEnv) (bool, error) {
	if !e.Checkable() {
		return true, nil
	}
	p, err := newPure(ctx, env)
	if err != nil {
		return false, err
	}
	defer p.stop()
	return p.eval(e)
}

// Preconditions reports whether every line of ps holds; a line with
// nested any-of lines holds when its own expression does (prose counts as
// true) and one of the nested lines does.
func Preconditions(ctx context.Context, ps []*plan.Precondition, env PureEnv) (bool, error) {
	if !anyCheckable(ps) {
		return true, nil
	}
	p, err := newPure(ctx, env)
	if err != nil {
		return false, err
	}
	defer p.stop()
	return p.preconditions(ps)
}

// preconditions reports whether every line of ps holds.
func (p *pureVM) preconditions(ps []*plan.Precondition) (bool, error) {
	for _, pc := range ps {
		if ok, err := p.holds(pc); err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

func anyCheckable(ps []*plan.Precondition) bool {
	for _, pc := range ps {
		if pc.Checkable() || anyCheckable(pc.AnyOf) {
			return true
		}
	}
	return false
}

// SelectNextAction calls the orchestrator's selectNextAction(state) with
// every declaration of the orchestrator's blocks in scope, under
// DefaultPureTimeout (or ctx's deadline when sooner). ok is false when it
// returned null or undefined: the run stops.
func SelectNextAction(ctx context.Context, o *plan.Orchestrator, state map[string]any) (id string, ok bool, err error) {
	return selectNext(ctx, o, PureEnv{State: state})
}

func selectNext(ctx context.Context, o *plan.Orchestrator, env PureEnv) (string, bool, error) {
	decls, err := selectionBlocks(o)
	if err != nil {
		return "", false, err
	}
	env.Decls = decls
	p, err := newPure(ctx, env)
	if err != nil {
		return "", false, err
	}
	defer p.stop()
	return p.selectNext(o)
}

// selectionBlocks are the blocks whose declarations selectNextAction has
// in scope: the orchestrator's, its Decision Logic included.
func selectionBlocks(o *plan.Orchestrator) ([]*plan.CodeBlock, error) {
	if o == nil || o.Decision == nil {
		return nil, errors.New("selecting the next action: the orchestrator has no Decision Logic block")
	}
	// The decision block's own syntax errors are the caller's concern;
	// other blocks' are only documentation gone wrong.
	if _, err := declarations(o.Decision); err != nil {
		return nil, err
	}
	decls := o.Declarations
	if !containsBlock(decls, o.Decision) {
		decls = append(decls[:len(decls):len(decls)], o.Decision)
	}
	return decls, nil
}

// selectNext calls selectNextAction(state) in p, where the orchestrator's
// declarations are.
func (p *pureVM) selectNext(o *plan.Orchestrator) (string, bool, error) {
	sel, err := p.g.global("selectNextAction")
	if err != nil {
		return "", false, &Error{Pos: o.Decision.Body, Msg: "reading selectNextAction: " + err.Error(), Err: err}
	}
	fn, isFn := goja.AssertFunction(sel)
	if !isFn {
		return "", false, &Error{Pos: o.Decision.Body, Msg: "the Decision Logic block defines no function selectNextAction"}
	}
	v, err := fn(goja.Undefined(), p.state)
	if err != nil {
		return "", false, jsError(p.vm, err, o.Decision.Body)
	}
	if v, err = await(p.vm, v, o.Decision.Body); err != nil {
		return "", false, err
	}
	if goja.IsNull(v) || goja.IsUndefined(v) {
		return "", false, nil
	}
	// Export runs the getters of an object; one that fails is no id. A
	// primitive (the usual id) runs nothing.
	var id string
	var isStr bool
	export := func() { id, isStr = v.Export().(string) }
	if _, isObj := v.(*goja.Object); isObj {
		_ = p.g.protect(export)
	} else {
		export()
	}
	if !isStr || id == "" {
		return "", false, &Error{Pos: o.Decision.Body, Msg: fmt.Sprintf("selectNextAction returned %s, want an action id or null", describe(p.vm, v))}
	}
	return id, true, nil
}

func containsBlock(bs []*plan.CodeBlock, b *plan.CodeBlock) bool {
	for _, x := range bs {
		if x == b || (x.Pos == b.Pos && x.Text == b.Text) {
			return true
		}
	}
	return false
}

// describe shows a value that is not an action id; an object is shown
// protected, as its string form runs skill code.
func describe(vm *goja.Runtime, v goja.Value) string {
	if _, isObj := v.(*goja.Object); isObj {
		return show(vm, v)
	}
	if s, ok := v.Export().(string); ok {
		return fmt.Sprintf("%q", s)
	}
	return v.String()
}

func inputsValue(in map[string]string) map[string]any {
	out := make(map[string]any, len(in))
	for k, v := range in {
		out[k] = v
	}
	return out
}

// decl is one top-level declaration of a block, with its position in the
// markdown file.
type decl struct {
	pos plan.Pos
	src string
}

type declResult struct {
	decls []decl
	err   error
}

var declCache sync.Map

// declarations returns the top-level declarations of b in source order.
func declarations(b *plan.CodeBlock) ([]decl, error) {
	key := progKey{kind: kindDecl, pos: b.Body, src: b.Text}
	if r, ok := declCache.Load(key); ok {
		return r.(*declResult).decls, r.(*declResult).err
	}
	r := &declResult{}
	prog, err := parser.ParseFile(nil, b.Body.File, b.Text, 0)
	if err != nil {
		r.err = syntaxError(plan.Pos{File: b.Body.File, Line: b.Body.Line}, shiftLines(err, b.Body.Line-1))
	} else {
		for _, st := range prog.Body {
			switch st.(type) {
			case *ast.FunctionDeclaration, *ast.LexicalDeclaration, *ast.VariableStatement, *ast.ClassDeclaration:
				from, to := int(st.Idx0())-1, int(st.Idx1())-1
				fp := prog.File.Position(from)
				r.decls = append(r.decls, decl{
					pos: plan.Pos{File: b.Body.File, Line: b.Body.Line + fp.Line - 1, Col: fp.Column},
					src: b.Text[from:to],
				})
			}
		}
	}
	declCache.Store(key, r)
	return r.decls, r.err
}

// shiftLines moves the positions of a parse error of a block's text to
// the block's place in its markdown file.
func shiftLines(err error, by int) error {
	var list parser.ErrorList
	if !errors.As(err, &list) {
		return err
	}
	out := make(parser.ErrorList, len(list))
	for i, e := range list {
		c := *e
		c.Position.Line += by
		out[i] = &c
	}
	return out
}
