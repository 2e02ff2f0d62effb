package main

import (
	"encoding/json"
	"fmt"
	"github.com/skillkit/skillkit/internal/runstore/fsstore"
	"github.com/skillkit/skillkit/internal/testfs"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"
)

// The malformed skills of testdata/bad/ and those made at test time (too
// big, binary, or impossible to commit) go through plan and run: each
// command must end within its time limit, never panic, exit with its
// documented code and, where the input has one, name the position.

func frontMatter(name string) string {
	return "---\nname: " + name + "\ndescription: A malformed skill for skillkit's tests.\n---\n\n# " + name + "\n"
}

const truePhase = "# Phase 1: Step\n\n## Execution\n\n```bash\ntrue\n```\n"

// generated are the malformed skills made in a temporary folder.
var generated = map[string]func(t *testing.T, dir string){
	"binary-junk": func(t *testing.T, dir string) {
		junk := make([]byte, 64<<10)
		r := rand.New(rand.NewPCG(1, 2))
		for i := range junk {
			junk[i] = byte(r.IntN(256))
		}
		testfs.WriteTree(t, dir, map[string]string{"SKILL.md": frontMatter("binary-junk"), "phases/01-a.md": string(junk)})
	},
	"nul-in-skill-md": func(t *testing.T, dir string) {
		testfs.WriteTree(t, dir, map[string]string{"SKILL.md": frontMatter("nul-in-skill-md") + "\x00\x00\x00", "phases/01-a.md": truePhase})
	},
	"line-10mb": func(t *testing.T, dir string) {
		testfs.WriteTree(t, dir, map[string]string{"SKILL.md": frontMatter("line-10mb"),
			"phases/01-a.md": "# Phase 1: Long\n\n" + strings.Repeat("word ", 2<<20) + "\n\n## Execution\n\n```bash\ntrue\n```\n"})
	},
	"file-over-16mb": func(t *testing.T, dir string) {
		testfs.WriteTree(t, dir, map[string]string{"SKILL.md": frontMatter("file-over-16mb"),
			"phases/01-a.md": truePhase + strings.Repeat("filler line of a stray dump\n", 17<<20/28)})
	},
	"catalog-1000-actions": func(t *testing.T, dir string) {
		var b strings.Builder
		b.WriteString("# Action Catalog\n\n| Action | Preconditions |\n|---|---|\n")
		for i := range 1000 {
			fmt.Fprintf(&b, "| [action-%d](../phases/actions/action-%d.md) | `status=running`, n<%d |\n", i, i, i)
		}
		testfs.WriteTree(t, dir, map[string]string{"SKILL.md": frontMatter("catalog-1000-actions"), "specs/action-catalog.md": b.String(),
			"phases/orchestrator.md": "# Orchestrator\n\n## Decision Logic\n\n```javascript\nfunction selectNextAction(state) { return null; }\n```\n"})
	},
	"actions-1000-files": func(t *testing.T, dir string) {
		files := map[string]string{"SKILL.md": frontMatter("actions-1000-files"),
			"phases/orchestrator.md": "# Orchestrator\n\n## Decision Logic\n\n```javascript\nfunction selectNextAction(state) { return null; }\n```\n"}
		for i := range 1000 {
			files[fmt.Sprintf("phases/actions/action-%d.md", i)] = fmt.Sprintf("# Action: %d\n\n## Preconditions\n\n- [ ] n<%d\n\n## Execution\n\n```javascript\nfunction execute(state) { return {}; }\n```\n", i, i)
		}
		testfs.WriteTree(t, dir, files)
	},
	"mermaid-10000-edges": func(t *testing.T, dir string) {
		var b strings.Builder
		b.WriteString("# Orchestrator\n\n```mermaid\ngraph TD\n")
		for i := range 10000 {
			fmt.Fprintf(&b, "  A%d[action-%d] --> A%d[action-%d]\n", i, i%100, i+1, (i+1)%100)
		}
		b.WriteString("```\n\n## Decision Logic\n\n```javascript\nfunction selectNextAction(state) { return null; }\n```\n")
		testfs.WriteTree(t, dir, map[string]string{"SKILL.md": frontMatter("mermaid-10000-edges"), "phases/orchestrator.md": b.String()})
	},
	"nested-lists-1000": func(t *testing.T, dir string) {
		var b strings.Builder
		b.WriteString("# Phase 1: Nested\n\n")
		for i := range 1000 {
			b.WriteString(strings.Repeat("  ", i) + "- level\n")
		}
		b.WriteString("\n## Execution\n\n```bash\ntrue\n```\n")
		testfs.WriteTree(t, dir, map[string]string{"SKILL.md": frontMatter("nested-lists-1000"), "phases/01-a.md": b.String()})
	},
	"nested-quotes-100000": func(t *testing.T, dir string) {
		testfs.WriteTree(t, dir, map[string]string{"SKILL.md": frontMatter("nested-quotes-100000"),
			"phases/01-a.md": truePhase + "\n" + strings.Repeat(">", 100000) + " deep\n"})
	},
	"steps-100000": func(t *testing.T, dir string) {
		var b strings.Builder
		b.WriteString("# Phase 1: Many\n\n## Execution Steps\n\n")
		for i := range 100000 {
			fmt.Fprintf(&b, "### Step %d: s\n- **Timeout**: 1s\n", i+1)
		}
		testfs.WriteTree(t, dir, map[string]string{"SKILL.md": frontMatter("steps-100000"), "phases/01-a.md": b.String()})
	},
	"condition-100000-parens": func(t *testing.T, dir string) {
		testfs.WriteTree(t, dir, map[string]string{"SKILL.md": frontMatter("condition-100000-parens"),
			"phases/01-a.md": "# Phase 1: Deep\n\n## Execution Steps\n\n### Step 1: s\n- **Condition**: " + strings.Repeat("(", 100000) + "state.x" + strings.Repeat(")", 100000) + "\n\n```bash\ntrue\n```\n"})
	},
	"symlink-loop": func(t *testing.T, dir string) {
		testfs.WriteTree(t, dir, map[string]string{"SKILL.md": frontMatter("symlink-loop"), "phases/01-a.md": truePhase})
		for _, l := range [][2]string{{"02-b.md", "03-c.md"}, {"03-c.md", "02-b.md"}, {"self", "self"}} {
			if err := os.Symlink(l[1], filepath.Join(dir, "phases", l[0])); err != nil {
				t.Skip("no symlinks here:", err)
			}
		}
	},
	"unreadable-phase": func(t *testing.T, dir string) {
		testfs.WriteTree(t, dir, map[string]string{"SKILL.md": frontMatter("unreadable-phase"), "phases/01-a.md": truePhase, "phases/02-b.md": truePhase})
		p := filepath.Join(dir, "phases", "02-b.md")
		os.Chmod(p, 0)
		t.Cleanup(func() { os.Chmod(p, 0o644) })
		if _, err := os.ReadFile(p); err == nil {
			t.Skip("running as root: a chmod 000 file is still readable, so there is nothing to test")
		}
	},
	"skill-md-is-a-folder": func(t *testing.T, dir string) {
		testfs.WriteTree(t, dir, map[string]string{"SKILL.md/x": "x", "phases/01-a.md": truePhase})
	},
}

// resumeCases damage the run directory of an interrupted run of a good
// skill before `run --resume`.
var resumeCases = map[string]func(t *testing.T, runDir string){
	"state-not-json": func(t *testing.T, d string) { write(t, d, fsstore.StateFile, "{\n  \"status\": running\n}\n") },
	"state-truncated": func(t *testing.T, d string) {
		write(t, d, fsstore.StateFile, "{\n  \"status\": \"running\",\n  \"items\": [1, 2")
	},
	"state-deleted":     func(t *testing.T, d string) { os.Remove(filepath.Join(d, fsstore.StateFile)) },
	"progress-not-yaml": func(t *testing.T, d string) { write(t, d, fsstore.ProgressFile, "runId: x\n\tskill: [\n") },
	"progress-deleted":  func(t *testing.T, d string) { os.Remove(filepath.Join(d, fsstore.ProgressFile)) },
	"progress-truncated": func(t *testing.T, d string) {
		data, _ := os.ReadFile(filepath.Join(d, fsstore.ProgressFile))
		write(t, d, fsstore.ProgressFile, string(data[:len(data)/3]))
	},
	"events-cut-in-first-line": func(t *testing.T, d string) {
		data, _ := os.ReadFile(filepath.Join(d, fsstore.EventsFile))
		write(t, d, fsstore.EventsFile, string(data[:40]))
	},
	"claim-garbage": func(t *testing.T, d string) { write(t, d, fsstore.ClaimFile, "\x00\x01 not a claim") },
	// A holder on another host whose clock is an hour ahead, and whose
	// heartbeat stands still: one resume watches it for its lease (1 s
	// here) and takes the run over (F13: refused for good).
	"claim-from-the-future": func(t *testing.T, d string) {
		beat := time.Now().Add(time.Hour).UTC().Format(time.RFC3339Nano)
		write(t, d, fsstore.ClaimFile, `{"pid": 1, "host": "elsewhere", "started": "`+beat+`", "heartbeat": "`+beat+`", "timeout_ms": 1000, "token": "ahead"}`)
	},
	"events-garbage": func(t *testing.T, d string) { write(t, d, fsstore.EventsFile, "garbage\n{\"to\":") },
	"events-torn-last-line": func(t *testing.T, d string) {
		f, err := os.OpenFile(filepath.Join(d, fsstore.EventsFile), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		f.WriteString(`{"time":"2026-11-22T10:00:00Z","run":"x","pha`)
	},
	"events-damaged-mid-log": func(t *testing.T, d string) {
		data, err := os.ReadFile(filepath.Join(d, fsstore.EventsFile))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.SplitAfter(string(data), "\n")
		lines[2] = "{\"time\": nonsense}\n"
		write(t, d, fsstore.EventsFile, strings.Join(lines, ""))
	},
	"run-dir-is-not-a-folder": func(t *testing.T, d string) { os.RemoveAll(d); write(t, filepath.Dir(d), filepath.Base(d), "x") },
}

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// runLimited runs the CLI in-process with a time limit, turning a panic or
// a hang into a test failure instead of a crash or a stuck test binary.
func runLimited(t *testing.T, limit time.Duration, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	type result struct {
		code        int
		out, errOut string
		panicked    string
	}
	done := make(chan result, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- result{panicked: fmt.Sprintf("%v\n%s", p, debug.Stack())}
			}
		}()
		c, o, e := run(args...)
		done <- result{code: c, out: o, errOut: e}
	}()
	select {
	case r := <-done:
		if r.panicked != "" {
			t.Fatalf("skillkit %s panicked: %s", strings.Join(args, " "), r.panicked)
		}
		return r.code, r.out, r.errOut
	case <-time.After(limit):
		t.Fatalf("skillkit %s did not end within %v", strings.Join(args, " "), limit)
	}
	return
}

// outcome is what one command must do: exit with code, and print (stdout
// and stderr together) something matching match when it is set.
type outcome struct {
	code  int
	match string
}

// badCase is what lint, plan and run do on one malformed skill.
type badCase struct{ lint, plan, run outcome }

// Positions as the commands print them: file:line:col, or file: for a
// finding about a whole file.
const (
	at     = `\.md:\d+:\d+: `
	inFile = `\.md(?::1)?: `
)

var (
	clean    = outcome{0, ""}
	planned  = outcome{0, ""}
	planErr  = func(m string) outcome { return outcome{0, m} }
	lintErr  = func(m string) outcome { return outcome{1, m} }
	lintWarn = func(m string) outcome { return outcome{0, m} }
	refused  = func(m string) outcome { return outcome{2, m + `(?s).*lint error\(s\) above make the skill unrunnable`} }
	runFails = func(m string) outcome { return outcome{1, m} }
	// warned is a run that prints a lint error as a warning (the run
	// gate lets it through) and ends with code and then. The warning is
	// on stderr and then may be on either stream, so either order does.
	warned = func(warning string, code int, then string) outcome {
		return outcome{code, `(?s)(?:` + warning + `.*` + then + `|` + then + `.*` + warning + `)`}
	}
	nothingRun = outcome{2, `no numbered phase, orchestrator or action to run`}
	completes  = outcome{0, `completed`}
)

// badCases says, for every case of testdata/bad/ and of generated, what
// each command does. Every case must be listed.
var badCases = map[string]badCase{
	"action-update-breaks-schema": {lintErr(at + `error: action-a sets state.count to .many.`), planned, warned(`warning: .*\[state-update-type\]`, 1, `breaks the state schema`)},
	"actions-1000-files":          {lintWarn(`action-unreachable`), planned, completes},
	"bad-step-attributes":         {lintErr(`01-a.md:6:3: error: Timeout "soon"`), planErr(`01-a.md:7:3: On error "sometimes"`), refused(`01-a.md:8:3: error: Confirm default "maybe"`)},
	"bash-syntax-error":           {lintErr(`01-a.md:6:1: error: shell does not parse`), planned, warned(`01-a.md:6:1: warning: shell does not parse`, 2, `step 01-a#1 .*needs the agent: bash does not parse`)},
	"binary-junk":                 {lintErr(inFile + `error: file holds NUL bytes`), planErr(inFile + `file holds NUL bytes`), refused(inFile + `error: file holds NUL bytes`)},
	"output-outside":              {lintErr(`01-a.md:11:3: error: the file ../../../../tmp/x is outside the work dir`), planned, refused(`01-a.md:11:3: error: .*\[output-path-outside\]`)},
	"catalog-1000-actions":        {lintErr(`action-catalog.md:1004:\d+: error: the action catalog names action action-999`), planned, warned(`warning: .*\[action-missing\]`, 0, `completed`)},
	"condition-100000-parens":     {clean, planned, outcome{0, `condition is false`}},
	"condition-infinite-loop":     {clean, planned, runFails(`01-a.md:6:29: evaluation timed out after 5s`)},
	"cr-only-lines":               {clean, planErr(`step 2 +bash +Check`), outcome{0, `step 01-a#2 Check: completed`}},
	"crlf-bom":                    {clean, planned, completes},
	"cyclic-next-phase":           {clean, planned, completes},
	"duplicate-phase-numbers":     {lintErr(`01-b.md:1:1: error: phase number 1 is also 01-a.md`), planned, refused(`phase-number-duplicate`)},
	"empty-skill":                 {outcome{2, `no skill found`}, planned, nothingRun},
	"empty-html-comment":          {clean, planned, completes},
	"file-over-16mb":              {lintErr(inFile + `error: file is \d+ bytes, over the`), planErr(`over the 16777216-byte limit`), refused(`file-unreadable`)},
	"frontmatter-alias-bomb":      {lintWarn(`SKILL.md:4:1: warning: key "a"`), planned, completes},
	"frontmatter-invalid-yaml":    {lintErr(`SKILL.md:2:1: error: front matter is not valid YAML`), planErr(`SKILL.md:2:1: front matter is not valid YAML`), warned(`SKILL.md:2:1: warning`, 0, `completed`)},
	"frontmatter-not-mapping":     {lintErr(`SKILL.md:2:1: error: front matter must be a mapping`), planErr(`SKILL.md:2:1`), warned(`SKILL.md:2:1: warning`, 0, `completed`)},
	"huge-phase-number":           {lintWarn(`99999999999999999999999-x.md:1:1: warning`), planned, completes},
	"initial-state-not-json":      {lintErr(`state-schema.md:10:1: error: Initial State block is not valid JSON`), planErr(`state-schema.md:10:1`), warned(`warning: .*\[state-initial-json\]`, 0, `completed`)},
	"invalid-utf8":                {lintWarn(`01-a.md:1:1: warning: file is not valid UTF-8`), planned, completes},
	"js-infinite-loop":            {clean, planned, runFails(`01-a.md:8:1: step 01-a#1: timed out after 1s`)},
	"js-syntax-error":             {lintErr(`01-a.md:6:11: error: JavaScript does not parse`), planned, warned(`01-a.md:6:11: warning: JavaScript does not parse`, 2, `step 01-a#1 .*needs the agent: JavaScript does not parse`)},
	"line-10mb":                   {clean, planned, completes},
	"mermaid-10000-edges":         {clean, planned, completes},
	"nested-lists-1000":           {lintErr(`01-a.md:\d+:1: error: blocks nest \d+ deep`), planErr(`file-too-deep`), refused(`file-too-deep`)},
	"nested-quotes-100000":        {lintErr(`01-a.md:9:1: error: blocks nest 100000 deep`), planErr(`file-too-deep`), refused(`file-too-deep`)},
	"next-phase-missing":          {lintErr(`01-a.md:11:3: error: link target 09-nowhere.md does not exist`), planned, warned(`warning: .*\[link-broken\]`, 0, `completed`)},
	"nul-in-skill-md":             {lintErr(`SKILL.md:1: error: file holds NUL bytes`), planErr(`SKILL.md: file holds NUL bytes`), refused(`file-binary`)},
	"orchestrator-never-null":     {lintWarn(`orchestrator.md:6:10: warning: selectNextAction never returns null`), planned, runFails(`orchestrator.md:5:1: no progress: action action-again completed 3 times in a row without changing the state`)},
	"orchestrator-select-loops":   {lintWarn(`action-unreachable`), planned, runFails(`orchestrator.md:7:3: evaluation timed out after 5s`)},
	"output-missing":              {lintErr(`01-a.md:11:3: error: output report.json is declared`), planned, runFails(`01-a.md:11:3: output report.json: not found`)},
	"output-not-json":             {clean, planned, runFails(`01-a.md:11:3: output report.json: not valid JSON`)},
	"phases-is-file":              {lintWarn(`phases:1: info: phases is a file, not a folder`), planned, outcome{1, `SKILL.md:1:1: step SKILL#1 goes to the agent \(phases is a file, not a folder`}},
	"retry-overflow":              {lintErr(`01-a.md:6:3: error: On error retry 99999999999999999999999 is more than 100 retries`), planErr(`01-a.md:13:3: On error backoff 1ns is under 10ms`), refused(`01-a.md:13:3: error: On error retry 1000000000 is more than 100 retries`)},
	"skill-md-is-a-folder":        {clean, planned, completes},
	"state-schema-self-reference": {lintWarn(`state-schema.md:5:13: info: type Loop is defined in terms of itself`), planned, completes},
	"steps-100000":                {clean, planned, outcome{2, `01-a.md:5:1: step 01-a#1 .*needs the agent: prose: no runnable block(?s).*and 99980 more`}},
	"symlink-loop":                {lintErr(`02-b.md:1: error: cannot read: too many levels of symbolic links`), planErr(`self: cannot read`), refused(`file-unreadable`)},
	"unclosed-fence":              {lintErr(`01-a.md:5:1: error: ` + "```" + ` fence opened here is never closed`), planned, warned(`warning: .*\[fence-unclosed\]`, 1, `step 01-a#1: bash: exit status 127`)},
	"unreadable-phase":            {lintErr(`02-b.md:1: error: cannot read: permission denied`), planErr(`02-b.md: cannot read`), refused(`file-unreadable`)},
	"unterminated-frontmatter":    {lintErr(`SKILL.md:1:1: error: front matter opened with --- at line 1 is never closed`), planErr(`SKILL.md:1:1`), warned(`SKILL.md:1:1: warning`, 0, `completed`)},
}

// limit is how long one command may take on a malformed skill; the
// slowest cases (a 5 s evaluation limit, 10 MB files) take a few seconds.
const limit = 30 * time.Second

func check(t *testing.T, o outcome, args ...string) {
	t.Helper()
	code, stdout, stderr := runLimited(t, limit, args...)
	if code == ExitInternal {
		t.Errorf("skillkit %s: exit 3 (internal failure):\n%s", args[0], trunc(stderr))
	}
	if code != o.code {
		t.Errorf("skillkit %s: exit %d, want %d\nstdout: %s\nstderr: %s", args[0], code, o.code, trunc(stdout), trunc(stderr))
	}
	if o.match != "" && !regexp.MustCompile(o.match).MatchString(stdout+stderr) {
		t.Errorf("skillkit %s: output does not match %q\nstdout: %s\nstderr: %s", args[0], o.match, trunc(stdout), trunc(stderr))
	}
}

func TestBadSkills(t *testing.T) {
	ents, err := os.ReadDir("testdata/bad")
	if err != nil {
		t.Fatal(err)
	}
	names := slices.Collect(maps.Keys(generated))
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if len(names) < 30 {
		t.Errorf("%d malformed skills; the suite promises at least 30", len(names))
	}
	for _, n := range names {
		if _, ok := badCases[n]; !ok {
			t.Errorf("%s: no expectations in badCases", n)
		}
	}
	for _, n := range names {
		t.Run(n, func(t *testing.T) {
			t.Parallel()
			want := badCases[n]
			dir := filepath.Join("testdata/bad", n)
			if g := generated[n]; g != nil {
				dir = filepath.Join(t.TempDir(), n)
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				g(t, dir)
			}
			check(t, want.lint, "lint", dir)
			check(t, want.plan, "plan", dir)
			check(t, want.run, "run", dir, "--workdir", filepath.Join(t.TempDir(), "run"))
			if want.run.code == ExitUsage && !strings.Contains(want.run.match, "needs the agent") {
				// The dry run applies the run's gate: it refuses alike,
				// and says so. It shows agent work instead of refusing
				// it.
				check(t, outcome{ExitUsage, `a run would refuse this skill|invalid skill`}, "run", "--dry-run", dir)
			}
		})
	}
}

// TestDamagedRunDirs damages the run directory of an interrupted run in
// each way of resumeCases and resumes it.
func TestDamagedRunDirs(t *testing.T) {
	skill := filepath.Join(t.TempDir(), "resumable")
	testfs.WriteTree(t, skill, map[string]string{
		"SKILL.md":       frontMatter("resumable"),
		"phases/01-a.md": truePhase,
		// Phase 2 is agent work: without --agent the run stops there,
		// interrupted and resumable.
		"phases/02-b.md": "# Phase 2: Ask\n\n## Execution\n\nSummarize the work so far.\n",
	})
	want := map[string]outcome{
		// The snapshots are rebuilt from the event log, the record.
		"state-not-json":    {1, `needs an agent`},
		"state-truncated":   {1, `needs an agent`},
		"state-deleted":     {1, `needs an agent`},
		"progress-not-yaml": {1, `needs an agent`},
		"progress-deleted":  {1, `needs an agent`},
		// A truncated skill-state.yaml is a snapshot cut short: rebuilt.
		"progress-truncated":    {1, `needs an agent`},
		"claim-garbage":         {1, `needs an agent`},
		"claim-from-the-future": {1, `(?s)note: the claim of 1@elsewhere, its heartbeat [0-9hms]+ ahead of this clock, stood still for [0-9]s: taken over.*needs an agent`},
		// The record itself: a torn last line is a killed writer's, and
		// ignored with a note; damage before it stops, with its position.
		"events-torn-last-line":    {1, `(?s)note: .*events.jsonl:\d+: the last line was cut short.*needs an agent`},
		"events-damaged-mid-log":   {2, `events.jsonl:3:11: run record is damaged`},
		"events-garbage":           {2, `events.jsonl:1:1: run record is damaged`},
		"events-cut-in-first-line": {2, `events.jsonl:1: no run: its first line was cut short`},
		"run-dir-is-not-a-folder":  {2, `no run`},
	}
	for name, damage := range resumeCases {
		t.Run(name, func(t *testing.T) {
			run := filepath.Join(t.TempDir(), "run")
			check(t, outcome{1, `needs an agent`}, "run", skill, "--partial", "--workdir", run)
			damage(t, run)
			check(t, want[name], "run", skill, "--resume", run)
		})
	}
	t.Run("unknown-run", func(t *testing.T) {
		check(t, outcome{2, `no run`}, "run", skill, "--resume", filepath.Join(t.TempDir(), "nowhere"))
	})
}

func trunc(s string) string {
	if len(s) > 600 {
		return s[:600] + "…"
	}
	return s
}

// TestStateDeletedBetweenIterations deletes state.json from inside an
// action of an autonomous run: the loop holds the state and writes it
// whole after the action, so the run completes with every update.
func TestStateDeletedBetweenIterations(t *testing.T) {
	skill := filepath.Join(t.TempDir(), "deleter")
	testfs.WriteTree(t, skill, map[string]string{
		"SKILL.md": frontMatter("deleter"),
		"phases/orchestrator.md": "# Orchestrator\n\n## Decision Logic\n\n```javascript\nfunction selectNextAction(state) {\n" +
			"  if (!state.a) return 'action-a';\n  if (!state.b) return 'action-b';\n  return null;\n}\n```\n",
		"phases/actions/action-a.md": "# Action: A\n\n## Execution\n\n```bash\nrm state.json\necho '{\"stateUpdates\": {\"a\": 1}}'\n```\n",
		"phases/actions/action-b.md": "# Action: B\n\n## Execution\n\n```bash\nrm state.json\necho '{\"stateUpdates\": {\"b\": 2}}'\n```\n",
	})
	run := filepath.Join(t.TempDir(), "run")
	check(t, completes, "run", skill, "--workdir", run)
	var st map[string]any
	data, err := os.ReadFile(filepath.Join(run, fsstore.StateFile))
	if err == nil {
		err = json.Unmarshal(data, &st)
	}
	if err != nil {
		t.Fatal(err)
	}
	done, _ := st["completed_actions"].([]any)
	if st["a"] != 1.0 || st["b"] != 2.0 || len(done) != 2 || st["status"] != "completed" {
		t.Fatalf("state after the run = %v", st)
	}
}
