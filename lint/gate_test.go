package lint

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/skillkit/skillkit/plan"
)

// TestGateDocumented: the run gate's table in docs/runtime.md names
// exactly the rules Unrunnable holds, and each is an error-level rule.
func TestGateDocumented(t *testing.T) {
	data, err := os.ReadFile("../docs/runtime.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(data), "### The run gate")
	if !ok {
		t.Fatal("docs/runtime.md has no run gate section")
	}
	table, _, _ = strings.Cut(table, "\n###")
	var documented []string
	for _, line := range strings.Split(table, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cell, _, _ := strings.Cut(strings.TrimPrefix(line, "| "), " |")
		for _, m := range regexp.MustCompile("`([a-z-]+)`").FindAllStringSubmatch(cell, -1) {
			documented = append(documented, m[1])
		}
	}
	slices.Sort(documented)
	if want := UnrunnableRules(); !slices.Equal(documented, want) {
		t.Errorf("docs/runtime.md's run gate lists %v, lint.Unrunnable holds %v", documented, want)
	}
	for _, id := range UnrunnableRules() {
		if r := RuleByID(id); r == nil || r.Severity() != plan.SevError {
			t.Errorf("%s: not an error-level rule", id)
		}
	}
}
