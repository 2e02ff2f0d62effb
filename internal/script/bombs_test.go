package script

import (
	"context"
	"errors"
	"runtime"
	"runtime/metrics"
	"sync/atomic"
	"testing"
	"time"

	"github.com/skillkit/skillkit/plan"
)

// bombs allocate in ways that bypassed the heap watchdog (F5, N13): in one
// builtin call, where no interrupt lands, or faster than it looked.
var bombs = map[string]string{
	"fill":            `new Array(2**28).fill(0)`,
	"from":            `Array.from({length: 2**28})`,
	"join":            `new Array(2**30).join("x")`,
	"join of strings": `new Array(2000).fill("x".repeat(60000)).join()`,
	"typed array":     `new Float64Array(2**28)`,
	"typed from like": `new Uint8Array({length: 2**31})`,
	"array buffer":    `new ArrayBuffer(2**31)`,
	"typed static":    `Float64Array.from({length: 2**28})`,
	"constructor":     `new (new Uint8Array(0).constructor)(2**31)`,
	"subclass":        `class B extends Uint8Array {}; new B(2**31)`,
	"repeat":          `"x".repeat(2**30)`,
	"pad":             `"x".padStart(2**30)`,
	"stringify":       `let a = [1, 2, 3, 4, 5, 6, 7, 8]; for (let i = 0; i < 40; i++) a = [a, a]; JSON.stringify(a)`,
	"result":          `let a = [1, 2, 3, 4, 5, 6, 7, 8]; for (let i = 0; i < 40; i++) a = [a, a]; return {stateUpdates: {a}}`,
	"replace":         `"x".repeat(1 << 20).replace(/x/g, "y".repeat(1000))`,
	"replaceAll":      `"x".repeat(1 << 20).replaceAll("x", "$&".repeat(500))`,
	"doubling":        `let s = "x"; for (;;) s += s`,
	"recursion":       `function f(s) { return f(s + s) } f("x")`,
	"reduce":          `new Array(64).fill(0).reduce((s) => s + s, "x")`,
	"declared":        `const grow = (s) => { while (true) s = s.concat(s) }; grow("x")`,
	"push":            `const keep = []; for (;;) keep.push(new Array(1000).fill(1))`,
	// Many guarded calls, each too small to be weighed on its own, from
	// a builtin's loop (no tick of skill code runs between them, and no
	// interrupt lands until the builtin returns).
	"small calls": `const a = new Array(10000); new Array(4000).fill(a).map(Function.prototype.call, Array.prototype.join)`,
}

// peakHeap runs f and returns how far the live heap grew above where it
// was when f started: the figure each collection (which a large allocation
// brings on) leaves, sampled every 100µs, and once more after f.
func peakHeap(f func()) uint64 {
	runtime.GC()
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	read := func() uint64 { metrics.Read(s); return s[0].Value.Uint64() }
	base := read()
	var peak atomic.Uint64
	done := make(chan struct{})
	go func() {
		for {
			if n := read(); n > peak.Load() {
				peak.Store(n)
			}
			select {
			case <-done:
				return
			case <-time.After(100 * time.Microsecond):
			}
		}
	}()
	f()
	close(done)
	if p := read(); p > peak.Load() {
		peak.Store(p)
	}
	return peak.Load() - min(base, peak.Load())
}

// TestMemoryBombsStopWithinBudget: each bomb stops with ErrMemory, the
// heap growing at most 1.5× the budget, in a step and in a state
// expression (what skillkit test's stateTrue runs).
func TestMemoryBombsStopWithinBudget(t *testing.T) {
	const budget, slack = 64 << 20, 4 << 20
	f := newFixture(t)
	h := f.host(t, func(o *Options) { o.JSMemory = budget; o.Timeout = 20 * time.Second })
	for name, src := range bombs {
		t.Run(name, func(t *testing.T) {
			var err error
			grew := peakHeap(func() { _, err = f.step(t, h, src) })
			if !errors.Is(err, ErrMemory) {
				t.Errorf("err = %v, want ErrMemory", err)
			}
			t.Logf("heap grew %d MiB: %v", grew>>20, err)
			// A doubling allocates in one instruction, which no builtin
			// weighs first: the tick at the head of each loop iteration
			// and function call (tick.go) stops it, on the evaluation's
			// own goroutine, so however starved the CPU (CI's race pass
			// under load), it stops at the first doubling past the budget.
			const limit = uint64(budget*3/2 + slack)
			if grew > limit {
				t.Errorf("the heap grew %d MiB, over 1.5× the budget of %d MiB", grew>>20, budget>>20)
			}
		})
	}
	expr := "(() => { " + bombs["fill"] + "; return true })()"
	var err error
	grew := peakHeap(func() {
		_, err = EvalExpr(context.Background(), &plan.Expr{Text: expr, JS: expr}, PureEnv{Memory: budget, Timeout: 20 * time.Second})
	})
	if !errors.Is(err, ErrMemory) || grew > budget*3/2+slack {
		t.Errorf("a state expression: heap grew %d MiB: %v", grew>>20, err)
	}
}

// TestGuardedConstructorsBehave: the guarded typed-array constructors
// stand in for goja's own everywhere a program can tell (the wrappers
// once lost instanceof, the statics and the name), and the global object
// in front of goja's still takes assignments and finds every builtin and
// the host API.
func TestGuardedConstructorsBehave(t *testing.T) {
	f := newFixture(t)
	h := f.host(t, nil)
	for _, c := range []struct{ setup, expr, want string }{
		{"", `new Int8Array(2) instanceof Int8Array`, "true"},
		{"", `Object.getPrototypeOf(new Int8Array(2)) === Int8Array.prototype`, "true"},
		{"", `new ArrayBuffer(8) instanceof ArrayBuffer`, "true"},
		{"", `new Uint8Array(0).constructor === Uint8Array`, "true"},
		{"", `Int8Array.name + " " + Int8Array.BYTES_PER_ELEMENT`, "Int8Array 1"},
		{"", `Uint8Array.from([1, 2, 3]).join()`, "1,2,3"},
		{"", `Uint8Array.of(1, 2).map(x => x * 2).join()`, "2,4"},
		{"", `new Uint16Array([1, 2, 3]).slice(1).constructor === Uint16Array`, "true"},
		{"class B extends Uint8Array {}; const b = new B(3);", `[b instanceof B, b instanceof Uint8Array, b.length].join()`, "true,true,3"},
		{"", `new Float64Array(new ArrayBuffer(16)).length`, "2"},
		{"Float32Array = 7;", `Float32Array`, "7"},
		// The unguarded constructors are out of reach: behind the global
		// object, and behind the guarded ones.
		{"", `Object.getPrototypeOf(Object.getPrototypeOf(globalThis)) === null`, "true"},
		{"", `Function("return this")() === globalThis && (function () { return this })() === globalThis`, "true"},
		{"", `Function("return this")().ArrayBuffer === ArrayBuffer && new Function("return Uint8Array")() === Uint8Array`, "true"},
		{"", `Object.getPrototypeOf(Int8Array) === Object.getPrototypeOf(Uint8Array)`, "true"},
		{"", `(() => { try { new (Object.getPrototypeOf(Int8Array))(8); return "constructed" } catch (e) { return "refused" } })()`, "refused"},
		{"", `typeof ArrayBuffer.isView + Float64Array.BYTES_PER_ELEMENT`, "function8"},
		{"globalThis.mine = 1;", `mine + typeof JSON.stringify + typeof globalThis.Math`, "1functionobject"},
		// The host API is made as the guards are, on first read.
		{"", `[typeof Read, typeof console.log, typeof MCP.call, "Bash" in globalThis].join()`, "function,function,function,true"},
		{"const b = Bash; const gone = delete globalThis.Bash;", `gone + typeof Bash + Object.getOwnPropertyNames(globalThis).includes("Bash")`, "trueundefinedfalse"},
		{"const r = Read;", `r === Read && r === globalThis.Read`, "true"},
		// The guarded methods are not enumerable, as the builtins are not:
		// they were, and a for-in over an array listed them.
		{"const keys = []; for (const k in [7]) keys.push(k); for (const k in 'a') keys.push(k);", `keys.join()`, "0,0"},
	} {
		st, err := f.step(t, h, c.setup+" return { stateUpdates: { out: String("+c.expr+") } }")
		if err != nil {
			t.Errorf("%s %s: %v", c.setup, c.expr, err)
			continue
		}
		if st["out"] != c.want {
			t.Errorf("%s %s = %v, want %s", c.setup, c.expr, st["out"], c.want)
		}
	}
}
