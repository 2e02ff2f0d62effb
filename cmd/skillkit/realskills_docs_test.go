package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestRealSkillsDoc runs each transcript of docs/real-skills.md from the
// repository root and compares what it prints with the page, the run's
// id, folder and durations aside.
func TestRealSkillsDoc(t *testing.T) {
	root := repoRoot(t)
	doc, err := os.ReadFile(filepath.Join(root, "docs", "real-skills.md"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(root)
	t.Cleanup(func() { os.RemoveAll(filepath.Join(root, ".skillkit", "runs", "real-skill")) })
	transcripts := regexp.MustCompile("(?sm)^```\n\\$ skillkit ([^\n]*)\n(.*?)^```$").FindAllStringSubmatch(string(doc), -1)
	if len(transcripts) != 4 {
		t.Fatalf("found %d transcripts in docs/real-skills.md, want 4", len(transcripts))
	}
	norm := []struct{ re, with string }{
		{`\d{8}-\d{6}-[0-9a-f]{8}`, "RUN"},
		{` in /[^;\s]+`, " in DIR"},
		{`\((\d+(\.\d+)?(ms|s|µs))\)|in \d+(\.\d+)?(ms|s|µs)$`, "TIME"},
	}
	for _, tr := range transcripts {
		_, out, stderr := run(strings.Fields(tr[1])...)
		got := out + stderr
		for _, n := range norm {
			got = regexp.MustCompile("(?m)"+n.re).ReplaceAllStringFunc(got, func(m string) string {
				switch {
				case strings.HasPrefix(m, "("):
					return "(TIME)"
				case strings.HasPrefix(m, "in ") && n.with == "TIME":
					return "in TIME"
				}
				return n.with
			})
		}
		if got != tr[2] {
			t.Errorf("skillkit %s prints\n%s\nthe page shows\n%s", tr[1], got, tr[2])
		}
	}
}
