package orchestrator_test

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	lifecycle "github.com/skillkit/skillkit/internal/run"

	"github.com/skillkit/skillkit/internal/testfs"
)

// TestNoopIterationAsDocumented: a no-op iteration of the loop writes the
// two events.jsonl lines docs/runtime.md shows, its completion's record
// and checkpoint left implied.
func TestNoopIterationAsDocumented(t *testing.T) {
	doc := testfs.ReadFile(t, "../../docs/runtime.md")
	_, after, ok := strings.Cut(doc, "\nA no-op iteration of a loop")
	if !ok {
		t.Fatal("docs/runtime.md no longer shows a no-op iteration")
	}
	m := regexp.MustCompile("(?s)```\n(.*?)\n```\n").FindStringSubmatch(after)
	if m == nil {
		t.Fatal("no block under the no-op iteration")
	}
	res, err := lifecycle.Run(context.Background(), noopOptions(t, 2, false))
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(testfs.ReadFile(t, filepath.Join(res.Dir, "events.jsonl")), "\n") {
		if strings.Contains(l, `"action":"action-noop"`) {
			lines = append(lines, l)
		}
	}
	if len(lines) != 4 {
		t.Fatalf("%d lines of the action, want 4 (two iterations):\n%s", len(lines), strings.Join(lines, "\n"))
	}
	got := regexp.MustCompile(`\d{4}-\d\d-\d\dT[0-9:.]+(Z|[+-]\d\d:\d\d)`).ReplaceAllString(strings.Join(lines[2:], "\n"), "2026-01-02T03:04:05Z")
	if got != m[1] {
		t.Errorf("docs/runtime.md shows:\n%s\nthe second iteration wrote:\n%s", m[1], got)
	}
}
