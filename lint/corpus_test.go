package lint

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillkit/skillkit/internal/corpus"
	"github.com/skillkit/skillkit/jsstatic"
	"github.com/skillkit/skillkit/parse"
)

// lintCorpus lints the whole shared corpus as one repository of skills,
// with paths relative to the corpus root.
func lintCorpus(t testing.TB) *Result {
	t.Helper()
	corpus.Skills(t)
	res, err := Lint([]string{corpus.Root()}, Options{Base: corpus.Root(), ConfigFile: "testdata/corpus-skillkit.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestCorpusGolden compares the text report of the corpus with
// testdata/corpus.golden. Every finding in it has been read and is true;
// a change here needs the same reading (go test ./lint -run CorpusGolden
// -update, then the diff).
func TestCorpusGolden(t *testing.T) {
	res := lintCorpus(t)
	var got bytes.Buffer
	if err := WriteText(&got, res, TextOptions{ReadFile: func(p string) ([]byte, error) {
		return os.ReadFile(filepath.Join(corpus.Root(), filepath.FromSlash(p)))
	}}); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "testdata/corpus.golden", got.Bytes())
}

// TestCorpusMustFind pins findings the corpus is known to hold.
func TestCorpusMustFind(t *testing.T) {
	res := lintCorpus(t)
	for _, want := range []struct{ file, rule, text string }{
		{"catlog22__Claude-Code-Workflow/.claude/skills/ccw-loop/specs/action-catalog.md", "action-missing", "action-status"},
		{"catlog22__Claude-Code-Workflow/.claude/skills/skill-generator/specs/execution-modes.md", "fence-nested", "```javascript inside the ```markdown block"},
		{"catlog22__Claude-Code-Workflow/.claude/skills_lib/team-skill-designer-v2/SKILL.md", "frontmatter-name-folder", `"team-skill-designer"`},
		{"catlog22__Claude-Code-Workflow/.claude/skills/review-code/phases/orchestrator.md", "action-missing", "'action-abort'"},
	} {
		found := false
		for _, f := range res.Findings {
			if f.File == want.file && f.Rule == want.rule && strings.Contains(f.Message, want.text) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("no %s finding in %s mentioning %s", want.rule, want.file, want.text)
		}
	}
}

// corpusFiles returns the markdown files of the corpus skills and their
// total size, for the benchmarks.
func corpusDirs(b *testing.B) (dirs []string, bytes int64) {
	for _, e := range corpus.Skills(b) {
		dirs = append(dirs, e.Path())
		filepath.WalkDir(e.Path(), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				if info, err := d.Info(); err == nil {
					bytes += info.Size()
				}
			}
			return nil
		})
	}
	return dirs, bytes
}

// BenchmarkParseCorpus parses every corpus skill: the baseline lint is
// measured against.
func BenchmarkParseCorpus(b *testing.B) {
	dirs, size := corpusDirs(b)
	b.SetBytes(size)
	for b.Loop() {
		for _, d := range dirs {
			if _, err := parse.Dir(d); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkLintCorpus lints the same skills, one at a time like the parse
// benchmark, so the two throughputs compare rule cost, not parallelism.
func BenchmarkLintCorpus(b *testing.B) {
	dirs, size := corpusDirs(b)
	b.SetBytes(size)
	before := jsstatic.Parses()
	for b.Loop() {
		for _, d := range dirs {
			s, err := parse.Dir(d)
			if err != nil {
				b.Fatal(err)
			}
			newPass(s, ProfileClaudeCode, nil).run(allRules)
		}
	}
	b.ReportMetric(float64(jsstatic.Parses()-before)/float64(b.N), "js-parses/op")
}

// TestPlainLint lints the plain skills of ../shared/corpus-plain: they run
// as agent units and lint finds only what is true of them, the one
// description over the limit and the long bodies.
func TestPlainLint(t *testing.T) {
	dirs := corpus.PlainSkills(t)
	res, err := Lint(dirs, Options{Base: corpus.PlainRoot()})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{
		"anthropics__skills/skills/claude-api/SKILL.md:frontmatter-description": true,
		"anthropics__skills/skills/claude-api/SKILL.md:body-length":             true,
		"anthropics__skills/skills/algorithmic-art/SKILL.md:body-length":        true,
		"anthropics__skills/skills/skill-creator/SKILL.md:body-length":          true,
	}
	for _, f := range res.Findings {
		key := f.File + ":" + f.Rule
		if !want[key] {
			t.Errorf("unexpected finding %s: %s", key, f.Message)
		}
		delete(want, key)
	}
	for key := range want {
		t.Errorf("missing finding %s", key)
	}
}
