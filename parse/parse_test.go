package parse

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/skillkit/skillkit/internal/testfs"
	"github.com/skillkit/skillkit/plan"
)

// writeSkill lays out files (path → content) in a temporary folder.
func writeSkill(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "demo")
	testfs.WriteTree(t, dir, files)
	return dir
}

func mustDir(t *testing.T, dir string) *plan.Skill {
	t.Helper()
	s, err := Dir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestFrontMatter(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		keys      []string
		code      string // expected diagnostic code, "" for none
		line      int
	}{
		{"plain", "---\nname: demo\ndescription: d\n---\n# T\n", []string{"name", "description"}, "", 0},
		{"crlf", "---\r\nname: demo\r\n---\r\n# T\r\n", []string{"name"}, "", 0},
		{"duplicate keys kept", "---\nname: a\nname: b\n---\n", []string{"name", "name"}, "", 0},
		{"not at line 1", "\n---\nname: demo\n---\n", nil, "", 0},
		{"unterminated", "---\nname: demo\n# T\n", nil, "frontmatter-unterminated", 1},
		{"bad yaml", "---\nname: demo\n  bad: [\n---\n", nil, "frontmatter-yaml", 3},
		{"not a mapping", "---\n- a\n- b\n---\n", nil, "frontmatter-yaml", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := mustDir(t, writeSkill(t, map[string]string{"SKILL.md": tc.src}))
			var keys []string
			if s.FrontMatter != nil {
				for _, f := range s.FrontMatter.Fields {
					keys = append(keys, f.Key)
				}
			}
			if len(keys) != len(tc.keys) {
				t.Errorf("keys = %v, want %v", keys, tc.keys)
			}
			var got *plan.Diagnostic
			for i := range s.Diagnostics {
				got = &s.Diagnostics[i]
			}
			switch {
			case tc.code == "" && got != nil:
				t.Errorf("unexpected diagnostic %v", got)
			case tc.code != "" && (got == nil || got.Code != tc.code || got.Pos.Line != tc.line):
				t.Errorf("diagnostic = %v, want %s at line %d", got, tc.code, tc.line)
			}
		})
	}
}

func TestFrontMatterPositionsAndName(t *testing.T) {
	s := mustDir(t, writeSkill(t, map[string]string{"SKILL.md": "---\nname: other-name\ndescription: x\n---\n# Title\n"}))
	if s.Name != "other-name" {
		t.Errorf("name = %q", s.Name)
	}
	f := s.FrontMatter.Get("description")
	if f.Pos != (plan.Pos{File: "SKILL.md", Line: 3, Col: 1}) || f.ValuePos.Col != 14 {
		t.Errorf("description at %v / %v", f.Pos, f.ValuePos)
	}
	if s.Body.TitlePos.Line != 5 {
		t.Errorf("title at %v, want line 5 (front matter lines kept)", s.Body.TitlePos)
	}
}

const stepPhase = `# Phase 2: Analyze
One sentence.
## Execution Steps
### Step 1: Count files
- **Condition**: ` + "`state.files.length > 0`" + `
- **Confirm**: Overwrite report? (default: skip, timeout: 30s)
- **On error**: retry 3 backoff 2s
- **Timeout**: 2m

` + "```bash\nfind . -type f | wc -l > count.txt\n```" + `
### Step 2: Summarize
Prose only.
- **On error**: continue
## Step 3.1: Not a step of this phase's execution
## Output
- **File**: ` + "`count.txt`" + `
- **Format**: Text
- **Schema**: ` + "`schemas/count.json`" + `
## Next Phase
→ [Phase 3: Assemble](03-assemble.md)
`

func TestSteps(t *testing.T) {
	s := mustDir(t, writeSkill(t, map[string]string{"phases/02-analyze.md": stepPhase}))
	if len(s.Phases) != 1 {
		t.Fatalf("phases = %d", len(s.Phases))
	}
	p := s.Phases[0]
	if p.Title != "Analyze" || p.HeadingNumber != "2" || p.Description != "One sentence." {
		t.Errorf("title %q number %q description %q", p.Title, p.HeadingNumber, p.Description)
	}
	if len(p.Steps) != 2 {
		t.Fatalf("steps = %d, want 2 (Step 3.1 is outside Execution Steps)", len(p.Steps))
	}
	st := p.Steps[0]
	a := st.Attrs
	if a.Condition == nil || a.Condition.JS != "state.files.length > 0" {
		t.Errorf("condition = %+v", a.Condition)
	}
	if a.Confirm == nil || a.Confirm.Question != "Overwrite report?" || a.Confirm.Default != "skip" || a.Confirm.Timeout != 30*time.Second {
		t.Errorf("confirm = %+v", a.Confirm)
	}
	if a.OnError == nil || a.OnError.Policy != "retry" || a.OnError.Retries != 3 || a.OnError.Backoff != 2*time.Second {
		t.Errorf("on error = %+v", a.OnError)
	}
	if a.Timeout == nil || a.Timeout.Duration != 2*time.Minute || a.Timeout.Pos.Line != 8 {
		t.Errorf("timeout = %+v", a.Timeout)
	}
	if st.Kind() != plan.StepCode || st.Runnable()[0].Body.Line != 11 {
		t.Errorf("step 1 kind %s, code %+v", st.Kind(), st.Code)
	}
	if p.Steps[1].Kind() != plan.StepAgent || p.Steps[1].Attrs.OnError != nil {
		t.Errorf("step 2: kind %s, attrs %+v (a list after prose is not attributes)", p.Steps[1].Kind(), p.Steps[1].Attrs)
	}
	if len(p.Outputs) != 1 || p.Outputs[0].File != "count.txt" || p.Outputs[0].Format != "text" || p.Outputs[0].Schema != "schemas/count.json" {
		t.Errorf("outputs = %+v", p.Outputs)
	}
	if p.Next == nil || p.Next.Target != "03-assemble.md" {
		t.Errorf("next = %+v", p.Next)
	}
}

func TestStepAttributeErrors(t *testing.T) {
	src := "# P\n## Execution\n### Step 1: x\n- **Timeout**: soon\n- **On error**: explode\n- **Confirm**: ok? (default: maybe)\n"
	s := mustDir(t, writeSkill(t, map[string]string{"phases/01-x.md": src}))
	var lines []int
	for _, d := range s.Diagnostics {
		if d.Code == "step-attribute" {
			lines = append(lines, d.Pos.Line)
		}
	}
	if len(lines) != 3 || lines[0] != 4 || lines[1] != 5 || lines[2] != 6 {
		t.Errorf("step-attribute diagnostics at lines %v, want [4 5 6]", lines)
	}
}

// Retry counts and backoffs past the bounds are step-attribute errors at
// the attribute, and are clamped: a count past the int range used to wrap
// to a negative attempt total and retry forever.
func TestOnErrorBounds(t *testing.T) {
	cases := []struct {
		val     string
		retries int
		backoff time.Duration
		msg     string
	}{
		{"retry 99999999999999999999999", plan.MaxRetries, 0, "On error retry 99999999999999999999999 is more than 100 retries"},
		{"retry 101", plan.MaxRetries, 0, "On error retry 101 is more than 100 retries"},
		{"retry 1000000000 backoff 1ns", plan.MaxRetries, plan.MinBackoff, "On error retry 1000000000 is more than 100 retries; On error backoff 1ns is under 10ms"},
		{"retry 3 backoff -1s", 3, plan.MinBackoff, "On error backoff -1s is under 10ms"},
		{"retry 3 backoff 2h", 3, plan.MaxBackoff, "On error backoff 2h is over 1m0s, the longest wait between attempts"},
		{"retry 100 backoff 1m", 100, time.Minute, ""},
		{"retry 0 backoff 10ms", 0, 10 * time.Millisecond, ""},
	}
	for _, c := range cases {
		src := "# P\n## Execution\n### Step 1: x\n- **On error**: " + c.val + "\n```bash\ntrue\n```\n"
		s := mustDir(t, writeSkill(t, map[string]string{"phases/01-x.md": src}))
		var msgs []string
		for _, d := range s.Diagnostics {
			if d.Code == "step-attribute" {
				if d.Pos.Line != 4 || d.Pos.Col != 3 || d.Severity != plan.SevError {
					t.Errorf("%s: %s at %v, want an error at 4:3", c.val, d.Message, d.Pos)
				}
				msgs = append(msgs, d.Message)
			}
		}
		if got := strings.Join(msgs, "; "); got != c.msg {
			t.Errorf("%s: diagnostics %q, want %q", c.val, got, c.msg)
		}
		oe := s.Phases[0].Steps[0].Attrs.OnError
		if oe == nil || oe.Retries != c.retries || oe.Backoff != c.backoff {
			t.Errorf("%s: On error %+v, want %d retries, backoff %v", c.val, oe, c.retries, c.backoff)
		}
	}
}

func TestImplicitStepAndNoRun(t *testing.T) {
	src := "# P\n## Execution\n```js norun\nx()\n```\n```json\n{}\n```\n"
	s := mustDir(t, writeSkill(t, map[string]string{"phases/01-x.md": src}))
	st := s.Phases[0].Steps
	if len(st) != 1 || st[0].Number != "" || st[0].Kind() != plan.StepAgent || len(st[0].Code) != 2 {
		t.Errorf("steps = %+v", st)
	}
}

func TestFences(t *testing.T) {
	src := "# D\n\n````markdown\n```js\nx\n```\n````\n\n```markdown\n```javascript\ny\n```\nafter\n```\n\n```bash\nunclosed\n"
	s := mustDir(t, writeSkill(t, map[string]string{"SKILL.md": src}))
	code := s.Body.Code
	if len(code) != 3 {
		t.Fatalf("blocks = %d: %+v", len(code), code)
	}
	if code[0].Lang != "markdown" || code[0].Fence != "````" || !code[0].Closed {
		t.Errorf("block 0 = %+v", code[0])
	}
	if code[1].Lang != "markdown" || code[1].Text != "```javascript\ny\n" || !code[1].Closed {
		t.Errorf("block 1 = %+v (CommonMark: the inner closing fence closes it)", code[1])
	}
	if code[2].Closed || code[2].Pos.Line != 14 {
		t.Errorf("block 2 = %+v, want unclosed at line 14", code[2])
	}
}

func TestActionAndHints(t *testing.T) {
	src := "# Action: Process\n## Preconditions\n- [ ] state.status === 'running'\n- [ ] `state.pending_items.length > 0`\n- [ ] OR critical failure detected\n- any of:\n  - status=failed\n  - error_count>MAX_RETRIES\n## Execution\n```bash\necho '{}'\n```\n## State Updates\n```javascript\nreturn { stateUpdates: {} };\n```\n## Next Actions (Hints)\n- On success: action-process\n- On failure: [abort](action-abort.md)\n"
	s := mustDir(t, writeSkill(t, map[string]string{"actions/action-process.md": src}))
	if s.Mode != plan.ModeAutonomous || len(s.Actions) != 1 {
		t.Fatalf("mode %s, actions %d", s.Mode, len(s.Actions))
	}
	a := s.Actions[0]
	var js []string
	for _, p := range a.Preconditions {
		js = append(js, p.JS)
	}
	want := []string{"state.status === 'running'", "state.pending_items.length > 0", "", ""}
	for i := range want {
		if i >= len(js) || js[i] != want[i] {
			t.Fatalf("preconditions = %q, want %q", js, want)
		}
	}
	any := a.Preconditions[3].AnyOf
	if len(any) != 2 || any[0].JS != "state.status === 'failed'" || any[1].JS != "state.error_count > MAX_RETRIES" {
		t.Errorf("any-of = %+v", any)
	}
	if a.Execution.Kind != plan.ExecBash || a.StateUpdates == nil {
		t.Errorf("execution %s, state updates %v", a.Execution.Kind, a.StateUpdates)
	}
	if len(a.Hints) != 2 || a.Hints[0].Action != "action-process" || a.Hints[1].Action != "action-abort" || a.Hints[1].Label != "On failure" {
		t.Errorf("hints = %+v %+v", a.Hints[0], a.Hints[1])
	}
}

func TestToJS(t *testing.T) {
	for in, want := range map[string]string{
		"state.status === 'running'":      "state.status === 'running'",
		"`state.items.length > 0`":        "state.items.length > 0",
		"status=pending":                  "state.status === 'pending'",
		"counter<3, status=running":       "state.counter < 3 && state.status === 'running'",
		"error_count>MAX_RETRIES":         "state.error_count > MAX_RETRIES",
		"pending_items.length>0":          "state.pending_items.length > 0",
		"!initialized":                    "!state.initialized",
		"validation_failed":               "state.validation_failed",
		"initialized":                     "",
		"pending tasks > 0":               "",
		"OR critical failure detected":    "",
		"所有维度已审查完成":                       "",
		"state.status = 'done'":           "state.status === 'done'",
		"[x] state.done === true":         "state.done === true",
		"inputs.mode === 'fast'":          "inputs.mode === 'fast'",
		"status == \"running\"":           "state.status === 'running'",
		"state.errors.length >= 3 || !ok": "state.errors.length >= 3 || !ok",
	} {
		if got := toJS(in); got != want {
			t.Errorf("toJS(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestModes(t *testing.T) {
	for _, tc := range []struct {
		files []string
		mode  plan.Mode
	}{
		{[]string{"phases/01-a.md", "phases/02-b.md"}, plan.ModeSequential},
		{[]string{"phases/orchestrator.md", "phases/actions/action-a.md"}, plan.ModeAutonomous},
		{[]string{"phases/01-a.md", "phases/02-orchestrator.md", "phases/actions/action-a.md", "phases/03-c.md"}, plan.ModeHybrid},
		{[]string{"phases/01-a.md", "actions/action-a.md"}, plan.ModeHybrid},
		{[]string{"phases/02-orchestrator-design.md"}, plan.ModeSequential},
		{[]string{"orchestrator.md", "phases/01-a.md"}, plan.ModeSequential},
		{[]string{"README.md"}, plan.ModeUnknown},
	} {
		files := map[string]string{}
		for _, f := range tc.files {
			files[f] = "# x\n"
		}
		s := mustDir(t, writeSkill(t, files))
		if s.Mode != tc.mode {
			t.Errorf("%v: mode %s, want %s", tc.files, s.Mode, tc.mode)
		}
	}
}

func TestUnreadableAndBinary(t *testing.T) {
	dir := writeSkill(t, map[string]string{"SKILL.md": "# ok\n", "phases/01-bin.md": "# x\x00\x01"})
	if err := os.Symlink("loop", filepath.Join(dir, "phases", "loop")); err != nil {
		t.Fatal(err)
	}
	s := mustDir(t, dir)
	codes := map[string]string{}
	for _, d := range s.Diagnostics {
		codes[d.Pos.File] = d.Code
	}
	if codes["phases/01-bin.md"] != "file-binary" || codes["phases/loop"] != "file-unreadable" {
		t.Errorf("diagnostics = %v", s.Diagnostics)
	}
	if _, err := Dir(filepath.Join(dir, "SKILL.md")); err == nil {
		t.Error("a file is not a skill folder")
	}
}

func TestDeepNestingIsSkipped(t *testing.T) {
	tests := []struct {
		name, src string
		depth     int
		skipped   bool
	}{
		{"flat", "# T\n\n- a\n  - b\n    - c\n", 3, false},
		{"ordered and quoted", "> 1. > - x\n", 4, false},
		{"a long rule is no nesting", strings.Repeat("-", 5000) + "\n", 0, false},
		{"list bomb on one line", strings.Repeat("- ", 300) + "x\n", 300, true},
		{"quote bomb", "text\n" + strings.Repeat(">", 1000) + "\n", 1000, true},
		{"indentation", strings.Repeat(" ", 600) + "- x\n", 301, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, depth := deepestNesting([]byte(tt.src), lineStarts([]byte(tt.src)))
			if depth != tt.depth {
				t.Errorf("depth = %d, want %d", depth, tt.depth)
			}
			dir := t.TempDir()
			os.MkdirAll(filepath.Join(dir, "phases"), 0o755)
			os.WriteFile(filepath.Join(dir, "phases", "01-a.md"), []byte(tt.src), 0o644)
			s, err := Dir(dir)
			if err != nil {
				t.Fatal(err)
			}
			skipped := slices.ContainsFunc(s.Diagnostics, func(d plan.Diagnostic) bool { return d.Code == "file-too-deep" })
			if skipped != tt.skipped {
				t.Errorf("skipped = %v, want %v (%v)", skipped, tt.skipped, s.Diagnostics)
			}
		})
	}
}

// An "Execution Process" overview is the execution section, and the
// steps a later section spells out are still the phase's steps.
func TestStepsOutsideAnExecutionOverview(t *testing.T) {
	src := "# Phase 1: Plan\n\n## Execution Process\n\nOverview: explore, then plan.\n\n## Detailed Steps\n\n### Step 1: Explore\n\nLook.\n\n### Step 2: Plan\n\n```bash\necho plan\n```\n"
	s := mustDir(t, writeSkill(t, map[string]string{"phases/01-plan.md": src}))
	ph := s.Phases[0]
	if len(ph.Steps) != 2 || ph.Steps[0].Title != "Explore" || ph.Steps[1].KindLabel() != "bash" {
		t.Fatalf("steps = %+v, want Explore (agent) and Plan (bash)", ph.Steps)
	}
	only := "# Phase 1: Plan\n\n## 执行流程\n\n```bash\necho one\n```\n"
	if st := mustDir(t, writeSkill(t, map[string]string{"phases/01-plan.md": only})).Phases[0].Steps; len(st) != 1 || st[0].KindLabel() != "bash" {
		t.Fatalf("steps = %+v, want the 执行流程 section as one bash step", st)
	}
}

// TestHashLeavesTestsOut: a skill's tests/ (recorded by a run of it) do
// not change its hash, which a resume compares; its other files do.
func TestHashLeavesTestsOut(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	hash := func() string {
		t.Helper()
		s, err := Dir(dir)
		if err != nil {
			t.Fatal(err)
		}
		return s.Hash
	}
	write("SKILL.md", "---\nname: demo\ndescription: d\n---\n# Demo\n")
	before := hash()
	write("tests/basic.yaml", "expect: {status: completed}\n")
	if hash() != before {
		t.Error("a test file changed the skill's hash")
	}
	write("scripts/x.sh", "echo\n")
	if hash() == before {
		t.Error("a script did not change the skill's hash")
	}
}
