//go:build unix

package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/skillkit/skillkit/internal/crashtest"
	"github.com/skillkit/skillkit/internal/realtool"
	"github.com/skillkit/skillkit/internal/runstore"
	"github.com/skillkit/skillkit/internal/runstore/fsstore"
	"github.com/skillkit/skillkit/internal/testfs"
)

// callsAgent writes an agent command that runs before, notes its call's
// number (SKILLKIT_CALL) in log, then runs body, and returns its path.
func callsAgent(t *testing.T, log, before, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "agent")
	testfs.WriteFile(t, path, "#!/bin/sh\ncat >/dev/null\n"+before+"\necho \"$SKILLKIT_CALL\" >> "+shellQuote(log)+"\n"+body+"\n")
	must(t, os.Chmod(path, 0o755))
	return path
}

// recordedCalls is how many agent calls the record of the run in work
// counts.
func recordedCalls(t *testing.T, work string) int {
	t.Helper()
	sum, err := fsstore.New(fsstore.Options{}).Status(work)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Progress.Agent == nil {
		return 0
	}
	return sum.Progress.Agent.Calls
}

// killWhen starts cmd and kills it with SIGKILL, as a crash or a user's
// kill -9 would, once the file started exists.
func killWhen(t *testing.T, cmd *exec.Cmd, started string) {
	t.Helper()
	stderr := startUntil(t, cmd, started, 30*time.Second)
	must(t, cmd.Process.Signal(syscall.SIGKILL))
	if err := cmd.Wait(); err == nil {
		t.Fatalf("the killed run exited 0: %s", stderr)
	}
}

// An agent that hangs, and a user who kills the runner and resumes, over
// and over: each call killed is counted, from the record's line written
// as it began, so the resume's --max-agent-calls stops the run at the
// budget (interrupted, exit 130, the budget named) rather than pay for
// calls without end. Before agent calls were recorded as they began, each
// resume counted none of the killed calls and numbered its call 1 again.
// A kill before the first call counts none; a resume with a higher
// budget goes on numbering.
func TestKilledAgentCallsCount(t *testing.T) {
	dir := t.TempDir()
	testfs.WriteTree(t, dir, map[string]string{
		"skill/SKILL.md": frontMatter("hangs"),
		"skill/phases/01-a.md": "# Phase 1: Work\n\n## Execution Steps\n\n### Step 1: Wait once\n\n" +
			"```bash\nif [ ! -e once ]; then touch once waiting; sleep 60; fi\n```\n\n" +
			"### Step 2: Think\n\nThink hard.\n\n### Step 3: Write\n\nWrite it down.\n",
	})
	skill, work, log := filepath.Join(dir, "skill"), filepath.Join(dir, "work"), filepath.Join(dir, "calls.log")
	ag := callsAgent(t, log, "", `touch "`+log+`.$SKILLKIT_CALL"; exec sleep 60`)
	cmd := func(budget int, resume bool) *exec.Cmd {
		args := []string{"run", skill, "--workdir", work}
		if resume {
			args = []string{"run", skill, "--resume", work}
		}
		c := skillkitCmd(t, append(args, "--agent", ag, "--max-agent-calls", fmt.Sprint(budget))...)
		c.Dir = dir
		return c
	}
	// Killed in the shell step before the first call: nothing counted.
	killWhen(t, cmd(2, false), filepath.Join(work, "waiting"))
	if n := recordedCalls(t, work); n != 0 || crashtest.AgentCalls(t, "a kill before any call", log, n) != 0 {
		t.Fatalf("a kill before any agent call: the record counts %d calls", n)
	}
	// Killed during each call.
	for call := 1; call <= 2; call++ {
		killWhen(t, cmd(2, true), fmt.Sprintf("%s.%d", log, call))
		what := fmt.Sprintf("a kill during call %d", call)
		if n := recordedCalls(t, work); n != call || crashtest.AgentCalls(t, what, log, n) != call {
			t.Fatalf("%s: the record counts %d calls", what, n)
		}
	}
	c := cmd(2, true)
	var out bytes.Buffer
	c.Stdout, c.Stderr = &out, &out
	done := make(chan error, 1)
	must(t, c.Start())
	go func() { done <- c.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		c.Process.Kill()
		t.Fatalf("the resume at the spent budget made another call: %s", testfs.ReadFile(t, log))
	}
	var exitErr *exec.ExitError
	if !errors.As(err, &exitErr) || exitErr.ExitCode() != ExitInterrupted {
		t.Fatalf("the resume at the spent budget: %v, want exit %d:\n%s", err, ExitInterrupted, &out)
	}
	for _, want := range []string{
		"the run's agent budget is spent: 2 agent calls made (--max-agent-calls 2); a resume with a higher --max-agent-calls goes on",
		"--resume " + work,
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the resume at the spent budget does not say %q:\n%s", want, &out)
		}
	}
	if got := crashtest.AgentCalls(t, "the resume at the spent budget", log, 2); got != 2 {
		t.Errorf("%d agent calls started, want 2", got)
	}
	// A higher budget goes on, with the next number.
	killWhen(t, cmd(3, true), log+".3")
	if n := recordedCalls(t, work); n != 3 || crashtest.AgentCalls(t, "a resume with a higher budget", log, n) != 3 {
		t.Fatalf("a resume with a higher budget: the record counts %d calls", n)
	}
	// The last resume's takeover ends the hung agent; a budget of 3
	// stops this one before a call.
	c = cmd(3, true)
	if out, err := c.CombinedOutput(); !errors.As(err, &exitErr) || exitErr.ExitCode() != ExitInterrupted {
		t.Fatalf("the last resume: %v, want exit %d:\n%s", err, ExitInterrupted, out)
	}
}

// Runs killed at random moments of a skill of three agent steps, each
// resumed to its end: after every kill, each call that started is counted
// (a kill during a call, or between its record and its command's start,
// leaves it counted, and the resume numbers on from it), and none is
// numbered twice. SKILLKIT_CRASH_SEED replays a seed.
func TestAgentCallsSurviveKills(t *testing.T) {
	if testing.Short() {
		t.Skip("kills 12 runs")
	}
	dir := t.TempDir()
	testfs.WriteTree(t, dir, map[string]string{
		"skill/SKILL.md": frontMatter("three"),
		"skill/phases/01-a.md": "# Phase 1: Work\n\n## Execution Steps\n\n### Step 1: Think\n\nThink.\n\n" +
			"### Step 2: Think again\n\nThink again.\n\n### Step 3: Write\n\nWrite it down.\n",
	})
	skill := filepath.Join(dir, "skill")
	k := crashtest.NewKiller(t)
	store := fsstore.New(fsstore.Options{})
	kinds := map[string]int{}
	for i := range 12 {
		work, log := filepath.Join(t.TempDir(), "run"), filepath.Join(t.TempDir(), "calls.log")
		// Its call is under way before it notes it: a kill then is one
		// after the call's record, before the agent did anything.
		ag := callsAgent(t, log, "sleep 0.03", `sleep 0.03; echo "$SKILLKIT_CALL" >> "`+log+`.done"; echo done`)
		cmd := func(args ...string) *exec.Cmd {
			c := skillkitCmd(t, append([]string{"run", skill}, append(args, "--agent", ag)...)...)
			c.Dir = dir
			return c
		}
		after := k.Kill(t, cmd("--workdir", work), 0, 400*time.Millisecond)
		what := fmt.Sprintf("kill %d after %v", i, after)
		recorded := 0
		if _, err := store.Status(work); err == nil {
			recorded = recordedCalls(t, work)
		}
		started := crashtest.AgentCalls(t, what, log, recorded)
		ended := len(strings.Fields(readIfAny(log + ".done")))
		// The killed runner's agent goes on until the resume's takeover
		// ends it, or it ends: a call that began is counted whatever it
		// does meanwhile.
		time.Sleep(100 * time.Millisecond)
		crashtest.AgentCalls(t, what+", its agent left running", log, recorded)
		switch {
		case recorded > started:
			kinds["after a call's record, before the agent's work"]++
		case ended < started:
			kinds["during a call"]++
		default:
			kinds["before a call's record"]++
		}
		crashtest.Finish(t, what, work, store,
			func() *exec.Cmd { return cmd("--resume", work) },
			func() *exec.Cmd { return cmd("--workdir", work) })
		crashtest.AgentCalls(t, what+", then resumed", log, recordedCalls(t, work))
	}
	t.Logf("kills by where they landed: %v", kinds)
}

// readIfAny is the file's content, "" when it is not there.
func readIfAny(path string) string {
	data, _ := os.ReadFile(path)
	return string(data)
}

// The real Claude Code, logged in to nothing, run as a plain command: a
// runner killed once the record says the call began counts that call, so
// a resume with --max-agent-calls 1 stops before calling claude again
// (exit 130); a resume with 2 calls it (call 2), and claude's failure
// ends the run.
func TestRealClaudeKilledCallCounts(t *testing.T) {
	bin := realtool.Find(t, "claude")
	t.Setenv("HOME", t.TempDir())
	t.Setenv("ANTHROPIC_API_KEY", "")
	dir := t.TempDir()
	testfs.WriteTree(t, dir, map[string]string{
		"skill/SKILL.md":       frontMatter("asks"),
		"skill/phases/01-a.md": "# Phase 1: Ask\n\n## Execution Steps\n\n### Step 1: Think\n\nThink hard.\n",
	})
	skill, work := filepath.Join(dir, "skill"), filepath.Join(dir, "work")
	ag := shellQuote(bin) + " -p"
	c := skillkitCmd(t, "run", skill, "--workdir", work, "--agent", ag, "--max-agent-calls", "1")
	c.Dir = dir
	must(t, c.Start())
	events := filepath.Join(work, fsstore.EventsFile)
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(readIfAny(events), `"to":"`+string(runstore.AgentCallMark)+`"`); time.Sleep(2 * time.Millisecond) {
		if time.Now().After(deadline) {
			c.Process.Kill()
			c.Wait()
			t.Fatalf("the run recorded no agent call:\n%s", readIfAny(events))
		}
	}
	c.Process.Signal(syscall.SIGKILL)
	c.Wait()
	if n := recordedCalls(t, work); n != 1 {
		t.Fatalf("after the kill the record counts %d calls, want 1", n)
	}
	check(t, outcome{ExitInterrupted, `1 agent calls made \(--max-agent-calls 1\); a resume with a higher --max-agent-calls goes on`},
		"run", skill, "--resume", work, "--agent", ag, "--max-agent-calls", "1")
	check(t, outcome{ExitFailed, `Not logged in`}, "run", skill, "--resume", work, "--agent", ag, "--max-agent-calls", "2")
	if n := recordedCalls(t, work); n != 2 {
		t.Errorf("after claude's call the record counts %d calls, want 2", n)
	}
}

// The real Codex, logged in to nothing and without a network, run as a
// plain command, reconnects without end: the hung agent a user kills the
// runner over (it ends too, at its next write to the dead runner). The
// call is counted once it began, so the resume with --max-agent-calls 1
// stops at the budget (exit 130) rather than start codex again.
func TestRealCodexHungCallCounts(t *testing.T) {
	bin := realtool.Find(t, "codex")
	t.Setenv("HOME", t.TempDir())
	t.Setenv("CODEX_API_KEY", "")
	t.Setenv("OPENAI_API_KEY", "")
	dir := t.TempDir()
	testfs.WriteTree(t, dir, map[string]string{
		"skill/SKILL.md":       frontMatter("asks"),
		"skill/phases/01-a.md": "# Phase 1: Ask\n\n## Execution Steps\n\n### Step 1: Think\n\nThink hard.\n",
	})
	skill, work := filepath.Join(dir, "skill"), filepath.Join(dir, "work")
	ag := shellQuote(bin) + " exec --skip-git-repo-check -"
	c := skillkitCmd(t, "run", skill, "--workdir", work, "--agent", ag, "--max-agent-calls", "1")
	c.Dir = dir
	must(t, c.Start())
	// The agent's process group is recorded as it starts.
	groups := filepath.Join(work, fsstore.GroupsFile)
	for deadline := time.Now().Add(30 * time.Second); !strings.HasPrefix(readIfAny(groups), "+"); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			c.Process.Kill()
			c.Wait()
			t.Fatalf("codex never started:\n%s", readIfAny(filepath.Join(work, fsstore.EventsFile)))
		}
	}
	// Let it get to its reconnects.
	time.Sleep(time.Second)
	c.Process.Signal(syscall.SIGKILL)
	c.Wait()
	if n := recordedCalls(t, work); n != 1 {
		t.Fatalf("after the kill the record counts %d calls, want 1", n)
	}
	check(t, outcome{ExitInterrupted, `1 agent calls made \(--max-agent-calls 1\); a resume with a higher --max-agent-calls goes on`},
		"run", skill, "--resume", work, "--agent", ag, "--max-agent-calls", "1")
}
