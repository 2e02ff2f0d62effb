package jsstatic

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/dop251/goja"
)

func TestFreeNames(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string // name, with "()" when called, and line:col
	}{
		{"pseudo-code input", "const input = userInput.trim()", []string{"userInput 1:15"}},
		{"undefined helper", "const flags = parseFlags(input)\nreturn flags", []string{"parseFlags() 1:15", "input 1:26"}},
		{"declared in a nested scope counts", "function f(a, {b, c: [d]}, ...e) { return a + b + d + e.length }\ntry { f() } catch ({message}) { message }", nil},
		{"properties and keys are no reads", "const o = {key: 1, [k]: 2, m() {}}\no.x.y\nclass C { field = 1; method() {} }", []string{"k 1:21"}},
		{"shorthand property reads", "const o = {flags}", []string{"flags 1:12"}},
		{"typeof is no read", "if (typeof window !== 'undefined') {}", nil},
		{"labels are no reads", "outer: for (const x of [1]) { for (;;) { break outer } }", nil},
		{"loop and catch bindings", "for (let i = 0; i < 2; i++) {}\nfor (const [k, v] of Object.entries({})) { k + v }\nfor (var q in {}) q", []string{"Object 2:22"}},
		{"default values read", "const {a = fallback} = {}", []string{"fallback 1:12"}},
		{"called and read", "helper; helper()", []string{"helper() 1:1"}},
		{"host names are free here", "await Read('x'); console.log(state)", []string{"Read() 1:7", "console 1:18", "state 1:30"}},
		{"arrow params and class names", "const f = (x, y = x) => x + y\nconst K = class Named { m() { return Named } }", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Parse(tc.src)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range p.FreeNames() {
				call := ""
				if r.Called {
					call = "()"
				}
				got = append(got, fmt.Sprintf("%s%s %d:%d", r.Name, call, r.Line, r.Col))
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("FreeNames = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestTopLevelNames(t *testing.T) {
	p, err := Parse("const a = 1, {b, c: [d]} = x\nlet e\nvar f\nfunction g() { const inner = 1 }\nclass H {}\nif (a) { const notTop = 2 }")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := p.TopLevelNames(), []string{"a", "b", "d", "e", "f", "g", "H"}; !slices.Equal(got, want) {
		t.Errorf("TopLevelNames = %q, want %q", got, want)
	}
}

// TestBuiltinsAreGojas keeps Builtins equal to the globals goja defines.
func TestBuiltinsAreGojas(t *testing.T) {
	got := goja.New().GlobalObject().GetOwnPropertyNames()
	want := slices.DeleteFunc(slices.Clone(Builtins), func(n string) bool { return n == "arguments" })
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("goja's globals:\n%s\nBuiltins:\n%s", strings.Join(got, " "), strings.Join(want, " "))
	}
}
