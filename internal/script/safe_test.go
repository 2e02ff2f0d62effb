package script

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/dop251/goja"
)

// A Go panic inside a conversion (a fault of the engine, not of skill
// code) comes back as an error too.
func TestProtectGoPanic(t *testing.T) {
	vm := goja.New()
	err := protect(vm, func() { panic("index out of range") })
	if err == nil || err.Error() != "the JavaScript engine failed: index out of range" {
		t.Fatalf("protect = %v", err)
	}
}

// Once the evaluation's deadline has interrupted one conversion, every
// later one that runs skill code stops at once: the interrupt fires only
// once, and a second getter that never returns must not hang the run.
func TestProtectStaysInterrupted(t *testing.T) {
	vm := goja.New()
	v, err := vm.RunString("({get a() { for (;;) {} }, get b() { for (;;) {} }, toString() { for (;;) {} }})")
	if err != nil {
		t.Fatal(err)
	}
	obj := v.(*goja.Object)
	time.AfterFunc(100*time.Millisecond, func() { vm.Interrupt(ErrTimeout) })
	for _, key := range []string{"a", "b"} {
		done := make(chan error, 1)
		go func() { done <- protect(vm, func() { obj.Get(key) }) }()
		select {
		case err := <-done:
			if !errors.Is(plain(vm, err), ErrTimeout) {
				t.Fatalf("getter %s: %v, want the timeout", key, err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("getter %s still runs after the deadline", key)
		}
	}
	if got := show(vm, obj); !strings.HasPrefix(got, "[object Object], which cannot be shown: converting it to a string did not end: evaluation timed out") {
		t.Errorf("show = %q", got)
	}
}

// fromJS makes of a value what JSON.stringify and JSON.parse make of it,
// by the runtime's own stringify: one the code put in its place is not
// used, and toJSON, getters, holes, NaN, undefined and primitives at the
// top come out as stringify has them.
func TestFromJSIsStringify(t *testing.T) {
	values := []string{
		`({a: 1, b: "x", c: [1, , 3], d: undefined, e: () => 1, f: NaN, g: -0, h: 1e21, i: null})`,
		`({toJSON(k) { return {key: k, n: 2} }})`,
		`({get g() { return [new Date(0)] }, nested: {toJSON() { return undefined }}})`,
		`[undefined, function () {}, Symbol("s"), Infinity, "\u00e9\ud800"]`,
		`"a \u00e9 \ud83d\ude00 \ud800 string"`, `42.5`, `true`, `undefined`, `() => 1`,
		`Object.assign(Object.create({inherited: 1}), {own: 2})`,
		`new Map([[1, 2]])`, `[new Number(3), new String("s"), new Boolean(false)]`,
	}
	for _, src := range values {
		p := prepare(0)
		vm := p.vm
		// The runtime's own stringify, read before the code below
		// replaces the global one.
		stringify, _ := goja.AssertFunction(vm.Get("JSON").ToObject(vm).Get("stringify"))
		if _, err := vm.RunString(`JSON.stringify = () => '"replaced"'`); err != nil {
			t.Fatal(err)
		}
		v, err := vm.RunString("(" + src + ")")
		if err != nil {
			t.Fatal(err)
		}
		var want any
		if s, err := stringify(goja.Undefined(), v); err != nil {
			t.Fatal(err)
		} else if !goja.IsUndefined(s) {
			if err := json.Unmarshal([]byte(s.String()), &want); err != nil {
				t.Fatal(err)
			}
		}
		got, err := fromJS(p.gl.g, v)
		if err != nil {
			t.Errorf("%s: %v", src, err)
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: fromJS = %#v, want %#v", src, got, want)
		}
	}
}
