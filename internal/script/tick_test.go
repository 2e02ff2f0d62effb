package script

import (
	"testing"

	"github.com/dop251/goja"
	"github.com/dop251/goja/parser"
)

// evalBoth runs src as goja runs it and as instrumented, with a tick that
// counts its calls, and returns both results and the count.
func evalBoth(t testing.TB, src string) (plain, ticked string, ticks int, err error) {
	run := func(inst bool) (string, error) {
		prog, err := parser.ParseFile(nil, "", src, 0)
		if err != nil {
			return "", err
		}
		if inst {
			instrument(prog)
		}
		p, err := goja.CompileAST(prog, false)
		if err != nil {
			return "", err
		}
		vm := goja.New()
		_ = vm.GlobalObject().DefineDataProperty(tickName, vm.ToValue(func(goja.FunctionCall) goja.Value {
			ticks++
			return goja.Undefined()
		}), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE)
		v, err := vm.RunProgram(p)
		if err != nil {
			return "", err
		}
		return v.String(), nil
	}
	if plain, err = run(false); err != nil {
		return "", "", 0, err
	}
	ticked, err = run(true)
	return plain, ticked, ticks, err
}

// TestInstrumentKeepsMeaning: the ticks change no result, and every loop
// iteration and function call has one.
func TestInstrumentKeepsMeaning(t *testing.T) {
	tests := []struct {
		name, src string
		ticks     int
	}{
		{"for", `let n = 0; for (let i = 0; i < 5; i++) n += i; n`, 5},
		{"labelled continue", `let n = 0; outer: for (const i of [1, 2, 3]) { for (const j in {a: 1, b: 2}) { if (i === 2) continue outer; n += i } } n`, 3 + 5},
		{"while and do", `let i = 0; while (i < 3) i++; do { i-- } while (i > 1); i`, 3 + 2},
		{"use strict kept", `(function () { "use strict"; try { undeclared = 1 } catch (e) { return e.name } return "sloppy" })()`, 1},
		{"arrow expression body", `[1, 2, 3].map(x => x * 2).join()`, 3},
		{"arrow returning an object", `(() => ({a: 1}))().a`, 1},
		{"generator", `function* g() { yield 1; yield 2 } [...g()].length`, 1},
		{"recursion", `function f(n) { return n ? f(n - 1) : "done" } f(3)`, 4},
		{"method and getter", `const o = { get x() { return 2 }, m() { return this.x } }; o.m()`, 2},
		{"hoisting", `h(); function h() { return 1 } typeof h`, 1},
		{"toString unchanged", `(function f(a) { return a }).toString()`, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plain, ticked, ticks, err := evalBoth(t, tt.src)
			if err != nil {
				t.Fatal(err)
			}
			if plain != ticked {
				t.Errorf("instrumented = %q, goja gives %q", ticked, plain)
			}
			if ticks != tt.ticks {
				t.Errorf("%d ticks, want %d", ticks, tt.ticks)
			}
		})
	}
}

// FuzzInstrument: instrumenting a program that goja compiles neither
// panics nor makes it uncompilable.
func FuzzInstrument(f *testing.F) {
	for _, s := range []string{
		`for (;;) break`, `label: while (1) { continue label }`, `async () => { for await (const x of y) {} }`,
		`class A { static { for (;;) break } m() { return 1 } }`, `"use strict"; function f() { "use strict"; return 1 }`,
		`x => x`, `({a = () => 1} = {}) => a`, `do ; while (0)`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		prog, err := parser.ParseFile(nil, "", src, 0)
		if err != nil {
			return
		}
		_, plainErr := goja.CompileAST(prog, false)
		prog, _ = parser.ParseFile(nil, "", src, 0)
		instrument(prog)
		_, tickedErr := goja.CompileAST(prog, false)
		if (plainErr == nil) != (tickedErr == nil) {
			t.Fatalf("goja compiles it: %v; instrumented: %v", plainErr, tickedErr)
		}
	})
}
