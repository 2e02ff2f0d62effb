package parse

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/skillkit/skillkit/internal/corpus"
)

// TestCorpusHeadings lists every heading of the corpus that is a section
// name, with the section it maps to and how often it is written, in
// testdata/headings.golden. A heading the table should know is one line
// in plan's alias table and one line here (go test ./parse -run
// CorpusHeadings -update, then the diff).
func TestCorpusHeadings(t *testing.T) {
	count := map[string]int{}
	key := map[string]string{}
	for _, e := range corpus.Skills(t) {
		s, err := Dir(e.Path())
		if err != nil {
			t.Fatal(err)
		}
		docs := slices.Clone(s.Docs)
		if s.Body != nil {
			docs = append(docs, s.Body)
		}
		for _, ph := range s.Phases {
			docs = append(docs, ph.Doc)
		}
		for _, a := range s.Actions {
			docs = append(docs, a.Doc)
		}
		if o := s.Orchestrator; o != nil {
			docs = append(docs, o.Doc)
		}
		for _, d := range docs {
			for _, sec := range d.Sections {
				if sec.Key == "" {
					continue
				}
				h := strings.TrimSpace(sec.Heading)
				count[h]++
				key[h] = sec.Key
			}
		}
	}
	var lines []string
	for h, n := range count {
		lines = append(lines, fmt.Sprintf("%-16s %-40s %d", key[h], h, n))
	}
	slices.Sort(lines)
	got := []byte(strings.Join(lines, "\n") + "\n")
	const golden = "testdata/headings.golden"
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go test ./parse -run CorpusHeadings -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the corpus headings that are section names differ from %s (go test ./parse -run CorpusHeadings -update && git diff):\n%s", golden, got)
	}
}
