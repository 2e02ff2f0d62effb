package gate

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillkit/skillkit/internal/corpus"
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

// TestCorpus: on every real skill of the corpus, without an agent, the
// gate refuses exactly the skills with work a run is sure to reach, each
// piece at a line of its file; with --partial none is refused for it.
func TestCorpus(t *testing.T) {
	var refused, noted, clean, unrunnable int
	for _, e := range corpus.Skills(t) {
		s, err := parse.Dir(e.Path())
		if err != nil {
			t.Errorf("%s: %v", e.Dir, err)
			continue
		}
		sure, maybe := 0, 0
		for _, w := range AgentWork(s) {
			data, err := os.ReadFile(filepath.Join(s.Dir, w.Pos.File))
			if err != nil || w.Pos.Line < 1 || w.Pos.Line > strings.Count(string(data), "\n")+1 {
				t.Errorf("%s: %s at %s, which is no line of its file (%v)", e.Dir, w.What, w.Pos, err)
			}
			if w.Sure {
				sure++
			} else {
				maybe++
			}
		}
		err = Check(s, Options{Base: ".", NoAgent: true})
		switch {
		case err != nil && !errors.Is(err, ErrNeedsAgent):
			// Refused for its lint errors before agent work counts.
			unrunnable++
		case errors.Is(err, ErrNeedsAgent) != (sure > 0):
			t.Errorf("%s: %d piece(s) of sure agent work, and the gate said %v", e.Dir, sure, err)
		case sure > 0:
			refused++
		case maybe > 0:
			noted++
		default:
			clean++
		}
		if err := Check(s, Options{Base: ".", NoAgent: true, Partial: true}); errors.Is(err, ErrNeedsAgent) {
			t.Errorf("%s: refused with --partial: %v", e.Dir, err)
		}
	}
	t.Logf("without an agent: %d refused up front, %d start with notes, %d need none, %d unrunnable for lint errors", refused, noted, clean, unrunnable)
}
