package script

import (
	"fmt"
	"math"
	"reflect"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"

	"github.com/dop251/goja"
)

// The heap watchdog (deadline) interrupts a runtime between instructions,
// but some builtins allocate their whole result in one call, in Go, where
// no interrupt lands: new Array(2**28).fill(0) or a JSON.stringify of a
// shared tree would grow the process to many times the budget before the
// next instruction. Those builtins are wrapped to weigh what they are
// about to allocate first, and stop the evaluation as the watchdog would
// when it does not fit.

// slotBytes is what one element of a JS array costs goja (a Value in a
// slice, and the value it points to).
const slotBytes = 24

// liveHeap is the live heap as the last collection found it.
func liveHeap() int64 { return heapMetric("/gc/heap/live:bytes") }

// allocatedHeap is the heap's objects as allocated now, dead ones not yet
// swept included.
func allocatedHeap() int64 { return heapMetric("/memory/classes/heap/objects:bytes") }

func heapMetric(name string) int64 {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}

// guardAllocations wraps the builtins of vm that allocate in one call so
// that each checks its size against what is left of budget: the methods
// of the prototypes at once, JSON and the sizedConstructors when code
// first reads one (globals).
func guardAllocations(vm *goja.Runtime, budget int64) *globals {
	g := &guard{vm: vm, budget: budget, protector: newProtector(vm)}
	array := vm.Get("Array").ToObject(vm)
	arrayProto := array.Get("prototype").ToObject(vm)
	g.wrap(arrayProto, "fill", func(c goja.FunctionCall) int64 {
		return g.length(c.This) * slotBytes
	})
	g.wrap(arrayProto, "join", func(c goja.FunctionCall) int64 {
		sep := int64(1)
		if a := c.Argument(0); !goja.IsUndefined(a) {
			sep = int64(len(a.String()))
		}
		n := g.length(c.This)
		return g.stringsLength(c.This, n, mul(n, sep))
	})
	g.wrap(array, "from", func(c goja.FunctionCall) int64 {
		return g.length(c.Argument(0)) * slotBytes
	})
	// String.prototype as a string primitive reaches it: through the
	// String constructor, goja would make that and its statics too, for
	// nothing to guard.
	str := vm.ToValue("").ToObject(vm).Prototype()
	g.wrap(str, "repeat", func(c goja.FunctionCall) int64 {
		return mul(int64(len(c.This.String())), c.Argument(0).ToInteger())
	})
	for _, pad := range []string{"padStart", "padEnd"} {
		g.wrap(str, pad, func(c goja.FunctionCall) int64 { return 2 * c.Argument(0).ToInteger() })
	}
	for _, name := range []string{"replace", "replaceAll"} {
		g.wrapReplace(str, name)
	}
	return newGlobals(vm, g)
}

// guardJSON is builtins' JSON with stringify weighed, made when code
// first reads JSON (globals): nothing else reaches the object.
func (g *guard) guardJSON(builtins *goja.Object) goja.Value {
	obj, ok := builtins.Get("JSON").(*goja.Object)
	if !ok {
		return goja.Undefined()
	}
	g.wrap(obj, "stringify", func(c goja.FunctionCall) int64 {
		return g.jsonSize(c.Argument(0), c.Argument(2))
	})
	return obj
}

// sizedConstructors are the global constructors that allocate their
// length times an element size in one call.
var sizedConstructors = map[string]int64{
	"ArrayBuffer": 1, "Int8Array": 1, "Uint8Array": 1, "Uint8ClampedArray": 1, "Int16Array": 2, "Uint16Array": 2,
	"Int32Array": 4, "Uint32Array": 4, "Float32Array": 4, "Float64Array": 8,
}

var (
	stringType = reflect.TypeFor[string]()
	bufferType = reflect.TypeFor[goja.ArrayBuffer]()
)

type guard struct {
	vm        *goja.Runtime
	budget    int64
	protector *protector
	// unweighed is what the calls let through unweighed since the heap
	// was last weighed (fits).
	unweighed int64
}

// protect is protect in g's runtime.
func (g *guard) protect(f func()) error { return g.protector.run(f) }

// check stops the evaluation when an allocation of n bytes would take the
// heap past the budget.
func (g *guard) check(what string, n int64) bool {
	if err := g.fits(what, n); err != nil {
		g.vm.Interrupt(err)
		return false
	}
	return true
}

// fits is the error of an allocation of n bytes by what that would take
// the heap past the budget, nil when it fits. One of a thousandth of the
// budget or less is not weighed until such calls add up to that much:
// reading the heap costs more than such a call (a join of a few items, an
// action's result). Neither the ticks nor the watchdog can weigh for them:
// a builtin's loop calling a guarded builtin (a map of joins) runs no
// tick of skill code, and no interrupt lands until it returns.
func (g *guard) fits(what string, n int64) error {
	small := g.budget >> 10
	if n <= small {
		if g.unweighed += n; g.unweighed <= small {
			return nil
		}
	}
	if n <= g.budget-liveHeap() {
		g.unweighed = 0
		return nil
	}
	// The live figure is the last collection's, which may count what an
	// evaluation stopped before this one left: collect, and judge again.
	runtime.GC()
	if n <= g.budget-liveHeap() {
		g.unweighed = 0
		return nil
	}
	// Refused, the calls after this one are weighed each, as they would
	// be if they were not small: a builtin's loop goes on calling until
	// it returns and the interrupt lands.
	return fmt.Errorf("%w: %s would allocate about %d MiB, past the budget of %d MiB (--js-memory)", ErrMemory, what, n>>20, g.budget>>20)
}

func (g *guard) wrap(obj *goja.Object, name string, cost func(goja.FunctionCall) int64) {
	orig, ok := goja.AssertFunction(obj.Get(name))
	if !ok {
		return
	}
	fn := func(c goja.FunctionCall) goja.Value {
		if !g.check(name, cost(c)) {
			return goja.Undefined()
		}
		v, err := orig(c.This, c.Arguments...)
		if err != nil {
			panic(err)
		}
		return v
	}
	_ = obj.DefineDataProperty(name, g.vm.ToValue(fn), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
}

// wrapConstructor is builtins' constructor name, of element size size,
// wrapped to weigh its length argument before it allocates. The wrapper
// stands in for it everywhere code can reach it, and the original is
// reachable from none: its prototype object is the original's, whose
// constructor it becomes (so instanceof holds and new x.constructor(n)
// is weighed too); it inherits what the original inherits (%TypedArray%'s
// of and species, which construct through it) and has the original's own
// statics (BYTES_PER_ELEMENT, isView); from is weighed itself.
func (g *guard) wrapConstructor(builtins *goja.Object, name string, size int64) goja.Value {
	orig, ok := builtins.Get(name).(*goja.Object)
	if !ok {
		return goja.Undefined()
	}
	proto, _ := orig.Get("prototype").(*goja.Object)
	wrapped := g.vm.ToValue(func(c goja.ConstructorCall) *goja.Object {
		n := int64(0)
		a := c.Argument(0)
		if obj, ok := a.(*goja.Object); ok {
			if obj.ExportType() != bufferType {
				n = g.length(obj)
			}
		} else if !goja.IsUndefined(a) && !goja.IsNull(a) {
			n = a.ToInteger()
		}
		if !g.check("new "+name, mul(n, size)) {
			return g.vm.NewObject()
		}
		obj, err := g.vm.New(orig, c.Arguments...)
		if err != nil {
			panic(err)
		}
		// A subclass's instance (class B extends Uint8Array) gets the
		// subclass's prototype, as new.target gives it to c.This.
		if p := c.This.Prototype(); p != nil && p != proto {
			_ = obj.SetPrototype(p)
		}
		return obj
	}).(*goja.Object)
	_ = wrapped.DefineDataProperty("name", g.vm.ToValue(name), goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	_ = wrapped.SetPrototype(orig.Prototype())
	for _, k := range orig.GetOwnPropertyNames() {
		if k != "length" && k != "name" && k != "prototype" {
			_ = wrapped.DefineDataProperty(k, orig.Get(k), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE)
		}
	}
	// from(arrayLike) fails with a TypeError of its own when the guard
	// stops its construction, which the code could catch before the
	// interrupt lands: it is weighed first, as Array.from is.
	g.wrap(wrapped, "from", func(c goja.FunctionCall) int64 {
		return mul(g.length(c.Argument(0)), size)
	})
	if proto != nil {
		_ = wrapped.Set("prototype", proto)
		_ = proto.DefineDataProperty("constructor", wrapped, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	}
	return wrapped
}

// wrapReplace weighs a replace with a string replacement by counting the
// matches first, without building the result; a function replacement
// runs JS per match, where the watchdog's interrupt lands.
func (g *guard) wrapReplace(str *goja.Object, name string) {
	orig, ok := goja.AssertFunction(str.Get(name))
	if !ok {
		return
	}
	fn := func(c goja.FunctionCall) goja.Value {
		repl := c.Argument(1)
		if _, isFunc := goja.AssertFunction(repl); !isFunc && !goja.IsUndefined(repl) {
			text, r := c.This.String(), repl.String()
			s := int64(len(text))
			if mul(s+1, int64(len(r))) > g.budget/4 {
				n, longest := g.matches(c.Argument(0), text, name == "replaceAll")
				// $& and $1 repeat a match, $` and $' the text around it.
				groups := int64(strings.Count(r, "$"))
				around := int64(strings.Count(r, "$`") + strings.Count(r, "$'"))
				cost := s + mul(n, int64(len(r))+mul(groups, longest)+mul(around, s))
				if !g.check(name, cost) {
					return goja.Undefined()
				}
			}
		}
		v, err := orig(c.This, c.Arguments...)
		if err != nil {
			panic(err)
		}
		return v
	}
	_ = str.DefineDataProperty(name, g.vm.ToValue(fn), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
}

// matches counts what a replace of pattern in text replaces, and the
// longest match: a global RegExp is run match by match (each match is
// garbage at once), a string or a RegExp without g replaces once, or, in
// replaceAll, every occurrence of the string.
func (g *guard) matches(pattern goja.Value, text string, all bool) (n, longest int64) {
	re, ok := pattern.(*goja.Object)
	if !ok || re.ClassName() != "RegExp" {
		p := pattern.String()
		if !all {
			return 1, int64(len(p))
		}
		return int64(strings.Count(text, p)), int64(len(p))
	}
	if !strings.Contains(re.Get("flags").String(), "g") {
		return 1, int64(len(text))
	}
	exec, ok := goja.AssertFunction(re.Get("exec"))
	if !ok {
		return 1, int64(len(text))
	}
	last := re.Get("lastIndex")
	defer func() { _ = re.Set("lastIndex", last) }()
	_ = re.Set("lastIndex", 0)
	subject := g.vm.ToValue(text)
	for {
		m, err := exec(re, subject)
		if err != nil || m == nil || goja.IsNull(m) || goja.IsUndefined(m) {
			return n, longest
		}
		n++
		l := int64(len(m.ToObject(g.vm).Get("0").String()))
		longest = max(longest, l)
		if l == 0 {
			_ = re.Set("lastIndex", re.Get("lastIndex").ToInteger()+1)
		}
		if n > int64(len(text))+1 {
			return n, longest
		}
	}
}

// length is an array-like's length, 0 for anything else.
func (g *guard) length(v goja.Value) int64 {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return 0
	}
	// Export would copy an array whole: types are looked at instead.
	obj, ok := v.(*goja.Object)
	if !ok {
		if v.ExportType() == stringType {
			return int64(len(v.String()))
		}
		return 0
	}
	l := obj.Get("length")
	if l == nil {
		return 0
	}
	return max(0, l.ToInteger())
}

// stringsLength is total, what an array's join allocates besides its
// items, plus the length of the items of obj (of length n) that are
// strings: a join of a few long strings allocates them all, which the
// separators alone did not weigh. A long array is weighed by its first
// items, as jsonSize weighs it; counting stops past the budget.
func (g *guard) stringsLength(v goja.Value, n, total int64) int64 {
	obj, ok := v.(*goja.Object)
	if !ok || total > g.budget {
		return total
	}
	seen := min(n, sampleElements)
	var items int64
	for i := int64(0); i < seen && items <= g.budget; i++ {
		if s, ok := obj.Get(strconv.FormatInt(i, 10)).(goja.String); ok {
			items += int64(s.Length())
		}
	}
	if seen > 0 && seen < n {
		items = mul(items/seen+1, n)
	}
	if items > math.MaxInt64-total {
		return math.MaxInt64
	}
	return total + items
}

// jsonSize estimates the length of JSON.stringify(v, _, space), each
// object weighed once however often it is shared (a tree of shared nodes
// is what doubles the text per level), and stops counting past the budget.
func (g *guard) jsonSize(v goja.Value, space goja.Value) int64 {
	indent := int64(0)
	if space != nil && !goja.IsUndefined(space) {
		if space.ExportType() == stringType {
			indent = int64(min(len(space.String()), 10))
		} else {
			indent = min(max(space.ToInteger(), 0), 10)
		}
	}
	memo := map[*goja.Object]int64{}
	var size func(v goja.Value, depth int64) int64
	size = func(v goja.Value, depth int64) int64 {
		obj, ok := v.(*goja.Object)
		if !ok {
			if v == nil {
				return 4
			}
			return int64(len(v.String())) + 2
		}
		if n, ok := memo[obj]; ok {
			return n
		}
		memo[obj] = 0 // a cycle: JSON.stringify throws on it
		pad := 1 + indent*(depth+1)
		var total int64 = 2
		if l := obj.Get("length"); l != nil && obj.ClassName() == "Array" {
			// Every element takes two characters at least ("1,"); a long
			// array is weighed by its first elements.
			n := l.ToInteger()
			if mul(n, 2) > g.budget {
				return mul(n, 2)
			}
			seen := min(n, sampleElements)
			for i := int64(0); i < seen && total <= g.budget; i++ {
				total += size(obj.Get(strconv.FormatInt(i, 10)), depth+1) + pad
			}
			if seen > 0 && seen < n {
				total = mul(total/seen+1, n)
			}
		} else {
			for _, k := range obj.Keys() {
				if total > g.budget {
					break
				}
				total += size(obj.Get(k), depth+1) + int64(len(k)) + 3 + pad
			}
		}
		memo[obj] = total
		return total
	}
	return size(v, 0)
}

// sampleElements is how many elements of an array jsonSize weighs one
// by one.
const sampleElements = 1 << 16

// mul multiplies sizes, saturating rather than overflowing.
func mul(a, b int64) int64 {
	if a <= 0 || b <= 0 {
		return 0
	}
	if a > math.MaxInt64/b {
		return math.MaxInt64
	}
	return a * b
}
