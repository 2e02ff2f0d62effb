package lsp

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillkit/skillkit/internal/testfs"
)

// TestNestedSkillAnswersFromItsOwnLint opens a phase of a skill and one
// of a skill inside its folder (each is a skill: the outer one by its
// phases/ folder). A hover in the inner skill's phase answers from the
// inner skill's lint, the nearest skill as lint.SkillOf finds it, every
// time: the server used to take whichever of the two its map gave first.
func TestNestedSkillAnswersFromItsOwnLint(t *testing.T) {
	outer := filepath.Join(t.TempDir(), "outer")
	inner := filepath.Join(outer, "inner")
	innerPhase := strings.Replace(phaseMD, "state.count + 1", "state.count + state.total", 1)
	testfs.WriteTree(t, outer, map[string]string{
		"phases/01-count.md":           phaseMD,
		"phases/state-schema.md":       schema,
		"inner/SKILL.md":               "---\nname: inner\ndescription: Counts more.\n---\n\n# Inner\n",
		"inner/phases/01-count.md":     innerPhase,
		"inner/phases/state-schema.md": strings.Replace(schema, "count: number;", "count: string;\n  total: number;", 1),
	})
	var out bytes.Buffer
	s := testServer(&out)
	for _, o := range []struct{ dir, text string }{{outer, phaseMD}, {inner, innerPhase}} {
		if err := s.open(uriOf(filepath.Join(o.dir, "phases", "01-count.md")), 1, o.text); err != nil {
			t.Fatal(err)
		}
	}
	if len(s.skills) != 2 {
		t.Fatalf("linted %d skills, want the outer and the inner", len(s.skills))
	}
	uri := uriOf(filepath.Join(inner, "phases", "01-count.md"))
	line := strings.Split(innerPhase, "\n")
	n := 0
	for n < len(line) && !strings.Contains(line[n], "state.count") {
		n++
	}
	col := strings.Index(line[n], "state.count") + len("state.c")
	for range 20 {
		h, ok := s.hover(textDocumentPositionParams{TextDocument: textDocumentIdentifier{URI: uri}, Position: position{n, col}}).(hover)
		if !ok || !strings.Contains(h.Contents.Value, "count: string;") {
			t.Fatalf("hover on state.count in the inner skill = %+v, want the inner schema's declaration", h)
		}
	}
}
