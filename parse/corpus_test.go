package parse

import (
	"cmp"
	"encoding/json"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/skillkit/skillkit/internal/corpus"
	"github.com/skillkit/skillkit/plan"
)

// corpusDir is the shared corpus of real skills.
var corpusDir = corpus.Root()

// skills returns the corpus index, skipping the test where it is absent.
func skills(t testing.TB) []corpus.Entry { return corpus.Skills(t) }

func TestCorpusModes(t *testing.T) {
	for _, e := range skills(t) {
		s, err := Dir(filepath.Join(corpusDir, e.Dir))
		if err != nil {
			t.Errorf("%s: %v", e.Dir, err)
			continue
		}
		if e.Mode != "other" && string(s.Mode) != e.Mode {
			t.Errorf("%s: mode %s, index says %s", e.Dir, s.Mode, e.Mode)
		}
		if _, err := json.Marshal(s); err != nil {
			t.Errorf("%s: plan does not encode: %v", e.Dir, err)
		}
	}
}

func TestCorpusPhaseOrder(t *testing.T) {
	skills(t)
	for dir, want := range map[string][]string{
		"catlog22__Claude-Code-Workflow/.claude/skills/spec-generator": {
			"01", "01-5", "02", "03", "04", "05", "06", "06-5"},
		"catlog22__Claude-Code-Workflow/.claude/skills/brainstorm": {
			"01", "02", "03", "03a", "04"},
		"catlog22__Claude-Code-Workflow/.claude/skills/software-manual": {
			"01", "02", "02.5", "03", "03.5", "04", "05", "06"},
	} {
		s, err := Dir(filepath.Join(corpusDir, dir))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, p := range s.Phases {
			got = append(got, p.Number.Raw)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: order %v, want %v", dir, got, want)
		}
	}
}

func TestCorpusCatalog(t *testing.T) {
	skills(t)
	s, err := Dir(filepath.Join(corpusDir, "catlog22__Claude-Code-Workflow/.claude/skills/ccw-loop"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Catalog == nil || len(s.Catalog.Rows) != 6 {
		t.Fatalf("catalog = %+v, want 6 rows", s.Catalog)
	}
	row := s.Catalog.Rows[0]
	if row.Action != "action-init" || row.Preconditions[0].JS != "state.status === 'pending' && state.initialized === false" {
		t.Errorf("first row = %+v / %+v", row, row.Preconditions[0])
	}
	want := plan.Pos{File: "specs/action-catalog.md", Line: 9, Col: 1}
	if row.Pos != want {
		t.Errorf("first row at %v, want %v", row.Pos, want)
	}
	var labels []string
	for _, e := range s.Catalog.Edges {
		labels = append(labels, e.To.Label)
	}
	if !slices.Contains(labels, "action-status") {
		t.Errorf("graph edges lack action-status: %v", labels)
	}
}

// TestCorpusClasses classifies every step and action of the corpus:
// nothing panics, every one has a class and a reason, and real skills
// have both kinds. It prints the counts and the most common reasons.
func TestCorpusClasses(t *testing.T) {
	count := map[plan.ClassKind]int{}
	reasons := map[string]int{}
	for _, e := range skills(t) {
		s, err := Dir(filepath.Join(corpusDir, e.Dir))
		if err != nil {
			t.Errorf("%s: %v", e.Dir, err)
			continue
		}
		var classes []plan.Class
		for _, ph := range s.Phases {
			for _, st := range ph.Steps {
				classes = append(classes, st.Class)
			}
		}
		for _, a := range s.Actions {
			classes = append(classes, a.Execution.Class)
		}
		for _, c := range classes {
			if (c.Kind != plan.ClassNative && c.Kind != plan.ClassAgent) || c.Reason == "" || !c.Pos.IsValid() {
				t.Errorf("%s: class %+v", e.Dir, c)
			}
			count[c.Kind]++
			// Reasons name identifiers: count them by their shape.
			reason, _, bad := strings.Cut(c.Reason, " does not parse:")
			if bad {
				reason += " does not parse"
			}
			reasons[string(c.Kind)+": "+quoted.ReplaceAllString(reason, "`…`")]++
		}
	}
	if count[plan.ClassNative] == 0 || count[plan.ClassAgent] == 0 {
		t.Errorf("classes %v: want steps of both kinds in real skills", count)
	}
	top := slices.Collect(maps.Keys(reasons))
	slices.SortFunc(top, func(a, b string) int { return cmp.Or(reasons[b]-reasons[a], strings.Compare(a, b)) })
	t.Logf("corpus steps and actions: %d native, %d agent", count[plan.ClassNative], count[plan.ClassAgent])
	for _, r := range top[:min(8, len(top))] {
		t.Logf("%5d  %s", reasons[r], r)
	}
}

// quoted is a name or value quoted in a class reason.
var quoted = regexp.MustCompile("`[^`]*`")
