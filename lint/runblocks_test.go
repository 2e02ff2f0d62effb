package lint

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/skillkit/skillkit/internal/corpus"
	"github.com/skillkit/skillkit/parse"
	"github.com/skillkit/skillkit/plan"
)

// TestRunBlocksOnce holds what runBlocks takes for granted since it keeps
// a set of the blocks seen only for actions and the orchestrator: on
// every corpus skill and example, no block comes twice (a phase's steps
// part its lines), so each block's findings are reported once.
func TestRunBlocksOnce(t *testing.T) {
	var dirs []string
	for _, e := range corpus.Skills(t) {
		dirs = append(dirs, e.Path())
	}
	examples, _ := filepath.Glob(filepath.Join("..", "examples", "*"))
	for _, d := range examples {
		if info, err := os.Stat(d); err == nil && info.IsDir() {
			dirs = append(dirs, d)
		}
	}
	for _, dir := range dirs {
		s, err := parse.Dir(dir)
		if err != nil {
			t.Fatal(err)
		}
		p := newPass(s, "", nil)
		for _, kind := range []string{plan.LangJS, plan.LangBash} {
			seen := map[*plan.CodeBlock]bool{}
			for _, b := range p.runBlocks(kind) {
				if seen[b.CodeBlock] {
					t.Errorf("%s: the %s block at %v comes twice", dir, kind, b.Pos)
				}
				seen[b.CodeBlock] = true
			}
		}
	}
}
