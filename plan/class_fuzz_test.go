package plan

import (
	"slices"
	"testing"
)

// FuzzModelVariableGate holds bashClass's gate, which runs the
// model-variable expression only on text holding one of its names, to
// the expression run on every text: the same first match, or none.
func FuzzModelVariableGate(f *testing.F) {
	for _, s := range []string{"", "echo $ARGUMENTS", "cd ${CLAUDE_SKILL_DIR}/x", "$CLAUDE_SESSION_IDx $CLAUDE_SESSION_ID", "$ARGUMENTS_X", "ARGUMENTS $", "${ARGUMENTS}", "$CLAUDE_SKILL"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if got, want := modelVariableIn(text), modelVariable.FindStringIndex(text); !slices.Equal(got, want) {
			t.Fatalf("modelVariableIn(%q) = %v, the expression finds %v", text, got, want)
		}
	})
}
