package lint

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skillkit/skillkit/internal/testfs"
)

// lintTree lints one skill written from files into a temporary folder.
func lintTree(t *testing.T, files map[string]string) *Result {
	t.Helper()
	dir := t.TempDir()
	testfs.WriteTree(t, dir, files)
	res, err := Lint([]string{dir + "/demo"}, Options{Base: dir})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

const demoSkill = "---\nname: demo\ndescription: d\n---\n\n# Demo\n"

// findingOf returns the one finding of rule, failing when there is not
// exactly one.
func findingOf(t *testing.T, res *Result, rule string) Finding {
	t.Helper()
	var out []Finding
	for _, f := range res.Findings {
		if f.Rule == rule {
			out = append(out, f)
		}
	}
	if len(out) != 1 {
		t.Fatalf("%d %s findings, want 1: %v", len(out), rule, res.Findings)
	}
	return out[0]
}

// TestColumnsAreCodePoints checks that a finding after non-ASCII text has
// the same code-point column in every format.
func TestColumnsAreCodePoints(t *testing.T) {
	res := lintTree(t, map[string]string{
		"demo/SKILL.md": demoSkill + "\n中文说明：[gone](gone.md)\n",
	})
	f := findingOf(t, res, "link-broken")
	// 中文说明： is five code points (15 bytes): the link starts at 6.
	if f.Line != 8 || f.Col != 6 {
		t.Fatalf("link-broken at %d:%d, want 8:6", f.Line, f.Col)
	}
	var js, gh, sarif, text bytes.Buffer
	if err := WriteJSON(&js, res); err != nil {
		t.Fatal(err)
	}
	var rep JSONReport
	if err := json.Unmarshal(js.Bytes(), &rep); err != nil || rep.Findings[0].Col != 6 {
		t.Errorf("json col %v (%v), want 6", rep.Findings, err)
	}
	if err := WriteGitHub(&gh, res); err != nil || !strings.Contains(gh.String(), "line=8,col=6,") {
		t.Errorf("github output %q (%v) lacks line=8,col=6", gh.String(), err)
	}
	if err := WriteSARIF(&sarif, res, SARIFOptions{}); err != nil || !strings.Contains(sarif.String(), `"startColumn": 6`) {
		t.Errorf("sarif output lacks startColumn 6 (%v)", err)
	}
	if err := WriteText(&text, res, TextOptions{}); err != nil || !strings.Contains(text.String(), "SKILL.md:8:6: error") {
		t.Errorf("text output %q (%v) lacks :8:6", text.String(), err)
	}
	// The caret goes under the link: five wide characters are ten cells.
	if !strings.Contains(text.String(), "\n    "+strings.Repeat(" ", 10)+"^") {
		t.Errorf("caret misplaced:\n%s", text.String())
	}
}

// TestFileFindingsHaveALine checks that a finding about a whole file is
// placed at its title.
func TestFileFindingsHaveALine(t *testing.T) {
	res := lintTree(t, map[string]string{
		"demo/SKILL.md":         demoSkill,
		"demo/phases/01-one.md": "<!-- note -->\n\n# Phase 1: One\n\nJust prose.\n",
	})
	if f := findingOf(t, res, "phase-no-steps"); f.Line != 3 || f.Col != 1 {
		t.Errorf("phase-no-steps at %d:%d, want the title at 3:1", f.Line, f.Col)
	}
}

// TestFenceEndedByListItem checks that a fenced block in a list item that
// an unindented line ends is one finding at that line, with the fix.
func TestFenceEndedByListItem(t *testing.T) {
	res := lintTree(t, map[string]string{
		"demo/SKILL.md": demoSkill,
		"demo/phases/01-a.md": "# Phase 1: A\n\n## Execution\n\n1. Run it:\n   ```bash\n   echo a\necho b\n   ```\n" +
			"2. Then:\n   ```bash\n   echo c\n   ```\n",
	})
	if len(res.Findings) != 1 {
		t.Fatalf("findings %v, want one fence-unclosed", res.Findings)
	}
	f := res.Findings[0]
	if f.Rule != "fence-unclosed" || f.Line != 8 || !strings.Contains(f.Message, "indent it by 3 spaces") {
		t.Errorf("finding %v, want fence-unclosed at line 8 saying to indent by 3 spaces", f)
	}
}

// TestParserPlaceholders checks that the parsers' stand-in words are
// replaced by the text at the error.
func TestParserPlaceholders(t *testing.T) {
	for _, tc := range []struct {
		msg, line string
		col       int
		want      string
	}{
		{"`foo(` must be followed by `)`", "EXTRACT(x, y)", 1, "`EXTRACT(` must be followed by `)`"},
		{"`function foo(` must be followed by `)`", "  function run-it(a", 3, "`function run-it(` must be followed by `)`"},
		{"a command can only contain words", "x", 1, "a command can only contain words"},
	} {
		if got := bashMessage(tc.msg, tc.line, tc.col); got != tc.want {
			t.Errorf("bashMessage(%q) = %q, want %q", tc.msg, got, tc.want)
		}
	}
	for _, tc := range []struct {
		msg, line string
		col       int
		want      string
	}{
		{"Unexpected token ILLEGAL", "const a = \\`x", 11, "unexpected character `\\`"},
		{"Unexpected token ILLEGAL", "a = #x", 5, "unexpected character `#`"},
		{"Unexpected identifier", "goto Step1;", 6, "unexpected identifier `Step1`"},
		{"Unexpected token ;", "a(;", 3, "Unexpected token ;"},
	} {
		if got := jsMessage(tc.msg, tc.line, tc.col); got != tc.want {
			t.Errorf("jsMessage(%q) = %q, want %q", tc.msg, got, tc.want)
		}
	}
}

// TestGroupedFindings checks that findings with one cause are one: links
// to one missing file, fields a stale schema lacks, a name that is both
// invalid and not the folder's.
func TestGroupedFindings(t *testing.T) {
	res := lintTree(t, map[string]string{
		"demo/SKILL.md": "---\nname: Demo_Skill\ndescription: d\n---\n\n# Demo\n\nSee [a](gone.md), [b](gone.md) and [c](./gone.md).\n",
	})
	if f := findingOf(t, res, "link-broken"); !strings.HasSuffix(f.Message, "; 2 more links to it") {
		t.Errorf("link-broken %q does not count the other links", f.Message)
	}
	if f := findingOf(t, res, "frontmatter-name"); !strings.Contains(f.Message, `the folder's name "demo" would do`) {
		t.Errorf("frontmatter-name %q does not offer the folder's name", f.Message)
	}
	for _, f := range res.Findings {
		if f.Rule == "frontmatter-name-folder" {
			t.Errorf("an invalid name is also reported as differing from the folder: %v", f)
		}
	}
}

// TestLayouts checks real layouts that are not mistakes: a router skill
// and a catalog whose actions are worker documents.
func TestLayouts(t *testing.T) {
	res := lintTree(t, map[string]string{
		"demo/SKILL.md":         demoSkill + "\nFor a review, read `phases/review.md`; to plan, [plan](phases/plan.md).\n",
		"demo/phases/plan.md":   "# Plan\n\nWrite it.\n",
		"demo/phases/review.md": "# Review\n\nRead it.\n",
	})
	if f := findingOf(t, res, "mode-router"); f.Line != 8 || !strings.Contains(f.Message, "phases/plan.md, phases/review.md") {
		t.Errorf("mode-router %v", f)
	}
	for _, f := range res.Findings {
		if f.Rule == "mode-unknown" {
			t.Errorf("a router is reported as mode-unknown: %v", f)
		}
	}
	catalog := "# Catalog\n\n| Action | Purpose |\n|---|---|\n| [worker-a](../workers/worker-a.md) | a |\n| worker-b | b |\n| action-gone | c |\n"
	res = lintTree(t, map[string]string{
		"demo/SKILL.md":                   demoSkill,
		"demo/phases/orchestrator.md":     "# Orchestrator\n\nPick a worker.\n",
		"demo/phases/actions/action-x.md": "# Action: X\n\n## Execution\n\nDo it.\n",
		"demo/specs/action-catalog.md":    catalog,
		"demo/workers/worker-a.md":        "# A\n",
		"demo/workers/worker-b.md":        "# B\n",
	})
	if f := findingOf(t, res, "action-missing"); !strings.Contains(f.Message, "action-gone") {
		t.Errorf("action-missing %v, want only action-gone", f)
	}
}

// TestProfileAuto checks that the profile follows the host folder.
func TestProfileAuto(t *testing.T) {
	for dir, want := range map[string]string{
		"/home/me/repo/.claude/skills/a":             ProfileClaudeCode,
		"repo/.codex/skills/a":                       ProfileCodex,
		"/r/.pi/skills/a":                            ProfilePi,
		"/r/.claude/skills/vendored/.codex/skills/a": ProfileCodex,
		"/r/skills/a":                                ProfileAgentSkills,
		"/r/.claude/skills-old/a":                    ProfileAgentSkills,
	} {
		if got := ProfileFor(dir); got != want {
			t.Errorf("ProfileFor(%s) = %s, want %s", dir, got, want)
		}
	}
	fm := "---\nname: a\ndescription: d\nagents: 2\nphases: 3\nsession-mode: x\n---\n\n# A\n"
	dir := t.TempDir()
	testfs.WriteTree(t, dir, map[string]string{".codex/skills/a/SKILL.md": fm, ".pi/skills/a/SKILL.md": fm})
	res, err := Lint([]string{dir}, Options{Base: dir})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range res.Findings {
		got = append(got, f.File+":"+f.Rule+":"+f.Message[:strings.Index(f.Message, " is")])
	}
	want := []string{
		`.codex/skills/a/SKILL.md:frontmatter-unknown-key:key "session-mode"`,
		`.pi/skills/a/SKILL.md:frontmatter-unknown-key:key "agents"`,
		`.pi/skills/a/SKILL.md:frontmatter-unknown-key:key "phases"`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestProfileOfAPlugin: a plugin's skills/ (UiPath/skills, a Claude Code
// and Codex plugin) are read by its host's keys: when_to_use is Claude
// Code's, not unknown.
func TestProfileOfAPlugin(t *testing.T) {
	fm := "---\nname: a\ndescription: d\nwhen_to_use: when asked\n---\n\n# A\n"
	manifest := `{"name": "p", "version": "1.0.0", "description": "A plugin."}`
	dir := t.TempDir()
	testfs.WriteTree(t, dir, map[string]string{
		"claude/.claude-plugin/plugin.json": manifest, "claude/skills/a/SKILL.md": fm,
		"codex/.codex-plugin/plugin.json": manifest, "codex/skills/a/SKILL.md": fm,
		"plain/skills/a/SKILL.md": fm,
	})
	for sub, want := range map[string]string{"claude": ProfileClaudeCode, "codex": ProfileCodex, "plain": ProfileAgentSkills} {
		if got := ProfileFor(filepath.Join(dir, sub, "skills", "a")); got != want {
			t.Errorf("ProfileFor(%s/skills/a) = %s, want %s", sub, got, want)
		}
	}
	res, err := Lint([]string{dir}, Options{Base: dir})
	if err != nil {
		t.Fatal(err)
	}
	var unknown []string
	for _, f := range res.Findings {
		if f.Rule == "frontmatter-unknown-key" {
			unknown = append(unknown, f.File)
		}
	}
	if want := []string{"codex/skills/a/SKILL.md", "plain/skills/a/SKILL.md"}; !slices.Equal(unknown, want) {
		t.Errorf("when_to_use unknown in %v, want %v", unknown, want)
	}
}

// TestStateAsSkillsWriteIt checks the writes real skills make: through
// updateState, to state directly, and a TypeScript initial state.
func TestStateAsSkillsWriteIt(t *testing.T) {
	schema := "# State Schema\n\n```typescript\ninterface S {\n  status: 'pending' | 'running' | 'completed' | 'failed';\n  count: number;\n}\n```\n\n" +
		"## Initial State\n\n```typescript\nexport const initialState: S = {\n  status: 'idle',\n  count: 'none',\n};\n```\n"
	action := "# Action: Go\n\n## Execution\n\n```javascript\nasync function execute(state) {\n  updateState({ status: 'cancelled' });\n  state.count = 'many';\n  state.missing = 1;\n}\n```\n"
	res := lintTree(t, map[string]string{
		"demo/SKILL.md":                    demoSkill,
		"demo/phases/orchestrator.md":      "# Orchestrator\n\nPick.\n",
		"demo/phases/state-schema.md":      schema,
		"demo/phases/actions/action-go.md": action,
	})
	var got []string
	for _, f := range res.Findings {
		got = append(got, fmt.Sprintf("%s:%d:%d %s", path.Base(f.File), f.Line, f.Col, f.Rule))
	}
	want := []string{
		"action-go.md:7:25 state-update-type", // 'cancelled', at the value
		"action-go.md:8:17 state-update-type", // 'many'
		"action-go.md:9:3 state-unknown-field",
		"state-schema.md:14:11 state-initial-status",
		"state-schema.md:15:10 state-update-type", // count: 'none'
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestUnreachableInChinese: a step written in Chinese under the Chinese
// Output heading is code-unreachable, its range in code points.
func TestUnreachableInChinese(t *testing.T) {
	res := lintTree(t, map[string]string{
		"demo/SKILL.md": demoSkill,
		"demo/phases/01-a.md": "# Phase 1: A\n\n## 执行流程\n\n### 步骤 1: 计数\n\n```bash\nls | wc -l > count.txt\n```\n\n" +
			"## 输出\n\n- **File**: `count.txt`\n\n### 步骤 2: 显示\n\n```bash\ncat count.txt\n```\n",
	})
	f := findingOf(t, res, "code-unreachable")
	if f.Line != 15 || f.Col != 1 || f.EndCol != 1+4+len([]rune("步骤 2: 显示")) || !strings.Contains(f.Message, "under ## 输出 (line 11)") || !strings.Contains(f.Message, "under ## 执行流程 (line 3)") {
		t.Errorf("finding %+v (end column %d)", f, f.EndCol)
	}
}

// state-null-absent holds a field the skill's phases write, before a
// hybrid loop, as present; without that write the loop's first test of it
// against null is reported at the test.
func TestNullAbsentHybrid(t *testing.T) {
	files := map[string]string{
		"demo/SKILL.md":                       demoSkill,
		"demo/phases/01-prep.md":              "# Phase 1: Prep\n\n## Execution\n\n### Step 1: Clear\n\n```javascript\nstate.report = null;\n```\n",
		"demo/phases/02-orchestrator.md":      "# Orchestrator\n\n## Decision Logic\n\n```javascript\nfunction selectNextAction(state) {\n  return state.report === null ? 'action-write' : null;\n}\n```\n",
		"demo/phases/actions/action-write.md": "# Action: Write\n\n## Execution\n\n```javascript\nreturn { stateUpdates: { report: 'done' } };\n```\n",
	}
	for _, f := range lintTree(t, files).Findings {
		if f.Rule == "state-null-absent" {
			t.Errorf("a field phase 1 writes reported: %v", f)
		}
	}
	files["demo/phases/01-prep.md"] = "# Phase 1: Prep\n\n## Execution\n\n### Step 1: Look\n\n```javascript\nconsole.log(state.status);\n```\n"
	f := findingOf(t, lintTree(t, files), "state-null-absent")
	if f.File != "demo/phases/02-orchestrator.md" || f.Line != 7 || f.Col != 10 {
		t.Errorf("finding at %s:%d:%d, want demo/phases/02-orchestrator.md:7:10", f.File, f.Line, f.Col)
	}
}
