package lint

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillkit/skillkit/internal/corpus"
)

// plant is one defect planted into a copy of a real corpus skill: edit
// changes the copy (dir is its folder), and lint must then report rule in
// file more often than on the skill as it is.
type plant struct {
	name, skill, rule, file string
	edit                    func(t *testing.T, dir string)
}

// The two corpus skills the defects are planted into: a sequential one
// with bash steps and declared outputs, and an autonomous one with a
// state schema and a status union.
const (
	plantSeq  = "catlog22__Claude-Code-Workflow/.claude/skills/security-audit"
	plantAuto = "catlog22__Claude-Code-Workflow/.claude/skills/review-code"
)

// replace replaces the first old in file with new, failing when it is
// not there (the corpus changed).
func replace(old, new string) func(string) string {
	return func(s string) string {
		if !strings.Contains(s, old) {
			return ""
		}
		return strings.Replace(s, old, new, 1)
	}
}

// editFile rewrites file of dir with fn; fn returning "" means the text it
// looks for is not there.
func editFile(t *testing.T, dir, file string, fn func(string) string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(file))
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	out := fn(string(data))
	if out == "" {
		t.Fatalf("%s: the text to plant into is not there", file)
	}
	if err := os.WriteFile(p, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, dir, file, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(file))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

var plants = []plant{
	{"a closing fence removed: the block swallows the next step", plantSeq, "fence-swallows", "phases/01-supply-chain-scan.md",
		func(t *testing.T, dir string) {
			editFile(t, dir, "phases/01-supply-chain-scan.md", replace("```\n\n", "\n\n"))
		}},
	{"a block that runs to the end of the file", plantSeq, "fence-unclosed", "phases/04-report-tracking.md",
		func(t *testing.T, dir string) {
			editFile(t, dir, "phases/04-report-tracking.md", func(s string) string { return s + "\n```bash\necho done\n" })
		}},
	{"a union value the native code sets", plantAuto, "state-update-type", "phases/actions/action-complete.md",
		func(t *testing.T, dir string) {
			editFile(t, dir, "phases/actions/action-complete.md", replace("    stateUpdates: {\n      status: 'completed',", "    stateUpdates: {\n      status: 'done',"))
		}},
	{"a union value in code the agent is sent", plantAuto, "state-update-type-agent", "phases/actions/action-complete.md",
		func(t *testing.T, dir string) {
			editFile(t, dir, "phases/actions/action-complete.md", replace("## Post-Completion\n", "## On Cancel\n\n```javascript\nupdateState({ status: 'cancelled' });\n```\n\n## Post-Completion\n"))
		}},
	{"a declared output nothing writes", plantSeq, "output-unwritten", "phases/05-extra.md",
		func(t *testing.T, dir string) {
			writeFile(t, dir, "phases/05-extra.md", "# Phase 5: Extra\n\n## Execution\n\n### Step 1: Count\n\n```bash\nls | wc -l > count.txt\n```\n\n## Output\n\n- **File**: `summary.json`\n")
		}},
	{"a step with code under Output", plantSeq, "code-unreachable", "phases/01-supply-chain-scan.md",
		func(t *testing.T, dir string) {
			editFile(t, dir, "phases/01-supply-chain-scan.md", replace("## Next Phase", "### Step 5: Clean Up\n\n```bash\nrm -f scan.tmp\n```\n\n## Next Phase"))
		}},
	{"a hint naming an action with no file", plantAuto, "action-missing", "phases/actions/action-complete.md",
		func(t *testing.T, dir string) {
			editFile(t, dir, "phases/actions/action-complete.md", replace("- 无（终止状态）", "- On failure: `action-rollback`"))
		}},
	{"a precondition reading an undeclared name", plantAuto, "name-undeclared", "phases/actions/action-complete.md",
		func(t *testing.T, dir string) {
			editFile(t, dir, "phases/actions/action-complete.md", replace("- [ ] state.report_generated === true", "- [ ] state.report_generated === true\n- [ ] state.error_count < MAX_ERRORS"))
		}},
	{"a precondition reading a field the schema lacks", plantAuto, "state-unknown-field", "phases/actions/action-complete.md",
		func(t *testing.T, dir string) {
			editFile(t, dir, "phases/actions/action-complete.md", replace("- [ ] state.report_generated === true", "- [ ] state.report_generated === true\n- [ ] state.report_approved === true"))
		}},
	{"JavaScript that does not parse", plantAuto, "js-syntax", "phases/actions/action-complete.md",
		func(t *testing.T, dir string) {
			editFile(t, dir, "phases/actions/action-complete.md", replace("const durationMinutes = Math.round(duration / 60000);", "const durationMinutes = Math.round(duration / 60000;"))
		}},
	{"shell that does not parse", plantSeq, "bash-syntax", "phases/01-supply-chain-scan.md",
		func(t *testing.T, dir string) {
			editFile(t, dir, "phases/01-supply-chain-scan.md", replace("```bash\n", "```bash\nif [ -f package.json ]; then\n"))
		}},
	{"a link to a file that is not there", plantSeq, "link-broken", "SKILL.md",
		func(t *testing.T, dir string) {
			editFile(t, dir, "SKILL.md", func(s string) string { return s + "\nSee [the scoring notes](specs/scoring-notes.md).\n" })
		}},
	{"two phases with one number", plantSeq, "phase-number-duplicate", "phases/02-review-copy.md",
		func(t *testing.T, dir string) {
			data, err := os.ReadFile(filepath.Join(dir, "phases", "02-owasp-review.md"))
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, dir, "phases/02-review-copy.md", string(data))
		}},
	{"a name that is not the folder's", plantSeq, "frontmatter-name-folder", "SKILL.md",
		func(t *testing.T, dir string) {
			editFile(t, dir, "SKILL.md", replace("name: security-audit", "name: security-audits"))
		}},
	{"an initial state that is not JSON", plantAuto, "state-initial-json", "phases/state-schema.md",
		func(t *testing.T, dir string) {
			editFile(t, dir, "phases/state-schema.md", replace(`  "scan_completed": false,`, `  "scan_completed": false,,`))
		}},
}

// TestPlantedDefects plants 15 kinds of defects real skills hide into
// copies of real corpus skills and requires lint to find at least 14,
// each where it was planted: reported by its rule in its file more often
// than on the skill as it is.
func TestPlantedDefects(t *testing.T) {
	corpus.Skills(t)
	base := map[string]*Result{}
	count := func(res *Result, rule, file string) int {
		n := 0
		for _, f := range res.Findings {
			if f.Rule == rule && strings.HasSuffix(f.File, "/"+file) {
				n++
			}
		}
		return n
	}
	lintCopy := func(t *testing.T, skill string, edit func(*testing.T, string)) *Result {
		dir := filepath.Join(t.TempDir(), filepath.Base(skill))
		copyTree(t, filepath.Join(corpus.Root(), filepath.FromSlash(skill)), dir)
		if edit != nil {
			edit(t, dir)
		}
		res, err := Lint([]string{dir}, Options{Base: filepath.Dir(dir)})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	found := 0
	for _, pl := range plants {
		if base[pl.skill] == nil {
			base[pl.skill] = lintCopy(t, pl.skill, nil)
		}
		res := lintCopy(t, pl.skill, pl.edit)
		if count(res, pl.rule, pl.file) > count(base[pl.skill], pl.rule, pl.file) {
			found++
			continue
		}
		t.Logf("not found: %s (%s in %s)", pl.name, pl.rule, pl.file)
	}
	t.Logf("%d of %d planted defects found", found, len(plants))
	if found < 14 {
		t.Errorf("%d of %d planted defects found, want at least 14", found, len(plants))
	}
}
