package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/skillkit/skillkit/store"
)

// The malformed skills of testdata/bad/ and those made at test time (too
// big, binary, or impossible to commit) go through plan and run: each
// command must end within its time limit, never panic, exit with its
// documented code and, where the input has one, name the position.

// writeSkill writes files (path → content) under dir.
func writeSkill(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

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
		writeSkill(t, dir, map[string]string{"SKILL.md": frontMatter("binary-junk"), "phases/01-a.md": string(junk)})
	},
	"nul-in-skill-md": func(t *testing.T, dir string) {
		writeSkill(t, dir, map[string]string{"SKILL.md": frontMatter("nul-in-skill-md") + "\x00\x00\x00", "phases/01-a.md": truePhase})
	},
	"line-10mb": func(t *testing.T, dir string) {
		writeSkill(t, dir, map[string]string{"SKILL.md": frontMatter("line-10mb"),
			"phases/01-a.md": "# Phase 1: Long\n\n" + strings.Repeat("word ", 2<<20) + "\n\n## Execution\n\n```bash\ntrue\n```\n"})
	},
	"file-over-16mb": func(t *testing.T, dir string) {
		writeSkill(t, dir, map[string]string{"SKILL.md": frontMatter("file-over-16mb"),
			"phases/01-a.md": truePhase + strings.Repeat("filler line of a stray dump\n", 17<<20/28)})
	},
	"catalog-1000-actions": func(t *testing.T, dir string) {
		var b strings.Builder
		b.WriteString("# Action Catalog\n\n| Action | Preconditions |\n|---|---|\n")
		for i := range 1000 {
			fmt.Fprintf(&b, "| [action-%d](../phases/actions/action-%d.md) | `status=running`, n<%d |\n", i, i, i)
		}
		writeSkill(t, dir, map[string]string{"SKILL.md": frontMatter("catalog-1000-actions"), "specs/action-catalog.md": b.String(),
			"phases/orchestrator.md": "# Orchestrator\n\n## Decision Logic\n\n```javascript\nfunction selectNextAction(state) { return null; }\n```\n"})
	},
	"actions-1000-files": func(t *testing.T, dir string) {
		files := map[string]string{"SKILL.md": frontMatter("actions-1000-files"),
			"phases/orchestrator.md": "# Orchestrator\n\n## Decision Logic\n\n```javascript\nfunction selectNextAction(state) { return null; }\n```\n"}
		for i := range 1000 {
			files[fmt.Sprintf("phases/actions/action-%d.md", i)] = fmt.Sprintf("# Action: %d\n\n## Preconditions\n\n- [ ] n<%d\n\n## Execution\n\n```javascript\nfunction execute(state) { return {}; }\n```\n", i, i)
		}
		writeSkill(t, dir, files)
	},
	"mermaid-10000-edges": func(t *testing.T, dir string) {
		var b strings.Builder
		b.WriteString("# Orchestrator\n\n```mermaid\ngraph TD\n")
		for i := range 10000 {
			fmt.Fprintf(&b, "  A%d[action-%d] --> A%d[action-%d]\n", i, i%100, i+1, (i+1)%100)
		}
		b.WriteString("```\n\n## Decision Logic\n\n```javascript\nfunction selectNextAction(state) { return null; }\n```\n")
		writeSkill(t, dir, map[string]string{"SKILL.md": frontMatter("mermaid-10000-edges"), "phases/orchestrator.md": b.String()})
	},
	"nested-lists-1000": func(t *testing.T, dir string) {
		var b strings.Builder
		b.WriteString("# Phase 1: Nested\n\n")
		for i := range 1000 {
			b.WriteString(strings.Repeat("  ", i) + "- level\n")
		}
		b.WriteString("\n## Execution\n\n```bash\ntrue\n```\n")
		writeSkill(t, dir, map[string]string{"SKILL.md": frontMatter("nested-lists-1000"), "phases/01-a.md": b.String()})
	},
	"nested-quotes-100000": func(t *testing.T, dir string) {
		writeSkill(t, dir, map[string]string{"SKILL.md": frontMatter("nested-quotes-100000"),
			"phases/01-a.md": truePhase + "\n" + strings.Repeat(">", 100000) + " deep\n"})
	},
	"steps-100000": func(t *testing.T, dir string) {
		var b strings.Builder
		b.WriteString("# Phase 1: Many\n\n## Execution Steps\n\n")
		for i := range 100000 {
			fmt.Fprintf(&b, "### Step %d: s\n- **Timeout**: 1s\n", i+1)
		}
		writeSkill(t, dir, map[string]string{"SKILL.md": frontMatter("steps-100000"), "phases/01-a.md": b.String()})
	},
	"condition-100000-parens": func(t *testing.T, dir string) {
		writeSkill(t, dir, map[string]string{"SKILL.md": frontMatter("condition-100000-parens"),
			"phases/01-a.md": "# Phase 1: Deep\n\n## Execution Steps\n\n### Step 1: s\n- **Condition**: " + strings.Repeat("(", 100000) + "state.x" + strings.Repeat(")", 100000) + "\n\n```bash\ntrue\n```\n"})
	},
	"symlink-loop": func(t *testing.T, dir string) {
		writeSkill(t, dir, map[string]string{"SKILL.md": frontMatter("symlink-loop"), "phases/01-a.md": truePhase})
		for _, l := range [][2]string{{"02-b.md", "03-c.md"}, {"03-c.md", "02-b.md"}, {"self", "self"}} {
			if err := os.Symlink(l[1], filepath.Join(dir, "phases", l[0])); err != nil {
				t.Skip("no symlinks here:", err)
			}
		}
	},
	"unreadable-phase": func(t *testing.T, dir string) {
		writeSkill(t, dir, map[string]string{"SKILL.md": frontMatter("unreadable-phase"), "phases/01-a.md": truePhase, "phases/02-b.md": truePhase})
		p := filepath.Join(dir, "phases", "02-b.md")
		os.Chmod(p, 0)
		t.Cleanup(func() { os.Chmod(p, 0o644) })
		if _, err := os.ReadFile(p); err == nil {
			t.Skip("running as root: a chmod 000 file is still readable, so there is nothing to test")
		}
	},
	"skill-md-is-a-folder": func(t *testing.T, dir string) {
		writeSkill(t, dir, map[string]string{"SKILL.md/x": "x", "phases/01-a.md": truePhase})
	},
}

// resumeCases damage the run directory of an interrupted run of a good
// skill before `run --resume`.
var resumeCases = map[string]func(t *testing.T, runDir string){
	"state-not-json":          func(t *testing.T, d string) { write(t, d, store.StateFile, "{\n  \"status\": running\n}\n") },
	"state-truncated":         func(t *testing.T, d string) { write(t, d, store.StateFile, "{\n  \"status\": \"running\",\n  \"items\": [1, 2") },
	"state-deleted":           func(t *testing.T, d string) { os.Remove(filepath.Join(d, store.StateFile)) },
	"progress-not-yaml":       func(t *testing.T, d string) { write(t, d, store.ProgressFile, "runId: x\n\tskill: [\n") },
	"progress-deleted":        func(t *testing.T, d string) { os.Remove(filepath.Join(d, store.ProgressFile)) },
	"claim-garbage":           func(t *testing.T, d string) { write(t, d, store.ClaimFile, "\x00\x01 not a claim") },
	"events-garbage":          func(t *testing.T, d string) { write(t, d, store.EventsFile, "garbage\n{\"to\":") },
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

var position = regexp.MustCompile(`[\w./-]+\.(md|json|yaml):\d+(:\d+)?`)

func TestBadSkillsExplore(t *testing.T) {
	ents, _ := os.ReadDir("testdata/bad")
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	for n := range generated {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		t.Run(n, func(t *testing.T) {
			dir := filepath.Join("testdata/bad", n)
			if g := generated[n]; g != nil {
				dir = filepath.Join(t.TempDir(), n)
				os.MkdirAll(dir, 0o755)
				g(t, dir)
			}
			start := time.Now()
			c, _, e := runLimited(t, 60*time.Second, "plan", dir)
			t.Logf("plan %d %v %q", c, time.Since(start), trunc(e))
			start = time.Now()
			c, o, e := runLimited(t, 60*time.Second, "run", dir, "--workdir", filepath.Join(t.TempDir(), "run"))
			t.Logf("run %d %v %q %q", c, time.Since(start), trunc(e), trunc(o))
		})
	}
}

func trunc(s string) string {
	if len(s) > 400 {
		return s[:400] + "…"
	}
	return s
}

var _ = bytes.Compare
