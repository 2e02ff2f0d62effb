package script

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/dop251/goja"

	"github.com/skillkit/skillkit/jsstatic"
	"github.com/skillkit/skillkit/plan"
)

// Scope is what the native JS steps of one phase share (DESIGN §1.5): the
// top-level bindings of a step are visible to the later steps of its
// phase. Values holds the variables' values that JSON can hold (a resume
// restores them from the run's record); Decls the source of the function
// and class declarations, declared again in each later step.
type Scope struct {
	Values map[string]any
	Decls  []string
}

// RestoreScope is the scope of a phase resumed after the steps whose
// blocks are done ran: the values its record kept, and the declarations of
// those blocks, declared again.
func RestoreScope(values map[string]any, done []*plan.CodeBlock) *Scope {
	s := &Scope{Values: values}
	for _, b := range done {
		s.Decls = append(s.Decls, bindings(b).Decls...)
	}
	return s
}

// captureName is the global through which a step's body hands its
// bindings back: a closure made at the top of the body, so that it sees
// the body's own const and let.
const captureName = "__skillkit_scope"

// captureHead is the code that makes that closure, at the top of the
// body: each name read in a try, as a binding may not be initialised yet
// (a return before it).
func captureHead(names []string) string {
	if len(names) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("globalThis." + captureName + " = () => { const o = {};")
	for _, n := range names {
		b.WriteString(" try { o[" + strconv.Quote(n) + "] = " + n + "; } catch (e) {}")
	}
	b.WriteString(" return o; };")
	return b.String()
}

// bindings are the top-level bindings of a block, nil when it does not
// parse (it then fails to compile anyway).
func bindings(b *plan.CodeBlock) jsstatic.Bindings {
	p, err := jsstatic.Parse(b.Text)
	if err != nil {
		return jsstatic.Bindings{}
	}
	return p.TopLevelBindings()
}

// enter gives the runtime the scope's bindings: its values as globals and
// its declarations declared again. A declaration that no longer compiles
// or runs is left out: the step that reads it fails naming it.
func (s *Scope) enter(vm *goja.Runtime) {
	if s == nil {
		return
	}
	for name, v := range s.Values {
		if jv, err := toJS(vm, v); err == nil {
			_ = vm.Set(name, jv)
		}
	}
	for _, d := range s.Decls {
		// Compiled as every other code is, so that its loops weigh the
		// heap too.
		if prog, err := compile(kindDecl, plan.Pos{}, d); err == nil {
			_ = protect(vm, func() { _, _ = vm.RunProgram(prog) })
		}
	}
}

// keep adds the bindings of block b, which just ran in g's runtime, to the
// scope: every value JSON can hold, and every declaration's source.
func (s *Scope) keep(g *guard, b jsstatic.Bindings) {
	if s == nil {
		return
	}
	s.Decls = append(s.Decls, b.Decls...)
	if len(b.Values) == 0 {
		return
	}
	vm := g.vm
	fn, ok := goja.AssertFunction(vm.Get(captureName))
	if !ok {
		return
	}
	var got goja.Value
	if err := g.protect(func() { got, _ = fn(goja.Undefined()) }); err != nil || got == nil {
		return
	}
	v, err := fromJS(g, got)
	m, _ := v.(map[string]any)
	if err != nil || m == nil {
		return
	}
	if s.Values == nil {
		s.Values = map[string]any{}
	}
	for _, name := range b.Values {
		x, ok := m[name]
		if !ok {
			continue
		}
		// Only what survives JSON is kept: it is what a resume restores.
		if _, err := json.Marshal(x); err == nil {
			s.Values[name] = x
		}
	}
}
