package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// agentDouble is docs/host-api.md's test double for an agent.
var agentDouble = regexp.MustCompile("(?s)A test double is a few lines of shell:\n\n```sh\n(.*?)```")

// TestHostAPIAgentDouble runs docs/host-api.md's agent test double as
// the agent of the bundled agent-driven example: the run completes, and
// the double kept the prompt where the doc says. (The block before it,
// `--agent 'claude -p'`, needs a logged-in model and is not run.)
func TestHostAPIAgentDouble(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(repoRoot(t), "docs", "host-api.md"))
	must(t, err)
	m := agentDouble.FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/host-api.md has no test double block")
	}
	tmp := t.TempDir()
	agent := filepath.Join(tmp, "fake-agent.sh")
	must(t, os.WriteFile(agent, m[1], 0o755))
	skill := filepath.Join(tmp, "agent-driven")
	must(t, os.CopyFS(skill, os.DirFS(filepath.Join(repoRoot(t), "examples", "agent-driven"))))
	run := filepath.Join(tmp, "run")
	check(t, outcome{ExitOK, `completed`}, "run", skill, "--workdir", run, "--agent", agent, "--progress", "plain")
	prompt, err := os.ReadFile(filepath.Join(run, "last-prompt.txt"))
	if err != nil || !strings.Contains(string(prompt), "[ACTION]") {
		t.Errorf("the double kept no prompt with an [ACTION] section: %v\n%s", err, prompt)
	}
}
