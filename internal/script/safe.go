package script

import (
	"errors"
	"fmt"

	"github.com/dop251/goja"
)

// Skill code can hand back values that fight their conversion: an object
// with no prototype (so no toString), a toString or a message getter that
// throws or never returns, a Proxy. goja converts a value by running that
// code, and outside a call of its own an exception or the deadline's
// interrupt unwinds through Go as a panic. So every conversion of a value
// skill code made (String, Export, Get, JSON.stringify) runs in protect,
// and an error about such a value is built by show, never by goja's
// Exception.Error, which converts the value unprotected.

// protect runs f as a call of vm: an exception f raises, the interrupt of
// the evaluation's deadline (still armed while the evaluation converts
// its results, so a conversion that never returns ends with the
// evaluation's time limit) and a Go panic inside goja all come back as an
// error. A runtime's guard keeps one protector for the conversions of
// every evaluation (guard.protect).
func protect(vm *goja.Runtime, f func()) error { return newProtector(vm).run(f) }

// protector is the goja function protect calls f through: made once per
// runtime where conversions are frequent, as making a function for each
// was a third of converting a small result.
type protector struct {
	vm   *goja.Runtime
	call goja.Callable
	// f is what the call runs, set for its duration (a protected f may
	// protect another).
	f func()
}

func newProtector(vm *goja.Runtime) *protector {
	p := &protector{vm: vm}
	p.call, _ = goja.AssertFunction(vm.ToValue(func(goja.FunctionCall) goja.Value {
		p.f()
		return goja.Undefined()
	}))
	return p
}

// run is protect of f.
func (p *protector) run(f func()) (err error) {
	prev := p.f
	p.f = f
	defer func() {
		p.f = prev
		// A panic that is neither an exception nor an interrupt is a fault
		// of the engine; the runtime is dropped after a failed evaluation,
		// so the run can still fail cleanly with the step's position.
		if r := recover(); r != nil {
			err = fmt.Errorf("the JavaScript engine failed: %v", r)
		}
	}()
	_, err = p.call(goja.Undefined())
	var ierr *goja.InterruptedError
	if errors.As(err, &ierr) {
		// An interrupt is spent once it fires, but the evaluation is still
		// out of time: whatever skill code a later conversion would run
		// must stop at once, not loop on unbounded.
		p.vm.Interrupt(ierr.Value())
	}
	return err
}

// show is v as an error message shows it: "Name: message" for an Error,
// String(v) for anything else. When that throws or runs out of time, the
// message says so, and names v without running any more skill code.
func show(vm *goja.Runtime, v goja.Value) string {
	var s string
	err := protect(vm, func() { s = text(v) })
	if err == nil {
		return s
	}
	return named(vm, v) + ", which cannot be shown: converting it to a string " + failure(vm, err)
}

// text is show without the protection.
func text(v goja.Value) string {
	obj, ok := v.(*goja.Object)
	if !ok {
		if v == nil {
			return "undefined"
		}
		return v.String()
	}
	name, msg := obj.Get("name"), obj.Get("message")
	if name == nil || msg == nil || goja.IsUndefined(msg) {
		return obj.String()
	}
	return name.String() + ": " + msg.String()
}

// named names v without running skill code: a primitive is itself, an
// object is "[object Class]", as Object.prototype.toString names it.
func named(vm *goja.Runtime, v goja.Value) string {
	obj, ok := v.(*goja.Object)
	if !ok {
		return text(v)
	}
	class := "Object"
	// A revoked Proxy panics even here.
	_ = protect(vm, func() { class = obj.ClassName() })
	return "[object " + class + "]"
}

// failure says how a protected conversion failed, running no skill code.
func failure(vm *goja.Runtime, err error) string {
	var ierr *goja.InterruptedError
	var exc *goja.Exception
	switch {
	case errors.As(err, &ierr):
		return "did not end: " + fmt.Sprint(ierr.Value())
	case errors.As(err, &exc):
		return "threw " + named(vm, exc.Value())
	}
	return "failed: " + err.Error()
}

// plain turns an error of a protected call into one that is safe to print
// and to keep: the cause of an interrupt (ErrTimeout, a context error),
// or the shown value of an exception.
func plain(vm *goja.Runtime, err error) error {
	var ierr *goja.InterruptedError
	if errors.As(err, &ierr) {
		if cause, ok := ierr.Value().(error); ok {
			return cause
		}
		return errors.New(fmt.Sprint(ierr.Value()))
	}
	var exc *goja.Exception
	if errors.As(err, &exc) {
		return errors.New(show(vm, exc.Value()))
	}
	return err
}

// global is the value of the global name of g's runtime, read
// protected: skill code may have made it a getter.
func (g *guard) global(name string) (goja.Value, error) {
	var v goja.Value
	if err := g.protect(func() { v = g.vm.Get(name) }); err != nil {
		return nil, plain(g.vm, err)
	}
	return v, nil
}
