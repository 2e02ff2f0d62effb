package jsstatic

import "testing"

// FuzzPrograms runs every reader over whatever parses: none may panic.
// Seeds are in testdata/fuzz/FuzzPrograms.
func FuzzPrograms(f *testing.F) {
	f.Add("function selectNextAction(state) { if (state.a?.b) return 'action-x'; }")
	f.Add("return { stateUpdates: { 'a.b': [1], c: { d: -1 } } }")
	f.Add("const execute = async (state, workDir, {d, e = 1}, ...rest) => ({})")
	f.Fuzz(func(t *testing.T, src string) {
		if p, err := Parse(src); err == nil {
			p.StateReads(nil)
			p.FunctionReturns("selectNextAction")
			p.Updates(true)
			p.Params("execute")
			p.NullTests()
		}
		if p, _, err := ParseExpression(src); err == nil {
			p.StateReads(nil)
			p.Updates(false)
		}
	})
}
