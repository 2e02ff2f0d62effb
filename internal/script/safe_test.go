package script

import (
	"errors"
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
