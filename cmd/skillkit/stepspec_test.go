package main

import (
	"github.com/skillkit/skillkit/internal/runstore/fsstore"
	"github.com/skillkit/skillkit/internal/testfs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The step-execution specification, on a real run: a condition that parses
// is evaluated whatever it reads (`false` skips); a confirmation with no
// terminal and no answers takes its default at once, as a timeout; a
// default of let_claude is the agent's choice; a step whose retries are
// spent ends aborted (marked native: the agent does not take it over). Each is a transition in the record.
func TestStepExecutionSpec(t *testing.T) {
	skill := filepath.Join(t.TempDir(), "spec")
	testfs.WriteTree(t, skill, map[string]string{
		"SKILL.md": frontMatter("spec"),
		"phases/01-a.md": "# Phase 1: A\n\n## Execution Steps\n\n" +
			"### Step 1: Never\n- **Condition**: `false`\n\n```bash\necho ran >> never.txt\n```\n\n" +
			"### Step 2: Asked\n- **Confirm**: Go on? (default: skip, timeout: 1s)\n\n```bash\necho ran >> asked.txt\n```\n\n" +
			"### Step 3: The agent's call\n- **Confirm**: Really? (default: let_claude)\n\n```bash\necho ran >> agents.txt\n```\n\n" +
			"### Step 4: Flaky\n- **On error**: retry 1 backoff 10ms\n\n```bash native\nexit 1\n```\n",
	})
	agent := filepath.Join(t.TempDir(), "agent.sh")
	testfs.WriteFile(t, agent, "#!/bin/sh\ncat >/dev/null\necho yes\n")
	must(t, os.Chmod(agent, 0o755))
	run := filepath.Join(t.TempDir(), "run")
	check(t, outcome{1, `step 01-a#4`}, "run", skill, "--workdir", run, "--agent", agent)
	events, err := fsstore.New(fsstore.Options{}).Events(run)
	must(t, err)
	var got []string
	for _, e := range events {
		if e.Step != "" {
			got = append(got, e.Step+" "+string(e.To))
		}
	}
	trail := strings.Join(got, "\n")
	for _, want := range []string{
		"01-a#1 checking_condition\n01-a#1 skipped",
		"01-a#2 confirming\n01-a#2 timed_out\n01-a#2 skipped",
		"01-a#3 confirming\n01-a#3 timed_out\n01-a#3 let_claude\n01-a#3 executing\n01-a#3 completed",
		"01-a#4 failed\n01-a#4 retrying\n01-a#4 executing\n01-a#4 failed\n01-a#4 aborted",
	} {
		if !strings.Contains(trail, want) {
			t.Errorf("the record lacks\n%s\nin\n%s", want, trail)
		}
	}
	for file, want := range map[string]bool{"never.txt": false, "asked.txt": false, "agents.txt": true} {
		if _, err := os.Stat(filepath.Join(run, file)); (err == nil) != want {
			t.Errorf("%s written: %v, want %v", file, err == nil, want)
		}
	}
}
