package lsp

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillkit/skillkit/internal/testfs"
)

// TestDottedNameIsInTheSkill opens a file of a skill whose name starts
// with two dots: it is inside the skill, so its unsaved text is what is
// linted (a link typed in the editor to a file that does not exist),
// not the file on disk, which has none.
func TestDottedNameIsInTheSkill(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".claude", "skills", "demo")
	testfs.WriteTree(t, dir, map[string]string{
		"SKILL.md":           "---\nname: demo\ndescription: Counts files.\n---\n\n# Demo\n",
		"phases/01-count.md": phaseMD,
		"..notes.md":         "# Notes\n",
	})
	var out bytes.Buffer
	s := testServer(&out)
	uri := uriOf(filepath.Join(dir, "..notes.md"))
	if err := s.open(uri, 1, "# Notes\n\nSee [the plan](missing-plan.md).\n"); err != nil {
		t.Fatal(err)
	}
	if got := published(t, out.Bytes())[uri]; !strings.Contains(got, "missing-plan.md") {
		t.Fatalf("diagnostics of the open ..notes.md = %q, want its broken link", got)
	}
}
