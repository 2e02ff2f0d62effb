package parse

import (
	"encoding/json"
	"path/filepath"
	"slices"
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
