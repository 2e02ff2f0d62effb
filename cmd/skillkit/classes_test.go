package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillkit/skillkit/internal/testfs"
)

// classSkill has a native bash step, a pseudo-code JavaScript step (it
// reads userInput, which nothing defines), a phase with no execution
// section, and an action whose JavaScript calls a helper no block
// declares.
func classSkill(t *testing.T) string {
	dir := filepath.Join(t.TempDir(), "classes")
	testfs.WriteTree(t, dir, map[string]string{
		"SKILL.md": frontMatter("classes"),
		"phases/01-a.md": "# Phase 1: Collect\n\n## Execution\n\n### Step 1: Native\n\n```bash\necho one > one.txt\n```\n\n" +
			"### Step 2: Pseudo-code\n\n```javascript\nconst input = userInput.trim();\n```\n",
		"phases/02-b.md":             "# Phase 2: Report\n\nWrite a short report of what phase 1 found.\n",
		"phases/03-orchestrator.md":  "# Orchestrator\n\n## Decision Logic\n\n```javascript\nfunction selectNextAction(state) {\n  return state.done ? null : 'action-a';\n}\n```\n",
		"phases/actions/action-a.md": "# Action: A\n\n## Execution\n\n```javascript\nfunction execute(state) {\n  return { stateUpdates: { done: parseFlags(state) } };\n}\n```\n",
	})
	return dir
}

// recordingAgent is a stand-in agent: it keeps each prompt in the work
// dir as prompt-N.txt (N counts the calls), notes the request kind, and
// answers an action with a state update that ends the loop.
func recordingAgent(t *testing.T) string {
	file := filepath.Join(t.TempDir(), "agent.sh")
	script := `n=$(( $(cat calls 2>/dev/null || echo 0) + 1 )); echo $n > calls
cat > "prompt-$n.txt"
echo "$SKILLKIT_REQUEST" >> requests.txt
if [ "$SKILLKIT_REQUEST" = action ]; then echo '{"stateUpdates": {"done": true}}'; else echo done; fi
`
	if err := os.WriteFile(file, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return "sh " + file
}

// TestAgentClassesRun: a pseudo-code JavaScript step, a phase with no
// execution section and an action whose code calls an undefined helper
// all go to the agent, and the run completes; the native step runs.
func TestAgentClassesRun(t *testing.T) {
	skill := classSkill(t)
	work := filepath.Join(t.TempDir(), "run")
	check(t, outcome{0, `completed`}, "run", skill, "--workdir", work, "--agent", recordingAgent(t))
	read := func(name string) string {
		data, err := os.ReadFile(filepath.Join(work, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	if got := read("one.txt"); got != "one\n" {
		t.Errorf("the native bash step wrote %q", got)
	}
	if got := read("requests.txt"); got != "step\nstep\naction\n" {
		t.Errorf("agent requests %q, want two steps and one action", got)
	}
	for name, want := range map[string]string{
		"prompt-1.txt": "const input = userInput.trim();",
		"prompt-2.txt": "Write a short report of what phase 1 found.",
		"prompt-3.txt": "parseFlags(state)",
	} {
		if got := read(name); !strings.Contains(got, want) {
			t.Errorf("%s lacks %q:\n%s", name, want, got)
		}
	}
}

// TestClassesShown: plan and the dry run show every step's class and
// why, with where for agent work.
func TestClassesShown(t *testing.T) {
	skill := classSkill(t)
	check(t, outcome{0, "(?s)native: bash that parses, with no placeholder.*agent: reads `userInput`, which nothing defines" +
		".*agent: no execution section: the whole phase goes to the agent.*agent: calls `parseFlags`, which no block declares"}, "plan", skill)
	check(t, outcome{0, "(?s)step 01-a#2 Pseudo-code: js\n    agent: reads `userInput`, which nothing defines \\(phases/01-a.md:14:15\\)" +
		".*step 02-b#1 Report: agent\n    agent: no execution section: the whole phase goes to the agent"}, "run", skill, "--dry-run")
}

// TestStrictRefusesAgentCode: --strict refuses a skill whose code goes
// to the agent (exit 2, a run failed in validation), naming each such step and action with
// file:line:col and the reason; prose passes.
func TestStrictRefusesAgentCode(t *testing.T) {
	skill := classSkill(t)
	work := filepath.Join(t.TempDir(), "run")
	check(t, outcome{2, "(?s)phases/01-a.md:14:15: step 01-a#2 Pseudo-code goes to the agent: reads `userInput`, which nothing defines\n" +
		"phases/actions/action-a.md:7:34: action action-a goes to the agent: calls `parseFlags`, which no block declares\n" +
		".*2 step\\(s\\) or action\\(s\\) above have code that goes to the agent"}, "run", skill, "--strict", "--workdir", work)
	// The refusal is recorded, validating → failed, and no step ran: the
	// work dir holds the initial state, marked failed, and nothing else.
	if state := testfs.ReadFile(t, filepath.Join(work, "state.json")); !strings.Contains(state, `"status": "failed"`) {
		t.Errorf("--strict refused, but state.json is not failed:\n%s", state)
	}
}
