package script

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"time"

	"github.com/dop251/goja"

	"github.com/skillkit/skillkit/plan"
)

// Turn is one iteration of a loop in one JS runtime: the selection
// (selectNextAction or the preconditions) runs in it first, with what pure
// code sees and nothing more, then the action's Execution, once the host
// API is installed, reading the JavaScript values of the state the
// selection read. Making a runtime (its builtins, the allocation guards,
// the heap watchdog) and converting the state were most of a no-op
// iteration's cost when the selection and the action had one each.
//
// Each evaluation gets a state object of its own, so that what one sets
// at the top of the state is not seen by the next; the values under it
// are shared: a selection that changes state.ctx.x in place changes what
// its iteration's action reads there (never the run's state, which only
// an action's updates change). The orchestrator's declarations, declared
// for the selection, are in scope for the action too.
//
// A Turn is for one goroutine; Close it when the iteration is over.
type Turn struct {
	h  *Host
	ev *evaluation
	// ctx is the context the turn was made with, and base the context of
	// the runtime's deadline, made from ctx: it ends with ctx, after the
	// host's timeout or when the heap passes its budget, and interrupts
	// the runtime then (deadline).
	ctx, base context.Context
	// state is the state the turn started from, values its fields as JS
	// values, built once.
	state  map[string]any
	values map[string]goja.Value
	// keys are state's keys, sorted: the order of a state object's
	// fields (object).
	keys []string
	// declared are the blocks whose declarations the runtime holds.
	declared map[*plan.CodeBlock]bool
	// acted is set once an action ran: a retry gets a runtime of its own.
	acted bool
}

// Turn starts the runtime of one loop iteration over state. Its timeout
// (Options.Timeout) counts from now; each evaluation in it is bounded
// too, a selection by DefaultPureTimeout.
func (h *Host) Turn(ctx context.Context, state map[string]any) (*Turn, error) {
	p := h.turnRuntime()
	vm := p.vm
	base, stop := deadline(ctx, p, h.opts.Timeout)
	t := &Turn{h: h, ev: h.evaluation(base, p, stop), ctx: ctx, base: base, state: state,
		values: make(map[string]goja.Value, len(state)), keys: sortedKeys(state)}
	for k, v := range state {
		jv, err := toJS(vm, v)
		if err != nil {
			stop()
			return nil, err
		}
		t.values[k] = jv
	}
	inputs, err := toJS(vm, h.inputs)
	if err != nil {
		stop()
		return nil, err
	}
	_ = vm.Set("inputs", inputs)
	return t, nil
}

// turnRuntime is the runtime of a Turn: the one made behind the last
// Turn, and the next is made behind this one, on a goroutine of its own
// that ends once it is made (an iteration's own work is several times
// what making a runtime takes, so it is ready when the next Turn starts,
// and a second core makes it while this one runs the iteration). What is
// made then depends on neither the state nor the iteration: the next
// Turn's deadline, state and host API are its own, as ever. The first
// Turn of a Host makes its runtime itself; the last leaves one unused,
// which its goroutine has ended with.
func (h *Host) turnRuntime() *prepared {
	var p *prepared
	if h.spare != nil {
		p = <-h.spare
	} else {
		h.spare = make(chan *prepared, 1)
		p = prepare(h.opts.JSMemory)
	}
	go func(next chan<- *prepared, budget int64) { next <- prepare(budget) }(h.spare, h.opts.JSMemory)
	return p
}

// Close ends the turn's runtime and its deadline.
func (t *Turn) Close() { t.ev.stop() }

// SelectNextAction is the package's SelectNextAction over the turn's
// state, in the turn's runtime.
func (t *Turn) SelectNextAction(ctx context.Context, o *plan.Orchestrator) (id string, ok bool, err error) {
	decls, err := selectionBlocks(o)
	if err != nil {
		return "", false, err
	}
	p, done, err := t.pure(ctx, decls)
	if err != nil {
		return "", false, err
	}
	defer done()
	return p.selectNext(o)
}

// Preconditions is the package's Preconditions over the turn's state, in
// the turn's runtime, with decls in scope.
func (t *Turn) Preconditions(ctx context.Context, ps []*plan.Precondition, decls []*plan.CodeBlock) (bool, error) {
	if !anyCheckable(ps) {
		return true, nil
	}
	p, done, err := t.pure(ctx, decls)
	if err != nil {
		return false, err
	}
	defer done()
	return p.preconditions(ps)
}

// pure prepares an evaluation of pure code: a state object of its own,
// decls declared (once per turn), under DefaultPureTimeout.
func (t *Turn) pure(ctx context.Context, decls []*plan.CodeBlock) (*pureVM, func(), error) {
	if t.acted {
		return nil, nil, fmt.Errorf("selecting in a turn whose action ran")
	}
	st, err := t.object(t.state)
	if err != nil {
		return nil, nil, err
	}
	done := t.bound(ctx, DefaultPureTimeout)
	p := &pureVM{vm: t.ev.vm, g: t.ev.globals.g, state: st, stop: done}
	_ = t.ev.vm.Set("state", st)
	for _, b := range decls {
		if t.declared[b] {
			continue
		}
		if t.declared == nil {
			t.declared = map[*plan.CodeBlock]bool{}
		}
		t.declared[b] = true
		if err := p.declare(b); err != nil {
			done()
			return nil, nil, err
		}
	}
	return p, done, nil
}

// RunAction is Host.RunAction with a JS Execution run in the turn's
// runtime, over state: the state the action starts from, whose fields
// that are the turn's own keep their JS values. A second action in the
// same turn (a retry) gets a runtime of its own, as does every other
// kind of action.
func (t *Turn) RunAction(ctx context.Context, a *plan.Action, state map[string]any) (map[string]any, error) {
	if t.acted || a.Execution.Kind != plan.ExecJS || a.Execution.Code == nil {
		return t.h.RunAction(ctx, a, state)
	}
	t.acted = true
	st, err := t.object(state)
	if err != nil {
		return nil, err
	}
	// The action's time is the turn's: its deadline, Options.Timeout
	// from the turn's start, ends before one counted from now would, so
	// the deadline's context is the action's, for its host calls too.
	// Only a context of the caller's own that can end otherwise (an
	// action's timeout attribute) needs one more of its own.
	sctx := t.base
	if !t.owns(ctx) {
		c, end := context.WithCancelCause(t.base)
		defer end(nil)
		defer context.AfterFunc(ctx, func() { end(context.Cause(ctx)) })()
		sctx = c
	}
	defer t.bound(ctx, 0)()
	t.ev.ctx = sctx
	if err := t.ev.enter(st); err != nil {
		return nil, err
	}
	return t.h.runAction(sctx, a, state, t.ev)
}

// object is a new JS object of state's fields, each the turn's JS value
// of it when it is the same Go value as the turn's state holds.
func (t *Turn) object(state map[string]any) (goja.Value, error) {
	vm := t.ev.vm
	o := newFields(vm)
	// In sorted order, as toJS has them: the turn's, unless state's keys
	// are others (an action's state has the turn's, current_action set).
	keys := t.keys
	if !sameKeys(state, t.state) {
		keys = sortedKeys(state)
	}
	for _, k := range keys {
		v := state[k]
		jv, ok := t.values[k]
		if !ok || !same(v, t.state[k]) {
			var err error
			if jv, err = toJS(vm, v); err != nil {
				return nil, err
			}
		}
		o.set(k, jv)
	}
	return o.done(), nil
}

// sortedKeys are m's keys, sorted: in one slice, where slices.Sorted of
// maps.Keys allocated its iterator too.
func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// sameKeys reports whether a and b have the same keys.
func sameKeys(a, b map[string]any) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			return false
		}
	}
	return true
}

// same reports whether a and b are the same Go value: equal scalars, or
// the same map or slice (a state is replaced, never changed in place, so
// the same map holds the same fields).
func same(a, b any) bool {
	switch x := a.(type) {
	case nil, string, float64, bool, int, int64:
		return a == b
	case map[string]any:
		y, ok := b.(map[string]any)
		return ok && reflect.ValueOf(x).UnsafePointer() == reflect.ValueOf(y).UnsafePointer()
	case []any:
		y, ok := b.([]any)
		return ok && len(x) == len(y) && (len(x) == 0 || &x[0] == &y[0])
	}
	return false
}

// owns reports whether ctx ends only as the turn's own context does (the
// same context, one of its values, or one that never ends), so that the
// turn's deadline, which ends with it, is all that needs watching.
func (t *Turn) owns(ctx context.Context) bool {
	done := ctx.Done()
	return done == nil || done == t.ctx.Done()
}

// bound bounds one evaluation in the turn: the code that runs after
// timeout (none when zero), or when ctx ends, is interrupted; the turn's
// deadline interrupts it on its own (deadline). A timer and no contexts
// of its own: it was a tenth of what a loop iteration allocated. The
// returned function ends it; an interrupt that came after the code's last
// instruction is cleared then, so that it does not stop the next
// evaluation, unless the turn's deadline is over too.
func (t *Turn) bound(ctx context.Context, timeout time.Duration) func() {
	b := &bound{vm: t.ev.vm, running: true}
	var timer *time.Timer
	if timeout > 0 {
		timer = time.AfterFunc(timeout, func() { b.fire(timedOut(timeout)) })
	}
	unwatch := func() bool { return false }
	if !t.owns(ctx) {
		unwatch = context.AfterFunc(ctx, func() { b.fire(context.Cause(ctx)) })
	}
	return func() {
		b.mu.Lock()
		b.running = false
		b.mu.Unlock()
		if timer != nil {
			timer.Stop()
		}
		unwatch()
		if b.fired {
			b.vm.ClearInterrupt()
			if t.base.Err() != nil {
				// The deadline's own interrupt may have been the one
				// cleared: the turn is over all the same.
				b.vm.Interrupt(context.Cause(t.base))
			}
		}
	}
}

// bound is the state of one bound evaluation: the interrupt lands only
// while it runs.
type bound struct {
	vm             *goja.Runtime
	mu             sync.Mutex
	running, fired bool
}

func (b *bound) fire(cause error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.running {
		b.fired = true
		b.vm.Interrupt(cause)
	}
}
