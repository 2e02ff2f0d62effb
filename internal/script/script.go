// Package script runs the JavaScript of a skill in an embedded engine
// (goja), as written: preconditions and selectNextAction in a pure sandbox
// with no host API, steps and actions with the Claude Code tool vocabulary
// of DESIGN §3.3 (Read, Write, Bash, Glob, Task, …) confined to the
// project, the skill and the work dir.
//
// Every evaluation runs under a deadline, and every error names the
// markdown file and line the code came from: programs are compiled under
// the markdown file's name with their first line placed at the line of the
// block, so goja's own positions and stack traces are already right.
package script

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dop251/goja"
	"github.com/dop251/goja/parser"

	"github.com/skillkit/skillkit/jsstatic"
	"github.com/skillkit/skillkit/plan"
)

// Default time limits of one evaluation.
const (
	DefaultPureTimeout   = 5 * time.Second
	DefaultEffectTimeout = 10 * time.Minute
)

// ErrTimeout is wrapped by the error of an evaluation that ran out of time.
var ErrTimeout = errors.New("evaluation timed out")

// timedOut is the cause of an evaluation that ran out of time after the
// duration: ErrTimeout, written out only when read, as most evaluations
// end in time (fmt.Errorf for each was a tenth of setting one up).
type timedOut time.Duration

func (d timedOut) Error() string { return ErrTimeout.Error() + " after " + time.Duration(d).String() }

func (d timedOut) Unwrap() error { return ErrTimeout }

// Error is a failure of skill code: a syntax error, an exception, a
// timeout. Pos is where in the markdown file it happened (the innermost
// frame of skill code), Stack the JS stack with markdown positions.
type Error struct {
	Pos   plan.Pos
	Msg   string
	Stack string
	// Err is the Go error underneath when there is one: ErrTimeout, a
	// context error, a refused path, a failed agent call.
	Err error
}

func (e *Error) Error() string {
	if e.Pos.IsValid() {
		return e.Pos.String() + ": " + e.Msg
	}
	return e.Msg
}

func (e *Error) Unwrap() error { return e.Err }

// kind is how a piece of source is wrapped before compiling.
type kind int

const (
	// kindExpr is an expression whose value is the program's result.
	kindExpr kind = iota
	// kindBody is a block run as the body of an async function, so that
	// top-level return and await work (a plain function where it awaits
	// nothing: unAsync); the function ends by calling execute(state,
	// workDir) when the block defined one, its promise settled by await.
	kindBody
	// kindDecl is one top-level declaration of an orchestrator block.
	kindDecl
)

const (
	bodyHead = "(async function() {"
	bodyTail = "\n;if (typeof execute === 'function') return execute(globalThis.state, globalThis.workDir);\n})"
)

type progKey struct {
	kind      kind
	pos       plan.Pos
	src, head string
}

type compiled struct {
	prog *goja.Program
	err  error
}

// programs caches compiled programs by content and position: a block is
// compiled once however many runtimes run it (goja programs are shareable).
var programs sync.Map

// compile returns the program for src placed at pos in its markdown file.
func compile(k kind, pos plan.Pos, src string) (*goja.Program, error) {
	return compileWith(k, pos, src, "")
}

// compileWith is compile with head added to a body's wrapper, on the line
// before the block's first (a padding line: the block starts below its
// fence), so that positions in the block stay the markdown's.
func compileWith(k kind, pos plan.Pos, src, head string) (*goja.Program, error) {
	key := progKey{kind: k, pos: pos, src: src, head: head}
	if c, ok := programs.Load(key); ok {
		return c.(*compiled).prog, c.(*compiled).err
	}
	name := pos.File
	if name == "" {
		name = "<skill code>"
	}
	pad := strings.Repeat("\n", max(pos.Line-1, 0))
	// mcp__ace-tool__x(...) is a call, not a subtraction.
	src = jsstatic.RewriteMCP(src)
	var text string
	switch k {
	case kindExpr:
		// The column matters for an inline expression: `state.x` in a list
		// item. The opening parenthesis takes one of the padding columns.
		text = pad + strings.Repeat(" ", max(pos.Col-2, 0)) + "(" + src + "\n)"
	case kindBody:
		if head != "" && pad == "" {
			// No padding line to hold it: its own line, one line off.
			head += "\n"
		}
		text = bodyHead + head + pad + src + bodyTail
	case kindDecl:
		text = pad + strings.Repeat(" ", max(pos.Col-1, 0)) + src
	}
	var prog *goja.Program
	ast, err := parser.ParseFile(nil, name, text, 0, parser.WithDisableSourceMaps)
	if err == nil {
		if k == kindBody {
			unAsync(ast)
		}
		instrument(ast)
		prog, err = goja.CompileAST(ast, false)
	}
	if err != nil {
		err = syntaxError(pos, err)
	}
	programs.Store(key, &compiled{prog: prog, err: err})
	return prog, err
}

// syntaxError positions a compile error in the markdown file.
func syntaxError(pos plan.Pos, err error) error {
	e := &Error{Pos: plan.Pos{File: pos.File, Line: pos.Line}, Msg: err.Error(), Err: err}
	var list parser.ErrorList
	var cerr *goja.CompilerSyntaxError
	switch {
	case errors.As(err, &list) && len(list) > 0:
		e.Pos.Line, e.Pos.Col = list[0].Position.Line, list[0].Position.Column
		e.Msg = "SyntaxError: " + list[0].Message
	case errors.As(err, &cerr) && cerr.File != nil:
		fp := cerr.File.Position(cerr.Offset)
		e.Pos.Line, e.Pos.Col = fp.Line, fp.Column
		e.Msg = "SyntaxError: " + cerr.Message
	}
	return e
}

// ErrMemory is wrapped by the error of an evaluation stopped because the
// heap grew past its budget.
var ErrMemory = errors.New("JS heap budget exceeded")

// DefaultJSMemory is the heap budget of an evaluation when none is given.
const DefaultJSMemory = 512 << 20

// memoryEvery is how often the watchdog weighs an evaluation's heap, for
// code that runs no loop of its own (the ticks weigh the rest).
const memoryEvery = time.Millisecond

// prepared is a runtime with what does not depend on the state or the
// evaluation: goja's builtins, the allocation guards (guardAllocations)
// with the lazy globals in front of them, and the heap meter's tick. A
// loop makes the next iteration's behind the current one (Host.Turn).
type prepared struct {
	vm *goja.Runtime
	gl *globals
	m  *meter
}

// prepare makes a runtime whose evaluations may grow the heap to budget
// bytes (zero means DefaultJSMemory). Nothing runs in it, and nothing
// runs for it, until deadline.
func prepare(budget int64) *prepared {
	if budget <= 0 {
		budget = DefaultJSMemory
	}
	vm := goja.New()
	p := &prepared{vm: vm, gl: guardAllocations(vm, budget), m: &meter{vm: vm, budget: budget}}
	_ = vm.GlobalObject().DefineDataProperty(tickName, vm.ToValue(p.m.tick), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE)
	return p
}

// bounded is ctx ended after timeout, with timedOut(timeout) as its
// cause and context.DeadlineExceeded as its Err, or by the returned
// function with its cause and context.Canceled: what reads the context
// (a host call's command, the engine, which takes Canceled for the user
// stopping the run) tells a timeout as from any context with a deadline.
func bounded(ctx context.Context, timeout time.Duration) (context.Context, context.CancelCauseFunc) {
	ctx, end := context.WithCancelCause(ctx)
	ctx, cancel := context.WithTimeoutCause(ctx, timeout, timedOut(timeout))
	return ctx, func(cause error) {
		end(cause)
		cancel()
	}
}

// deadline bounds the evaluations of p: it returns a context that ends
// after timeout (with ErrTimeout as its cause), or once the live heap
// passes p's budget (ErrMemory), and interrupts p's runtime when it ends.
// Call the returned function when the evaluation is over.
//
// goja has no heap limit, so the heap is weighed: by the code itself at
// the head of each loop iteration and function call (tick.go), by a
// watchdog every memoryEvery for what runs no loop, and before the
// builtins that allocate in one call (guardAllocations).
func deadline(ctx context.Context, p *prepared, timeout time.Duration) (context.Context, func()) {
	vm, m := p.vm, p.m
	ctx, over := bounded(ctx, timeout)
	stop := context.AfterFunc(ctx, func() { vm.Interrupt(context.Cause(ctx)) })
	m.over, m.origin = over, time.Now()
	w := &watchdog{ctx: ctx, m: m}
	w.mu.Lock()
	w.t = time.AfterFunc(memoryEvery, w.weigh)
	w.mu.Unlock()
	return ctx, func() {
		stop()
		over(nil)
		w.mu.Lock()
		w.t.Stop()
		w.mu.Unlock()
	}
}

// watchdog weighs an evaluation's heap every memoryEvery until its
// context ends, for code that runs no loop of its own. A timer rather
// than a goroutine of its own: most evaluations (a loop iteration's
// selection and action) end before it first fires, and starting and
// ending a goroutine for each was a loop iteration's 3%.
type watchdog struct {
	ctx context.Context
	m   *meter
	mu  sync.Mutex
	t   *time.Timer
}

func (w *watchdog) weigh() {
	if w.ctx.Err() != nil {
		return
	}
	if err := w.m.exceeded(); err != nil {
		w.m.stop(err)
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ctx.Err() == nil {
		w.t.Reset(memoryEvery)
	}
}

// meter weighs the heap of one evaluation against its budget.
type meter struct {
	vm     *goja.Runtime
	budget int64
	over   context.CancelCauseFunc
	// last is when tick last weighed, since origin: a monotonic reading
	// alone, half the cost of a wall clock's. Read on the evaluation's
	// goroutine only.
	origin time.Time
	last   time.Duration
}

// tickEvery is how often at most the code's own ticks weigh the heap: a
// loop of cheap iterations weighs it seldom, and an iteration that took
// long (a doubling of a large string) is followed by a weighing at once.
const tickEvery = 50 * time.Microsecond

// tick is what instrumented code calls at the head of each loop iteration
// and function call: on the evaluation's goroutine, so the next
// allocation waits for the verdict.
func (m *meter) tick(goja.FunctionCall) goja.Value {
	if now := time.Since(m.origin); now-m.last >= tickEvery {
		m.last = now
		if err := m.exceeded(); err != nil {
			m.stop(err)
		}
	}
	return goja.Undefined()
}

// exceeded is the error of a heap past the budget, or nil. The heap's
// objects as allocated now count garbage too (what an evaluation stopped
// before this one left among it): past the budget, a collection tells
// what is live, and that is judged.
func (m *meter) exceeded() error {
	if allocatedHeap() <= m.budget {
		return nil
	}
	runtime.GC()
	if n := liveHeap(); n > m.budget {
		return fmt.Errorf("%w: the heap grew to %d MiB, past the budget of %d MiB (--js-memory)", ErrMemory, n>>20, m.budget>>20)
	}
	return nil
}

// stop ends the evaluation for err, interrupting it at once rather than
// when the context's watcher gets to run.
func (m *meter) stop(err error) {
	m.over(err)
	m.vm.Interrupt(err)
}

// jsError turns what goja returned into an *Error positioned in the
// markdown file; fallback is used when no frame of skill code is known.
// The thrown value is read protected (see show): it may be anything.
func jsError(vm *goja.Runtime, err error, fallback plan.Pos) error {
	var serr *Error
	if errors.As(err, &serr) {
		return err
	}
	var ierr *goja.InterruptedError
	if errors.As(err, &ierr) {
		e := &Error{Pos: framePos(ierr.Stack(), fallback), Msg: fmt.Sprint(ierr.Value()), Stack: stackString(ierr.Stack(), fallback)}
		if cause, ok := ierr.Value().(error); ok {
			e.Err = cause
		}
		return e
	}
	var exc *goja.Exception
	if errors.As(err, &exc) {
		e := &Error{Pos: framePos(exc.Stack(), fallback), Msg: show(vm, exc.Value()), Stack: stackString(exc.Stack(), fallback)}
		// Unwrap reads the value's "value" property: a getter, maybe.
		_ = protect(vm, func() { e.Err = exc.Unwrap() })
		return e
	}
	err = plain(vm, err)
	return &Error{Pos: fallback, Msg: err.Error(), Err: err}
}

// rejection turns the reason of a rejected promise into an *Error: there
// is no Go exception then, only the JS value and its stack text.
func rejection(vm *goja.Runtime, reason goja.Value, fallback plan.Pos) error {
	e := &Error{Pos: fallback, Msg: show(vm, reason)}
	obj, ok := reason.(*goja.Object)
	if !ok {
		e.Msg = "uncaught " + e.Msg
		return e
	}
	// Its Go error and stack are extras: when reading them fails, the
	// message alone is the error.
	_ = protect(vm, func() {
		if v := obj.Get("value"); v != nil {
			if gerr, ok := v.Export().(error); ok {
				e.Err = gerr
			}
		}
		if s := obj.Get("stack"); s != nil && !goja.IsUndefined(s) {
			e.Stack = s.String()
		}
	})
	if p, ok := stackPos(e.Stack, fallback.File); ok && p.Line >= fallback.Line {
		e.Pos = p
	}
	return e
}

// framePos is the position of the innermost frame of skill code.
func framePos(frames []goja.StackFrame, fallback plan.Pos) plan.Pos {
	for _, f := range frames {
		if p, ok := frameAt(f, fallback); ok {
			return p
		}
	}
	return fallback
}

// frameAt is a frame's markdown position. goja places some instructions
// (a loop's jump back) at their function's start, which for the wrapper
// of a block is line 1, before the block: that is the block's start.
func frameAt(f goja.StackFrame, block plan.Pos) (plan.Pos, bool) {
	p := f.Position()
	if f.SrcName() == "" || p.Line == 0 {
		return plan.Pos{}, false
	}
	if f.SrcName() == block.File && p.Line < block.Line {
		return block, true
	}
	return plan.Pos{File: f.SrcName(), Line: p.Line, Col: p.Column}, true
}

func stackString(frames []goja.StackFrame, block plan.Pos) string {
	var b strings.Builder
	for _, f := range frames {
		p, ok := frameAt(f, block)
		if !ok {
			continue
		}
		name := f.FuncName()
		if name == "" {
			name = "<block>"
		}
		fmt.Fprintf(&b, "\tat %s (%s)\n", name, p)
	}
	return b.String()
}

// stackFrame matches "(file:line:col" in the stack text of an Error.
var stackFrame = regexp.MustCompile(`\(?([^\s()]+):(\d+):(\d+)`)

func stackPos(stack, file string) (plan.Pos, bool) {
	for _, m := range stackFrame.FindAllStringSubmatch(stack, -1) {
		if file != "" && m[1] != file {
			continue
		}
		line, _ := strconv.Atoi(m[2])
		col, _ := strconv.Atoi(m[3])
		return plan.Pos{File: m[1], Line: line, Col: col}, true
	}
	return plan.Pos{}, false
}

// toJS copies a Go JSON value into the runtime as native JS objects, so
// that skill code sees real arrays and objects and cannot alias Go maps.
func toJS(vm *goja.Runtime, v any) (goja.Value, error) {
	if v == nil {
		return goja.Null(), nil
	}
	// Through JSON first when v holds other Go types, so that JS sees
	// plain data; then built as native JS objects rather than parsed from
	// text, which dominated a loop iteration over a large state.
	if !isJSONData(v) {
		data, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("encoding a value for JS: %w", err)
		}
		if err := json.Unmarshal(data, &v); err != nil {
			return nil, fmt.Errorf("encoding a value for JS: %w", err)
		}
	}
	return build(vm, v), nil
}

// isJSONData reports whether v holds only what encoding/json decodes
// into: maps of string to any, slices of any, strings, float64, bools and
// nil. The items of a long array are not looked at: it reaches JS as a
// lazyArray, which converts each item as toJS does when JS reads it, so
// that a loop's state is not walked whole for every evaluation.
func isJSONData(v any) bool {
	switch v := v.(type) {
	case nil, string, float64, bool:
		return true
	case map[string]any:
		for _, x := range v {
			if !isJSONData(x) {
				return false
			}
		}
		return true
	case []any:
		if len(v) >= lazyItems {
			return true
		}
		for _, x := range v {
			if !isJSONData(x) {
				return false
			}
		}
		return true
	}
	return false
}

// build makes native JS values of JSON data, object keys in sorted order
// as JSON.parse of encoding/json's output had them.
func build(vm *goja.Runtime, v any) goja.Value {
	switch v := v.(type) {
	case map[string]any:
		o := newFields(vm)
		for _, k := range sortedKeys(v) {
			o.set(k, build(vm, v[k]))
		}
		return o.done()
	case []any:
		if len(v) >= lazyItems {
			return vm.NewDynamicArray(&lazyArray{vm: vm, items: v})
		}
		items := make([]any, len(v))
		for i, x := range v {
			items[i] = build(vm, x)
		}
		return vm.NewArray(items...)
	case nil:
		return goja.Null()
	}
	return vm.ToValue(v)
}

// fields is an object being built as JSON.parse builds one: each field
// an own data property, even "__proto__" or a name code made a setter of
// on Object.prototype (a selection runs before its iteration's action
// builds objects in the same runtime). The fields are set while the
// object has no prototype, which done gives it: o.Set finds no setter
// then (DefineDataProperty would do as well, at twice the allocations).
type fields struct{ o, proto *goja.Object }

func newFields(vm *goja.Runtime) fields {
	o := vm.NewObject()
	f := fields{o: o, proto: o.Prototype()}
	_ = o.SetPrototype(nil)
	return f
}

func (f fields) set(k string, v goja.Value) { _ = f.o.Set(k, v) }

// done is the object, fields set.
func (f fields) done() *goja.Object {
	_ = f.o.SetPrototype(f.proto)
	return f.o
}

// lazyItems is the length from which an array reaches JS as a lazyArray.
const lazyItems = 32

// lazyArray is a long Go array as JS sees it (a loop's completed_actions,
// which grows by one per action): an item is built when JS reads it, and
// the array is copied on the first write or the first item that is an
// object, so that handing the state to JS costs nothing per item JS does
// not read, and JS never changes the Go array. The state it comes from
// is replaced, never changed in place, so reading it later is safe.
type lazyArray struct {
	vm    *goja.Runtime
	items []any
	owned bool
}

func (a *lazyArray) Len() int { return len(a.items) }

func (a *lazyArray) Get(i int) goja.Value {
	if i < 0 || i >= len(a.items) {
		return nil
	}
	x := a.items[i]
	if v, ok := x.(goja.Value); ok {
		return v
	}
	v, err := toJS(a.vm, x)
	if err != nil {
		// What JSON cannot encode is nothing in JS, as in JSON.
		v = goja.Undefined()
	}
	switch x.(type) {
	case nil, string, float64, bool:
	default:
		// Built once, so that the same item is the same object.
		a.own()
		a.items[i] = v
	}
	return v
}

func (a *lazyArray) Set(i int, v goja.Value) bool {
	if i < 0 {
		return false
	}
	a.own()
	if i >= len(a.items) {
		a.SetLen(i + 1)
	}
	a.items[i] = v
	return true
}

func (a *lazyArray) SetLen(n int) bool {
	if n < 0 {
		return false
	}
	a.own()
	for len(a.items) < n {
		a.items = append(a.items, goja.Undefined())
	}
	a.items = a.items[:n]
	return true
}

// own copies the items before the first change.
func (a *lazyArray) own() {
	if !a.owned {
		a.items, a.owned = slices.Clone(a.items), true
	}
}

// fromJS copies a JS value out as a Go JSON value (maps, slices, float64,
// string, bool, nil); undefined and functions become nil. It is what
// JSON.stringify and JSON.parse make of v, by the runtime's own stringify
// whatever code did to the global JSON since, weighed by g first as code's
// JSON.stringify is: a result too big for the budget fails with
// ErrMemory. Skill code has run by then, so every toJSON and getter is
// read protected. Going through goja's MarshalJSON rather than the JSON
// object spares a runtime that never read JSON making it, and the text a
// JS string.
func fromJS(g *guard, v goja.Value) (any, error) {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return nil, nil
	}
	vm := g.vm
	obj, isObj := v.(*goja.Object)
	if !isObj {
		// MarshalJSON is an object's: a primitive goes as the one item
		// of an array.
		obj = vm.NewArray(v)
	}
	var data []byte
	var jsonErr error
	err := g.protect(func() {
		if jsonErr = g.fits("JSON.stringify", g.jsonSize(obj, nil)); jsonErr == nil {
			data, jsonErr = obj.MarshalJSON()
		}
	})
	if err == nil {
		err = jsonErr
	}
	if err != nil {
		return nil, plain(vm, err)
	}
	var out any
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, fmt.Errorf("decoding a JS value: %w", err)
	}
	if !isObj {
		out = out.([]any)[0]
	}
	return out, nil
}

// promiseType is what ExportType says of a promise.
var promiseType = reflect.TypeFor[*goja.Promise]()

// await settles the value of an async call: goja runs the job queue when
// the outermost call returns, so a promise that is still pending waits on
// something that will never come.
func await(vm *goja.Runtime, v goja.Value, pos plan.Pos) (goja.Value, error) {
	obj, isObj := v.(*goja.Object)
	if !isObj {
		return v, nil
	}
	// Export runs the getters of a plain object: only a promise, which
	// its type tells without running any, is exported.
	if obj.ExportType() != promiseType {
		return v, nil
	}
	var p *goja.Promise
	if err := protect(vm, func() { p, _ = obj.Export().(*goja.Promise) }); err != nil {
		return nil, &Error{Pos: pos, Msg: "reading the result: " + plain(vm, err).Error()}
	}
	if p == nil {
		return v, nil
	}
	switch p.State() {
	case goja.PromiseStateFulfilled:
		return p.Result(), nil
	case goja.PromiseStateRejected:
		return nil, rejection(vm, p.Result(), pos)
	}
	return nil, &Error{Pos: pos, Msg: "the code awaits a promise that never settles"}
}
