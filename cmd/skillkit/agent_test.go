package main

import (
	"html"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/skillkit/skillkit/internal/testagent"
	"github.com/skillkit/skillkit/internal/testfs"
)

// claudeStandIn puts testagent's claude first on PATH, keeping its
// sessions as the real CLI does, and returns the folder of its state.
func claudeStandIn(t *testing.T) string {
	t.Helper()
	bin, state := t.TempDir(), t.TempDir()
	must(t, testagent.ClaudeOnPath(bin))
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv(testagent.ClaudeStateEnv, state)
	return state
}

// agentSkill is a skill of one agent step and an agent action.
func agentSkill(t *testing.T) string {
	skill := filepath.Join(t.TempDir(), "asks")
	testfs.WriteTree(t, skill, map[string]string{
		"SKILL.md":                    frontMatter("asks"),
		"phases/01-a.md":              "# Phase 1: Ask\n\n## Execution\n\n### Step 1: Think\n\nThink hard.\n",
		"phases/02-orchestrator.md":   "# Orchestrator\n\n## Decision Logic\n\n```javascript\nfunction selectNextAction(state) {\n  return (state.completed_actions || []).length ? null : 'action-do';\n}\n```\n",
		"phases/actions/action-do.md": "# Action: Do\n\n## Execution\n\nDo the thing.\n",
	})
	return skill
}

// Claude Code without a login: its words reach the terminal, status and
// the report; the retry after a login resumes the session the failed
// call saved (the stand-in refuses a second --session-id as the real CLI
// does) and the run completes.
func TestClaudeNotLoggedInThenRetry(t *testing.T) {
	state := claudeStandIn(t)
	testfs.WriteFile(t, filepath.Join(state, testagent.LoggedOut), "")
	skill, run := agentSkill(t), filepath.Join(t.TempDir(), "run")
	const words = `agent "claude" \(step request\): Not logged in · Please run /login`
	check(t, outcome{1, `(?s)` + words + `.*skillkit run .* --resume \S+ --retry`}, "run", skill, "--workdir", run, "--agent", "claude")
	check(t, outcome{0, `(?s)state:\s+failed.*Not logged in · Please run /login`}, "status", run)
	page := filepath.Join(t.TempDir(), "report.html")
	check(t, outcome{0, ""}, "report", run, "--html", page)
	if got := testfs.ReadFile(t, page); !regexpMatch(words, html.UnescapeString(got)) {
		t.Errorf("the report does not show claude's words")
	}
	must(t, os.Remove(filepath.Join(state, testagent.LoggedOut)))
	check(t, outcome{0, ""}, "run", skill, "--resume", run, "--retry", "--agent", "claude")
	metrics := testfs.ReadFile(t, filepath.Join(run, "metrics.jsonl"))
	// The failed call recorded the session Claude Code saved; the retry
	// went on with it.
	if !regexpMatch(`"outcome":"failed","request":"step","call":1,"session":"[0-9a-f-]{36}"`, metrics) ||
		!regexpMatch(`"kind":"agent".*"context_window":1000000`, metrics) {
		t.Errorf("metrics.jsonl lacks the agent's usage:\n%s", metrics)
	}
}

// run --agent X checks X first, as skillkit doctor does, and stops with
// the fix.
func TestRunChecksTheAgentFirst(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	check(t, outcome{1, `agent "codex" cannot work: not installed \(codex is not on PATH\); fix: npm install -g @openai/codex`},
		"run", agentSkill(t), "--workdir", filepath.Join(t.TempDir(), "run"), "--agent", "codex")
}

func regexpMatch(pattern, s string) bool { return regexp.MustCompile(pattern).MatchString(s) }
