package main

import (
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/skillkit/skillkit/internal/realtool"
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

// agentOnPath puts a stand-in named name first on PATH: it answers
// skillkit doctor's status commands as the real CLI does when logged in,
// and runs body for a call.
func agentOnPath(t *testing.T, name, body string) {
	t.Helper()
	bin := t.TempDir()
	status := map[string]string{
		"claude": `--version) echo '2.1.197 (Claude Code)'; exit 0;;
auth) echo '{"loggedIn": true, "authMethod": "claude.ai", "apiProvider": "firstParty"}'; exit 0;;`,
		"codex": `--version) echo 'codex-cli 0.169.0'; exit 0;;
login) echo 'Logged in using ChatGPT'; exit 0;;`,
	}[name]
	testfs.WriteFile(t, filepath.Join(bin, name), "#!/bin/sh\ncase \"$1\" in\n"+status+"\nesac\ncat >/dev/null\n"+body+"\n")
	must(t, os.Chmod(filepath.Join(bin, name), 0o755))
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// A CLI that answers badly fails the call with a clear message and
// leaves the run resumable; never a hang, never a panic.
func TestAgentBadOutput(t *testing.T) {
	const init = `echo '{"type":"system","subtype":"init","session_id":"5a1e0000-0000-4000-8000-000000000001"}'`
	cases := []struct{ name, agent, body, match string }{
		{"invalid JSON", "claude", `echo 'Traceback (most recent call last): {oops'`, `reading claude.s stream-json output: 1 line\(s\) are not JSON, and no result came`},
		{"half a stream", "claude", init, `claude's output ended before its result \(half a stream\)`},
		{"exit mid-stream", "codex", `echo '{"type":"thread.started","thread_id":"t1"}'; echo '{"type":"turn.started"}'; kill -9 $$`, `codex was killed \(signal: killed\) before its turn completed`},
		{"exit 0 with is_error", "claude", init + `; echo '{"type":"result","subtype":"error_max_turns","is_error":true,"num_turns":30,"result":"","session_id":"5a1e0000-0000-4000-8000-000000000001"}'`, `claude reported error_max_turns`},
		{"a 50 MB stream", "claude", `head -c 52428800 /dev/zero | tr '\0' x`, `claude printed a line longer than --output-tail keeps, and no result`},
		{"reconnects until the time limit", "codex", `echo '{"type":"thread.started","thread_id":"t1"}'; while :; do echo '{"type":"error","message":"Reconnecting... waiting for network (Connection failed: error sending request)"}'; sleep 0.2; done`,
			`timed out after 2s \(--agent-timeout\)`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			agentOnPath(t, tc.agent, tc.body)
			run := filepath.Join(t.TempDir(), "run")
			// Half the limit of silence brings the stall notice, before
			// the call ends.
			notice := ""
			if strings.Contains(tc.match, "timed out") {
				notice = `no progress from codex for 1s, it says: Reconnecting... waiting for network \(Connection failed: error sending request\); the call ends at --agent-timeout 2s\n.*`
			}
			check(t, outcome{1, `(?s)` + notice + `agent "` + tc.agent + `" \(step request\): ` + tc.match + `.*skillkit run .* --resume \S+ --retry`},
				"run", agentSkill(t), "--workdir", run, "--agent", tc.agent, "--agent-timeout", "2s")
			check(t, outcome{0, `state:\s+failed`}, "status", run)
		})
	}
}

// agent_timeout in skillkit.yaml bounds a call as --agent-timeout does;
// a value that is no duration stops the run at its line.
func TestAgentTimeoutConfig(t *testing.T) {
	agentOnPath(t, "codex", `exec sleep 30`)
	skill := agentSkill(t)
	testfs.WriteFile(t, filepath.Join(skill, "skillkit.yaml"), "execution: auto\nagent_timeout: 1s\n")
	check(t, outcome{1, `timed out after 1s \(--agent-timeout\)`}, "run", skill, "--workdir", filepath.Join(t.TempDir(), "run"), "--agent", "codex")
	testfs.WriteFile(t, filepath.Join(skill, "skillkit.yaml"), "execution: auto\nagent_timeout: soon\n")
	check(t, outcome{2, `skillkit.yaml:2: agent_timeout: want a duration such as 10m or 90s, got "soon"`}, "run", skill, "--agent", "codex")
}

// With the real CLIs logged in to nothing, run --agent stops before the
// run with the fix.
func TestRealRunStopsAtTheCheck(t *testing.T) {
	for name, fix := range map[string]string{"claude": "claude auth login (or set ANTHROPIC_API_KEY)", "codex": "codex login (or set CODEX_API_KEY)"} {
		t.Run(name, func(t *testing.T) {
			bin := realtool.Find(t, name)
			t.Setenv("PATH", filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
			t.Setenv("HOME", t.TempDir())
			t.Setenv("ANTHROPIC_API_KEY", "")
			t.Setenv("CODEX_API_KEY", "")
			check(t, outcome{1, `agent "` + name + `" cannot work: not logged in; fix: ` + regexp.QuoteMeta(fix)},
				"run", agentSkill(t), "--workdir", filepath.Join(t.TempDir(), "run"), "--agent", name)
		})
	}
}

// BenchmarkRealRunNotLoggedIn is a run with the real Claude Code logged
// in to nothing, from the command to its failure on the terminal: the
// check before the run stops it with the fix.
func BenchmarkRealRunNotLoggedIn(b *testing.B) {
	bin := realtool.Find(b, "claude")
	b.Setenv("PATH", filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	b.Setenv("HOME", b.TempDir())
	b.Setenv("ANTHROPIC_API_KEY", "")
	skill := filepath.Join(b.TempDir(), "asks")
	testfs.WriteTree(b, skill, map[string]string{
		"SKILL.md":       frontMatter("asks"),
		"phases/01-a.md": "# Phase 1: Ask\n\n## Execution\n\n### Step 1: Think\n\nThink hard.\n",
	})
	for b.Loop() {
		code, _, stderr := run("run", skill, "--workdir", filepath.Join(b.TempDir(), "run"), "--agent", "claude")
		if code != ExitFailed || !strings.Contains(stderr, `agent "claude" cannot work: not logged in; fix: claude auth login (or set ANTHROPIC_API_KEY)`) {
			b.Fatalf("exit %d: %s", code, stderr)
		}
	}
}

// Codex's reconnects are progress: with testagent's codex, which
// reconnects on every call before it answers, the run completes, and
// its later calls resume the thread.
func TestCodexReconnectsThenCompletes(t *testing.T) {
	bin := t.TempDir()
	must(t, testagent.CodexOnPath(bin))
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	run := filepath.Join(t.TempDir(), "run")
	check(t, outcome{0, ""}, "run", agentSkill(t), "--workdir", run, "--agent", "codex")
	metrics := testfs.ReadFile(t, filepath.Join(run, "metrics.jsonl"))
	if !regexpMatch(`"outcome":"completed","request":"action","call":2,"session":"01a2174b-8d43-7cf2-8680-802e0c8adc1f","turns":1`, metrics) {
		t.Errorf("metrics.jsonl:\n%s", metrics)
	}
	if log := testfs.ReadFile(t, filepath.Join(run, "logs", "01-a-1.log")); !strings.Contains(log, "Reconnecting... 3/5") {
		t.Errorf("the step's log lacks codex's events:\n%s", log)
	}
}

// Claude Code reporting its conversation at 80% of the window: the run
// stops before its next call, interrupted (exit 130), naming the
// hand-off file and the resume, and so does the replay of its recording;
// once the agent reports less, the resume completes. context_exit in skillkit.yaml that is not a percentage
// stops the run at its line.
func TestClaudeContextExhaustion(t *testing.T) {
	claudeStandIn(t)
	sizes := filepath.Join(t.TempDir(), "context")
	testfs.WriteFile(t, sizes, "800000\n")
	t.Setenv(testagent.ClaudeContextEnv, sizes)
	skill, run := agentSkill(t), filepath.Join(t.TempDir(), "run")
	check(t, outcome{ExitInterrupted, `(?s)the agent's context is nearly full: 800000 of 1000000 tokens \(80%, context_exit 75%\); the agent wrote no hand-off to \S+/handoff.md; a resume goes on.*skillkit run .* --resume`},
		"run", skill, "--workdir", run, "--agent", "claude", "--record-test", "full")
	check(t, outcome{0, `state:\s+interrupted`}, "status", run)
	// The cassette keeps the context use: the replay stops where the run
	// did.
	check(t, outcome{0, `full`}, "test", skill)
	testfs.WriteFile(t, sizes, "100000\n")
	check(t, outcome{0, ""}, "run", skill, "--resume", run, "--agent", "claude")

	testfs.WriteFile(t, filepath.Join(skill, "skillkit.yaml"), "context_exit: most\n")
	check(t, outcome{ExitUsage, `skillkit.yaml:1: context_exit: want a percentage from 1 to 100, got "most"`}, "run", skill, "--agent", "claude")
}
