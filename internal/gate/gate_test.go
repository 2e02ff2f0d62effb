package gate

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillkit/skillkit/parse"
)

// TestExamples: the gate on the bundled examples, without an agent,
// refuses exactly the one whose steps need one, and lets a loop start.
func TestExamples(t *testing.T) {
	for _, c := range []struct {
		name    string
		refused bool
		// lines the gate prints, in order.
		lines []string
	}{
		{"sequential", false, nil},
		{"autonomous", false, nil},
		{"hybrid", false, nil},
		{"real-skill", true, []string{
			"phases/01-collect.md:26:17: step 01-collect#3 Judge the style needs the agent: calls `analyzeStyle`, which no block declares",
			"phases/02-report.md:5:1: step 02-report#1 Write the review needs the agent: prose: no runnable block",
		}},
		{"agent-driven", false, []string{
			"phases/actions/action-draft.md:12:1: action action-draft may go to the agent: prose: no runnable block",
			"phases/actions/action-outline.md:11:1: action action-outline may go to the agent: prose: no runnable block",
			"phases/actions/action-review.md:11:1: action action-review may go to the agent: prose: no runnable block",
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join("..", "..", "examples", c.name)
			s, err := parse.Dir(dir)
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			err = Check(s, Options{Base: ".", NoAgent: true, Out: &out})
			if got := errors.Is(err, ErrNeedsAgent); got != c.refused {
				t.Fatalf("refused %v, want %v (%v)", got, c.refused, err)
			}
			var want []string
			for _, l := range c.lines {
				if strings.Contains(l, "may go") {
					l = "note: " + filepath.Join(dir, l)
				} else {
					l = filepath.Join(dir, l)
				}
				want = append(want, l)
			}
			if got := strings.Join(want, "\n"); strings.TrimSpace(out.String()) != got {
				t.Errorf("printed\n%s\nwant\n%s", out.String(), got)
			}
			// With an agent, or --partial, the same skill passes.
			if err := Check(s, Options{Base: "."}); err != nil {
				t.Errorf("with an agent: %v", err)
			}
		})
	}
}
