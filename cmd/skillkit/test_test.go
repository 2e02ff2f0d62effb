package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// copyExample copies an example skill to a temporary folder.
func copyExample(t *testing.T, name string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), name)
	must(t, os.CopyFS(dst, os.DirFS(filepath.Join(repoRoot(t), "examples", name))))
	return dst
}

// TestTestExitCodes: 0 when every case passes, 1 when one fails, 2 when a
// test file is bad, with its file:line.
func TestTestExitCodes(t *testing.T) {
	dir := copyExample(t, "hybrid")
	if code, out, stderr := run("test", dir); code != ExitOK || !strings.Contains(out, "ok   hybrid/basic") {
		t.Fatalf("a passing suite: exit %d\n%s%s", code, out, stderr)
	}
	tests := filepath.Join(dir, "tests")
	must(t, os.WriteFile(filepath.Join(tests, "wrong.yaml"), []byte("inputs: {text: a b}\nexpect:\n  status: failed\n"), 0o644))
	code, out, _ := run("test", dir)
	if code != ExitFailed || !strings.Contains(out, "FAIL hybrid/wrong") || !strings.Contains(out, "status: the run ended completed, want failed") {
		t.Errorf("a failing case: exit %d\n%s", code, out)
	}
	if code, out, _ := run("test", dir, "--run", "basic$"); code != ExitOK || strings.Contains(out, "wrong") {
		t.Errorf("--run basic$: exit %d\n%s", code, out)
	}
	must(t, os.WriteFile(filepath.Join(tests, "bad.yaml"), []byte("expect:\n  status: completed\n  bogus: 1\n"), 0o644))
	code, out, _ = run("test", dir, "--format", "json")
	var report struct {
		Bad     int `json:"Bad"`
		Results []struct {
			Case string `json:"case"`
			Bad  string `json:"bad"`
		} `json:"results"`
	}
	must(t, json.Unmarshal([]byte(out), &report))
	if code != ExitUsage || report.Bad != 1 || !strings.Contains(out, "bad.yaml:3: field bogus not found") {
		t.Errorf("a bad test file: exit %d\n%s", code, out)
	}
	code, out, _ = run("test", dir, "--format", "junit")
	if code != ExitUsage || !strings.Contains(out, `<testsuite name="hybrid" tests="3" failures="1" errors="1">`) {
		t.Errorf("junit: exit %d\n%s", code, out)
	}
	if code, _, stderr := run("test", dir, "--format", "xml"); code != ExitUsage || !strings.Contains(stderr, "want text, json or junit") {
		t.Errorf("--format xml: exit %d: %s", code, stderr)
	}
}

// TestRecordTestThenUpdate: --record-test writes a test that passes; an
// edit of what the agent does fails it; --update records it again with
// the agent and says what changed, and the test passes again.
func TestRecordTestThenUpdate(t *testing.T) {
	dir := copyExample(t, "agent-driven")
	must(t, os.RemoveAll(filepath.Join(dir, "tests")))
	agentCmd := filepath.Join(dir, "fake-agent.sh")
	t.Chdir(t.TempDir())
	// A secret in the environment shows in the prompts (the skill's
	// title stands for it), a pattern of the skill's in a reply: neither
	// is recorded, and the replay hashes its prompts alike.
	t.Setenv("DEMO_API_KEY", "Agent-written note")
	must(t, os.WriteFile(filepath.Join(dir, "skillkit.yaml"), []byte("record:\n  scrub: ['Three sections']\n"), 0o644))
	if code, _, stderr := run("run", dir, "--agent", agentCmd, "--record-test", "first"); code != ExitOK || !strings.Contains(stderr, "wrote the test") {
		t.Fatalf("run --record-test: exit %d: %s", code, stderr)
	}
	recorded, err := os.ReadFile(filepath.Join(dir, "tests", "first.cassette.jsonl"))
	must(t, err)
	if strings.Contains(string(recorded), "Agent-written note") || strings.Contains(string(recorded), "Three sections") || !strings.Contains(string(recorded), "[scrubbed]") {
		t.Errorf("the cassette keeps a secret:\n%s", recorded)
	}
	if code, out, stderr := run("test", dir); code != ExitOK {
		t.Fatalf("the recorded test: exit %d\n%s%s", code, out, stderr)
	}
	// The agent now reviews differently: the replay still passes (it
	// replays the old replies) until the test is recorded again.
	script, err := os.ReadFile(agentCmd)
	must(t, err)
	must(t, os.WriteFile(agentCmd, []byte(strings.Replace(string(script), "every section is there", "all there", 1)), 0o755))
	if code, out, _ := run("test", dir); code != ExitOK {
		t.Fatalf("the replay of the old replies: exit %d\n%s", code, out)
	}
	code, out, stderr := run("test", dir, "--update", "--agent", agentCmd)
	if code != ExitFailed || !strings.Contains(out, "exchange 3 (action action-review) changed: reply") || !strings.Contains(out, `state.review: {"notes":"all there"`) {
		t.Errorf("--update: exit %d\n%s%s", code, out, stderr)
	}
	cassette, err := os.ReadFile(filepath.Join(dir, "tests", "first.cassette.jsonl"))
	must(t, err)
	if !strings.Contains(string(cassette), "all there") {
		t.Errorf("--update did not record the new reply")
	}
}

// TestRecordAcrossResume: a run that stopped for want of an agent and was
// resumed with one records into one cassette, which replays as one run.
func TestRecordAcrossResume(t *testing.T) {
	dir := copyExample(t, "agent-driven")
	t.Chdir(t.TempDir())
	tape := filepath.Join(dir, "tests", "resumed.cassette.jsonl")
	if code, _, stderr := run("run", dir, "--record", tape); code == ExitOK || !strings.Contains(stderr, "this needs an agent") {
		t.Fatalf("the run without an agent: exit %d: %s", code, stderr)
	}
	code, _, stderr := run("run", dir, "--resume", "last", "--agent", filepath.Join(dir, "fake-agent.sh"), "--record", tape)
	if code != ExitOK {
		t.Fatalf("the resume: exit %d: %s", code, stderr)
	}
	must(t, os.WriteFile(filepath.Join(dir, "tests", "resumed.yaml"), []byte("agent: {cassette: resumed.cassette.jsonl}\nexpect: {status: completed, maxAgentCalls: 3}\n"), 0o644))
	if code, out, _ := run("test", dir, "--run", "resumed"); code != ExitOK {
		t.Errorf("the replay of the resumed run: exit %d\n%s", code, out)
	}
}

// TestExamplesPass runs the examples' tests as CI does, from the
// repository with a relative path: the prompts say the skill's folder
// absolute, its prose may name it relative, and only the first is the
// run's own.
func TestExamplesPass(t *testing.T) {
	t.Chdir(repoRoot(t))
	if code, out, stderr := run("test", "examples"); code != ExitOK || !strings.Contains(out, "6 passed, 0 failed") {
		t.Errorf("skillkit test examples: exit %d\n%s%s", code, out, stderr)
	}
}

// TestReplayNamesWhatChangedInTheSkill: a case that fails because the
// skill changed since its cassette was recorded says which of the skill's
// files changed, were added or are gone, besides the prompt's diff: a
// changed native step or schema shows no prompt to diff.
func TestReplayNamesWhatChangedInTheSkill(t *testing.T) {
	dir := copyExample(t, "agent-driven")
	must(t, os.RemoveAll(filepath.Join(dir, "tests")))
	t.Chdir(t.TempDir())
	if code, _, stderr := run("run", dir, "--agent", filepath.Join(dir, "fake-agent.sh"), "--record-test", "rec"); code != ExitOK {
		t.Fatalf("run --record-test: exit %d: %s", code, stderr)
	}
	if code, out, _ := run("test", dir); code != ExitOK {
		t.Fatalf("the recorded test: exit %d\n%s", code, out)
	}
	review := filepath.Join(dir, "phases", "actions", "action-review.md")
	text, err := os.ReadFile(review)
	must(t, err)
	must(t, os.WriteFile(review, []byte(strings.Replace(string(text), "nothing else", "nothing more", 1)), 0o644))
	must(t, os.MkdirAll(filepath.Join(dir, "scripts"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "scripts", "helper.sh"), []byte("echo hi\n"), 0o755))
	code, out, _ := run("test", dir)
	if code != ExitFailed || !strings.Contains(out, "the skill changed since the cassette was recorded: phases/actions/action-review.md changed, scripts/helper.sh added") {
		t.Errorf("exit %d, want %d naming the changed files:\n%s", code, ExitFailed, out)
	}
}
