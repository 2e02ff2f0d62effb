package parse

import (
	"slices"
	"testing"

	"github.com/skillkit/skillkit/plan"
)

func TestPhaseNumber(t *testing.T) {
	for _, tc := range []struct {
		base, raw, slug string
		major, minor    int
		letter          string
	}{
		{"01-collect", "01", "collect", 1, 0, ""},
		{"02.5-enrich", "02.5", "enrich", 2, 5, ""},
		{"01-5-requirement-clarification", "01-5", "requirement-clarification", 1, 5, ""},
		{"03a-ui-design-exploration", "03a", "ui-design-exploration", 3, 0, "a"},
		{"10-final", "10", "final", 10, 0, ""},
		{"02-orchestrator", "02", "orchestrator", 2, 0, ""},
		{"07", "07", "", 7, 0, ""},
		{"03.5-consolidation", "03.5", "consolidation", 3, 5, ""},
	} {
		n, slug, ok := phaseNumber(tc.base)
		if !ok || n.Raw != tc.raw || slug != tc.slug || n.Major != tc.major || n.Minor != tc.minor || n.Letter != tc.letter {
			t.Errorf("phaseNumber(%q) = %+v %q %v", tc.base, n, slug, ok)
		}
	}
	if _, _, ok := phaseNumber("orchestrator"); ok {
		t.Error("orchestrator has no number")
	}
}

func TestNumberOrder(t *testing.T) {
	names := []string{"10-x", "03a-x", "02.5-x", "01-x", "03-x", "01-5-x", "02-x", "04-x"}
	var nums []plan.Number
	for _, b := range names {
		n, _, _ := phaseNumber(b)
		nums = append(nums, n)
	}
	slices.SortFunc(nums, func(a, b plan.Number) int {
		if a.Less(b) {
			return -1
		}
		if b.Less(a) {
			return 1
		}
		return 0
	})
	var got []string
	for _, n := range nums {
		got = append(got, n.Raw)
	}
	want := []string{"01", "01-5", "02", "02.5", "03", "03a", "04", "10"}
	if !slices.Equal(got, want) {
		t.Errorf("order = %v, want %v", got, want)
	}
}
