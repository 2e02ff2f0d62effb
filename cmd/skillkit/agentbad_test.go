package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillkit/skillkit/internal/testfs"
)

// An agent that answers badly fails the step or action it was doing, with
// the reason and how to take the run up again, never a panic or a damaged
// record; what it answered is kept in the run's logs.
func TestBadAgentAnswers(t *testing.T) {
	skill := filepath.Join(t.TempDir(), "asks")
	testfs.WriteTree(t, skill, map[string]string{
		"SKILL.md":                    frontMatter("asks"),
		"phases/01-a.md":              "# Phase 1: Ask\n\n## Execution\n\n### Step 1: Think\n- **Timeout**: 2s\n\nThink hard.\n",
		"phases/02-orchestrator.md":   "# Orchestrator\n\n## Decision Logic\n\n```javascript\nfunction selectNextAction(state) {\n  return (state.completed_actions || []).length ? null : 'action-do';\n}\n```\n",
		"phases/actions/action-do.md": "# Action: Do\n\n## Execution\n\nDo the thing.\n",
		"phases/03-end.md":            "# Phase 3: End\n\n## Execution\n\n```bash\ntrue\n```\n",
	})
	agentScript := func(t *testing.T, body string) string {
		p := filepath.Join(t.TempDir(), "agent.sh")
		testfs.WriteFile(t, p, "#!/bin/sh\ncat > /dev/null\n"+body+"\n")
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cases := []struct {
		name, body, match, logged string
	}{
		{"no JSON for an action", `[ "$SKILLKIT_REQUEST" = step ] && echo done || echo "I did it, trust me."`,
			`action action-do: the agent's reply: .*stateUpdates`, "I did it, trust me."},
		{"exits non-zero", `echo "half an answer"; echo "model overloaded" >&2; exit 7`,
			`exit status 7.*model overloaded`, "half an answer"},
		// Only the reply's last --output-tail bytes are kept in memory:
		// a longer reply cannot be read whole, and fails the call.
		{"a 50 MB reply", `[ "$SKILLKIT_REQUEST" = step ] && echo done || head -c 52428800 /dev/zero | tr '\0' x`,
			`action action-do: .*the reply is 52428800 bytes, more than the 1048576 kept \(--output-tail\)`, "xxxxxxxx"},
		{"no reply in time", `sleep 30`, `timed out after 2s`, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			run := filepath.Join(t.TempDir(), "run")
			check(t, outcome{1, `(?s)` + tc.match + `.*skillkit run .* --resume \S+ --retry`}, "run", skill, "--workdir", run, "--agent", agentScript(t, tc.body))
			check(t, outcome{0, `state:\s+failed`}, "status", run)
			if tc.logged == "" {
				return
			}
			logs, _ := filepath.Glob(filepath.Join(run, "logs", "*.log"))
			var all strings.Builder
			for _, l := range logs {
				all.WriteString(testfs.ReadFile(t, l))
			}
			if !strings.Contains(all.String(), tc.logged) {
				t.Errorf("the agent's answer is not in the run's logs %v", logs)
			}
		})
	}
}
