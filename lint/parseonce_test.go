package lint

import (
	"os"
	"testing"

	"github.com/skillkit/skillkit/internal/corpus"
	"github.com/skillkit/skillkit/jsstatic"
	"github.com/skillkit/skillkit/parse"
	"github.com/skillkit/skillkit/plan"
)

// TestParseOnce: parsing and linting a skill runs goja's parser at most
// once per JavaScript block (the plan's parse, shared by Classify, the
// runtime and every rule), plus once per distinct expression and for a
// block read as an object literal or with its template placeholders
// filled. Before, a block was parsed up to three
// times. The tests of this package run one at a time, so the counter
// sees only this skill.
func TestParseOnce(t *testing.T) {
	dirs := []string{"../examples/autonomous", "../examples/hybrid", "../examples/agent-driven"}
	if _, err := os.Stat(corpus.Root()); err == nil {
		for _, e := range corpus.Skills(t) {
			dirs = append(dirs, e.Path())
		}
	}
	for _, dir := range dirs {
		before := jsstatic.Parses()
		s, err := parse.Dir(dir)
		if err != nil {
			t.Fatal(err)
		}
		newPass(s, ProfileClaudeCode, nil).run(allRules)
		got := jsstatic.Parses() - before
		blocks, exprs := 0, map[string]bool{}
		for _, d := range s.AllDocs() {
			for _, c := range d.Code {
				if c.Lang == "javascript" || c.Lang == "js" {
					blocks++
					if objectLiteral(c.Text) {
						blocks++ // read as an expression first
					}
					if _, changed := plan.UntemplateJS(c.Text); changed {
						blocks++ // read again with its placeholders filled
					}
				}
			}
		}
		for _, e := range s.Exprs() {
			if e.Checkable() {
				exprs[e.JS] = true
			}
		}
		if want := int64(blocks + len(exprs)); got > want {
			t.Errorf("%s: %d goja parses for %d JavaScript blocks and %d expressions", dir, got, blocks, len(exprs))
		}
	}
}
