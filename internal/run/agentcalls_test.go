package run_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/skillkit/skillkit/internal/agent"
	"github.com/skillkit/skillkit/internal/crashtest"
	"github.com/skillkit/skillkit/internal/faultfs"
	"github.com/skillkit/skillkit/internal/run"
	"github.com/skillkit/skillkit/internal/runstore"
	"github.com/skillkit/skillkit/internal/runstore/fsstore"
	"github.com/skillkit/skillkit/internal/testfs"
	"github.com/skillkit/skillkit/parse"
	"github.com/skillkit/skillkit/plan"
)

// agentCallsSkill is a skill of a shell step between two agent steps,
// and an agent command that notes its call's number (SKILLKIT_CALL) in
// log as it starts, then runs body.
func agentCallsSkill(t *testing.T, log, body string) (*plan.Skill, *agent.Agent) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "calls")
	testfs.WriteTree(t, dir, map[string]string{
		"SKILL.md": "---\nname: calls\ndescription: Calls the agent twice.\n---\n# Calls\n",
		"phases/01-a.md": "# Phase 1: Work\n\n## Execution Steps\n\n### Step 1: Think\n\nThink.\n\n" +
			"### Step 2: Note\n\n```bash\necho noted\n```\n\n### Step 3: Write\n\nWrite it down.\n",
	})
	s, err := parse.Dir(dir)
	if err != nil {
		t.Fatal(err)
	}
	ag := filepath.Join(t.TempDir(), "agent")
	testfs.WriteFile(t, ag, "#!/bin/sh\ncat >/dev/null\necho \"$SKILLKIT_CALL\" >> '"+log+"'\n"+body+"\n")
	if err := os.Chmod(ag, 0o755); err != nil {
		t.Fatal(err)
	}
	return s, &agent.Agent{Command: ag}
}

// recorded is how many agent calls the record of the run in work counts.
func recorded(t *testing.T, store runstore.Store, work string) int {
	t.Helper()
	sum, err := store.Status(work)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Progress.Agent == nil {
		return 0
	}
	return sum.Progress.Agent.Calls
}

// The disk fills at each write of a run of two agent calls in turn, the
// record of each call as it begins among them: wherever it fills, every
// call whose command started is counted (a call whose record failed was
// not made), the run stops resumable, and its resume with the disk
// freed finishes, numbering its calls on from the count.
func TestFullDiskAtEveryWriteCountsAgentCalls(t *testing.T) {
	for n := int32(0); ; n++ {
		log := filepath.Join(t.TempDir(), "calls.log")
		s, ag := agentCallsSkill(t, log, "echo done")
		work := filepath.Join(t.TempDir(), "run")
		var writes atomic.Int32
		files := faultfs.Wrap(func(string) error {
			if writes.Add(1) > n {
				return syscall.ENOSPC
			}
			return nil
		})
		store := fsstore.New(fsstore.Options{NoSync: true, Files: files})
		_, err := run.Run(context.Background(), run.Options{Skill: s, Store: store, WorkDir: work, ProjectDir: work, Agent: ag})
		if err == nil {
			if got := crashtest.AgentCalls(t, "a run on a free disk", log, recorded(t, store, work)); got != 2 {
				t.Fatalf("a run on a free disk made %d agent calls, want 2", got)
			}
			if n < 10 {
				t.Fatalf("the run got through after %d writes: the test filled the disk before few of them", n)
			}
			return
		}
		if !errors.Is(err, syscall.ENOSPC) {
			t.Fatalf("disk full from write %d: %v, want ENOSPC", n+1, err)
		}
		files.Fault = nil
		sum, serr := store.Status(work)
		if serr != nil {
			continue
		}
		what := fmt.Sprintf("disk full from write %d", n+1)
		var re *run.RunError
		if !errors.As(err, &re) || re.State != runstore.RunInterrupted || sum.State.Terminal() {
			t.Fatalf("%s: %v (the run %s), want the run interrupted, resumable", what, err, sum.State)
		}
		crashtest.AgentCalls(t, what, log, recorded(t, store, work))
		// A claim the full disk kept from being written is waited on
		// for two heartbeats (a holder whose claim was deleted): short
		// ones here.
		co := runstore.ClaimOptions{Heartbeat: 20 * time.Millisecond, Timeout: time.Second}
		if _, err := run.Run(context.Background(), run.Options{Skill: s, Store: store, Resume: work, Agent: ag, Claim: co}); err != nil {
			t.Fatalf("%s: the resume with the disk freed: %v", what, err)
		}
		crashtest.AgentCalls(t, what+", resumed", log, recorded(t, store, work))
	}
}

// A power loss during an agent call keeps it counted: by the time the
// agent's command runs, the record's line of the call is in the part of
// events.jsonl that the log's syncs made durable.
func TestPowerLossDuringAnAgentCallKeepsItCounted(t *testing.T) {
	log := filepath.Join(t.TempDir(), "calls.log")
	started := log + ".started"
	s, ag := agentCallsSkill(t, log, "touch '"+started+"'; exec sleep 30")
	work := filepath.Join(t.TempDir(), "run")
	files := faultfs.Wrap(nil)
	store := fsstore.New(fsstore.Options{Files: files})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := run.Run(ctx, run.Options{Skill: s, Store: store, WorkDir: work, ProjectDir: work, Agent: ag})
		done <- err
	}()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if _, err := os.Stat(started); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the agent never started")
		}
	}
	data, err := os.ReadFile(filepath.Join(work, fsstore.EventsFile))
	if err != nil {
		t.Fatal(err)
	}
	kept := string(data[:files.Durable(fsstore.EventsFile)])
	cancel()
	<-done
	if !strings.Contains(kept, `"to":"agent_call","agent":{"calls":1}`) {
		t.Errorf("while the agent ran, the durable part of events.jsonl did not count its call:\n%s", kept)
	}
}

// The kill tests run the runner in a child process (this test binary,
// re-executed) so that it can be killed for real, on every store a killed
// process leaves its record in (crashtest.Each).
const helperEnv = "SKILLKIT_RUN_HELPER"

// helperMain runs, or resumes, the skill in HELPER_SKILL with the agent
// command HELPER_AGENT and the budget HELPER_MAX_CALLS, as the
// environment says, and exits 130 when the budget stopped it, as the CLI
// does.
func helperMain() int {
	s, err := parse.Dir(os.Getenv("HELPER_SKILL"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	store, err := crashtest.StoreFromEnv()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	o := run.Options{Skill: s, Store: store, WorkDir: os.Getenv("HELPER_WORKDIR"), Resume: os.Getenv("HELPER_RESUME"),
		Agent: &agent.Agent{Command: os.Getenv("HELPER_AGENT")}}
	o.ProjectDir = cmp.Or(o.WorkDir, o.Resume)
	fmt.Sscan(os.Getenv("HELPER_MAX_CALLS"), &o.MaxAgentCalls)
	_, err = run.Run(context.Background(), o)
	switch {
	case err == nil:
		return 0
	case errors.Is(err, agent.ErrBudget):
		fmt.Fprintln(os.Stderr, err)
		return 130
	}
	fmt.Fprintln(os.Stderr, err)
	return 1
}

// A runner killed during each of its agent calls, then resumed with
// --max-agent-calls 2, on the filesystem, SQLite and PostgreSQL: each
// killed call is counted, so the third resume stops at the budget without
// calling the agent again; before calls were recorded as they began, it
// called the agent once more on every resume, numbering it 1 again.
func TestKilledInAgentCallsOnEveryStore(t *testing.T) {
	crashtest.Each(t, func(t *testing.T, b crashtest.Backend) {
		log := filepath.Join(t.TempDir(), "calls.log")
		s, ag := agentCallsSkill(t, log, `touch "`+log+`.$SKILLKIT_CALL"; exec sleep 30`)
		work := filepath.Join(t.TempDir(), "run")
		helper := func(env ...string) *exec.Cmd {
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), helperEnv+"=1", "HELPER_SKILL="+s.Dir, "HELPER_AGENT="+ag.Command, "HELPER_MAX_CALLS=2")
			cmd.Env = append(append(cmd.Env, b.Env...), env...)
			return cmd
		}
		for call := 1; call <= 2; call++ {
			cmd := helper("HELPER_RESUME=" + work)
			if call == 1 {
				cmd = helper("HELPER_WORKDIR=" + work)
			}
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			started := fmt.Sprintf("%s.%d", log, call)
			for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
				if _, err := os.Stat(started); err == nil {
					break
				}
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					cmd.Wait()
					t.Fatalf("agent call %d never started: %s", call, &stderr)
				}
			}
			cmd.Process.Signal(syscall.SIGKILL)
			cmd.Wait()
			what := fmt.Sprintf("killed during call %d", call)
			if n := recorded(t, b.Store, work); n != call || crashtest.AgentCalls(t, what, log, n) != call {
				t.Fatalf("%s: the record counts %d calls", what, n)
			}
		}
		out, err := helper("HELPER_RESUME=" + work).CombinedOutput()
		var exitErr *exec.ExitError
		if !errors.As(err, &exitErr) || exitErr.ExitCode() != 130 || !strings.Contains(string(out), "2 agent calls made (--max-agent-calls 2)") {
			t.Fatalf("the resume at the spent budget: %v, want it stopped by the budget:\n%s", err, out)
		}
		if got := crashtest.AgentCalls(t, "the resume at the spent budget", log, 2); got != 2 {
			t.Errorf("%d agent calls started, want 2", got)
		}
	})
}

// Tasks that skill code starts side by side are each recorded as they
// begin: a runner killed while both run counts both, and the resume at
// --max-agent-calls 2 stops at the budget without starting either again.
func TestKilledDuringTasksSideBySide(t *testing.T) {
	log := filepath.Join(t.TempDir(), "calls.log")
	_, ag := agentCallsSkill(t, log, `touch "`+log+`.$SKILLKIT_CALL"; exec sleep 30`)
	dir := filepath.Join(t.TempDir(), "tasks")
	testfs.WriteTree(t, dir, map[string]string{
		"SKILL.md": "---\nname: tasks\ndescription: Two tasks at once.\n---\n# Tasks\n",
		"phases/01-a.md": "# Phase 1: Work\n\n## Execution Steps\n\n### Step 1: Ask twice\n\n" +
			"```javascript\nconst [a, b] = await Promise.all([Task({prompt: 'one'}), Task({prompt: 'two'})]);\nstate.answers = [a, b];\n```\n",
	})
	work := filepath.Join(t.TempDir(), "run")
	helper := func(env ...string) *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), helperEnv+"=1", "HELPER_SKILL="+dir, "HELPER_AGENT="+ag.Command, "HELPER_MAX_CALLS=2")
		cmd.Env = append(cmd.Env, env...)
		return cmd
	}
	cmd := helper("HELPER_WORKDIR=" + work)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		_, err1 := os.Stat(log + ".1")
		_, err2 := os.Stat(log + ".2")
		if err1 == nil && err2 == nil {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("the two tasks never both started: %s", &stderr)
		}
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if n := recorded(t, fsstore.New(fsstore.Options{}), work); n != 2 || crashtest.AgentCalls(t, "killed during two tasks", log, n) != 2 {
		t.Fatalf("killed during two tasks: the record counts %d calls, want 2", n)
	}
	out, err := helper("HELPER_RESUME=" + work).CombinedOutput()
	var exitErr *exec.ExitError
	if !errors.As(err, &exitErr) || exitErr.ExitCode() != 130 || !strings.Contains(string(out), "2 agent calls made (--max-agent-calls 2)") {
		t.Fatalf("the resume at the spent budget: %v, want it stopped by the budget:\n%s", err, out)
	}
	if got := crashtest.AgentCalls(t, "the resume at the spent budget", log, 2); got != 2 {
		t.Errorf("%d agent calls started, want 2", got)
	}
}
