package lint

import (
	"slices"
	"testing"
)

// TestDocsExamples lints every rule's bad example from docs/lint-rules.md
// and checks that it reports that rule and no other, and that the good
// example reports nothing: the docs cannot drift from the linter.
func TestDocsExamples(t *testing.T) {
	examples := readExamples(t)
	for _, r := range Rules() {
		t.Run(r.ID(), func(t *testing.T) {
			ex := examples[r.ID()]
			if ex["bad"] == nil || ex["good"] == nil {
				t.Fatalf("docs/lint-rules.md has no bad and good example for %s", r.ID())
			}
			bad := lintExample(t, ex["bad"])
			var rules []string
			for _, f := range bad.Findings {
				if !slices.Contains(rules, f.Rule) {
					rules = append(rules, f.Rule)
				}
			}
			if !slices.Equal(rules, []string{r.ID()}) {
				t.Errorf("bad example reports %v, want exactly [%s]:\n%s", rules, r.ID(), findingLines(bad))
			}
			if good := lintExample(t, ex["good"]); len(good.Findings) > 0 {
				t.Errorf("good example reports findings:\n%s", findingLines(good))
			}
		})
	}
	for id := range examples {
		if RuleByID(id) == nil {
			t.Errorf("docs/lint-rules.md documents %s, which is not a rule", id)
		}
	}
}

func lintExample(t *testing.T, ex *example) *Result {
	t.Helper()
	dir := t.TempDir()
	ex.build(t, dir)
	res, err := Lint([]string{dir}, Options{Base: dir, Profile: ex.profile})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func findingLines(r *Result) string {
	s := ""
	for _, f := range r.Findings {
		s += "  " + f.String() + "\n"
	}
	return s
}
