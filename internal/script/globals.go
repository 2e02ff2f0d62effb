package script

import "github.com/dop251/goja"

// globals is what a runtime's global object holds beyond goja's builtins,
// made when code first reads it. Making a goja function costs about a
// microsecond and 700 bytes, and a runtime made per loop iteration gave
// code some thirty of them (the guarded typed-array constructors and
// JSON, the host API) that a no-op action never reads: with their
// wrappers, half of what an iteration allocated.
//
// The global object code sees is a plain object; behind it, as its
// prototype, is a goja dynamic object (the Get and Has below), the
// layer. A name the plain object lacks is looked up in the layer: a
// guarded constructor or JSON, or once the host API is in (host), one of its
// functions, is made then and put on the plain object, where it stays
// (writable and deletable, as a global set by vm.Set is); any other name
// is goja's global object's (the builtins). What code declares or
// assigns at the top level lands on the plain object. The layer has no
// prototype: goja's global object, which holds the unguarded
// constructors, is out of the code's reach. (A delete of a name not read
// yet finds nothing to delete on the plain object: the name still reads
// after it.)
type globals struct {
	vm       *goja.Runtime
	front    *goja.Object
	builtins *goja.Object
	g        *guard
	// host is the evaluation whose host API code may read, nil before
	// it is installed (a loop's selection has none).
	host *evaluation
	// made are the names made already, or deleted from the layer: it
	// gives them no more (deleted, they stay deleted).
	made map[string]bool
}

// newGlobals puts the lazy layer between vm's global object and code.
func newGlobals(vm *goja.Runtime, g *guard) *globals {
	l := &globals{vm: vm, builtins: vm.GlobalObject(), g: g, front: vm.NewObject()}
	layer := vm.NewDynamicObject(l)
	_ = layer.SetPrototype(nil)
	_ = l.front.SetPrototype(layer)
	vm.SetGlobalObject(l.front)
	return l
}

// maker is how the value of name is made, nil when the layer has none.
func (l *globals) maker(name string) func() goja.Value {
	if l.made[name] {
		return nil
	}
	if size, ok := sizedConstructors[name]; ok {
		return func() goja.Value { return l.g.wrapConstructor(l.builtins, name, size) }
	}
	if name == "JSON" {
		return func() goja.Value { return l.g.guardJSON(l.builtins) }
	}
	if ev := l.host; ev != nil {
		if f := hostAPI[name]; f != nil {
			return func() goja.Value { return f(ev) }
		}
	}
	return nil
}

// Get implements goja.DynamicObject: it makes name's value, once, or
// reads the builtin.
func (l *globals) Get(name string) goja.Value {
	f := l.maker(name)
	if f == nil {
		if l.made[name] {
			// Made and deleted since, or a guarded constructor
			// replaced: never the builtin behind it.
			return nil
		}
		return l.builtins.Get(name)
	}
	if l.made == nil {
		l.made = map[string]bool{}
	}
	l.made[name] = true
	v := f()
	_ = l.front.DefineDataProperty(name, v, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	return v
}

// Has implements goja.DynamicObject.
func (l *globals) Has(name string) bool { return l.Get(name) != nil }

// Set implements goja.DynamicObject: an assignment to a global lands on
// the global object in front, never here.
func (l *globals) Set(string, goja.Value) bool { return false }

// Delete implements goja.DynamicObject.
func (l *globals) Delete(name string) bool {
	if l.made == nil {
		l.made = map[string]bool{}
	}
	l.made[name] = true
	return true
}

// Keys implements goja.DynamicObject: what the layer makes is not
// enumerable, as goja's builtins are not.
func (l *globals) Keys() []string { return nil }
