package parse

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/skillkit/skillkit/jsstatic"
	"github.com/skillkit/skillkit/plan"
)

// TestBlocksKeptAcrossParses parses a skill again and again with one
// plan.Blocks, as the language server does at each change: a block whose
// text is unchanged keeps its goja parse even where lines were added
// above it, only a changed block is parsed again, its position is where
// it now is, and the cache forgets what the skill no longer holds.
func TestBlocksKeptAcrossParses(t *testing.T) {
	phase := "# Phase 1: Count\n\n## Execution\n\n### Step 1: First\n\n```javascript\nconst a = 1;\n```\n\n### Step 2: Second\n\n```javascript\nconst b = a + 1;\n```\n\n### Step 3: Third\n\n```bash\necho done\n```\n"
	dir := writeSkill(t, map[string]string{"SKILL.md": "---\nname: demo\ndescription: d\n---\n# Demo\n", "phases/01-count.md": phase})
	blocks := plan.NewBlocks()
	parseWith := func(text string) *plan.Skill {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, "phases", "01-count.md"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := DirWith(dir, Options{Blocks: blocks})
		if err != nil {
			t.Fatal(err)
		}
		blocks.Sweep()
		return s
	}
	programs := func(s *plan.Skill) []*jsstatic.Program {
		var out []*jsstatic.Program
		for _, st := range s.Phases[0].Steps {
			for _, c := range st.Code {
				if c.Kind() == plan.LangJS {
					p, err := c.JS()
					if err != nil {
						t.Fatal(err)
					}
					out = append(out, p)
				}
			}
		}
		return out
	}
	first := parseWith(phase)
	before := programs(first)
	// The cache's pointers are weak: what a held skill holds survives a
	// collection, as in the server, which holds its last parse.
	runtime.GC()

	n := jsstatic.Parses()
	moved := parseWith(strings.Replace(phase, "## Execution\n", "## Execution\n\nTwo lines\nadded.\n", 1))
	if got := jsstatic.Parses() - n; got != 0 {
		t.Errorf("blocks that only moved were parsed %d times again", got)
	}
	after := programs(moved)
	if after[0] != before[0] || after[1] != before[1] {
		t.Error("blocks that only moved have new parses")
	}
	if a, b := first.Phases[0].Steps[1].Code[0].Body.Line, moved.Phases[0].Steps[1].Code[0].Body.Line; b != a+3 {
		t.Errorf("moved block's body at line %d, want %d", b, a+3)
	}
	if got := moved.Phases[0].Steps[1].Class.Kind; got != plan.ClassNative {
		t.Errorf("step 2 after the move: %s, want native (it reads a, which step 1 binds)", got)
	}

	n = jsstatic.Parses()
	changed := parseWith(strings.Replace(phase, "const a = 1;", "const x = 1;", 1))
	if got := jsstatic.Parses() - n; got != 1 {
		t.Errorf("one block changed: %d goja parses, want 1", got)
	}
	if got := programs(changed); got[1] != before[1] {
		t.Error("the unchanged block has a new parse")
	}
	// Step 2 reads a, which nothing binds now: the reuse of its parse
	// does not reuse its class.
	if got := changed.Phases[0].Steps[1].Class.Kind; got != plan.ClassAgent {
		t.Errorf("step 2 after step 1 stopped binding a: %s, want agent", got)
	}
	// Two JavaScript texts and one bash text are held, not the text
	// that is gone.
	if got := blocks.Len(); got != 3 {
		t.Errorf("the cache holds %d parses, want 3", got)
	}
	runtime.KeepAlive(first)
	runtime.KeepAlive(moved)
	runtime.KeepAlive(changed)
}

// TestBlocksWeak parses a skill with one plan.Blocks and drops it: once
// collected, its parses are no longer kept, so a lint run's cache does
// not hold every skill's parses to its end.
func TestBlocksWeak(t *testing.T) {
	dir := writeSkill(t, map[string]string{
		"SKILL.md":           "---\nname: demo\ndescription: d\n---\n# Demo\n",
		"phases/01-count.md": "# Phase 1: Count\n\n## Execution\n\n### Step 1: First\n\n```javascript\nconst a = 1;\n```\n",
	})
	blocks := plan.NewBlocks()
	if _, err := DirWith(dir, Options{Blocks: blocks}); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	n := jsstatic.Parses()
	if _, err := DirWith(dir, Options{Blocks: blocks}); err != nil {
		t.Fatal(err)
	}
	if got := jsstatic.Parses() - n; got != 1 {
		t.Errorf("after the skill that held it was collected: %d goja parses, want 1", got)
	}
}
