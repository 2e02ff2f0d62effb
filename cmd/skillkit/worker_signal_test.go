//go:build unix

package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/skillkit/skillkit/internal/proc"
	"github.com/skillkit/skillkit/internal/runstore/sqlstore"
	"github.com/skillkit/skillkit/internal/runstore/sqlstore/sqltest"
	"github.com/skillkit/skillkit/internal/testfs"
)

// stuckSkill writes a skill whose one step starts a background sleep,
// notes its pid and waits for it; run again once it started, the step
// notes that it resumed and ends. It returns the skill and the folder of
// its marks.
func stuckSkill(t *testing.T) (skill, marks string) {
	dir := t.TempDir()
	marks = filepath.Join(dir, "marks")
	skill = filepath.Join(dir, "stuck")
	testfs.WriteTree(t, dir, map[string]string{
		"marks/.keep":    "",
		"stuck/SKILL.md": "---\nname: stuck\ndescription: Waits once.\n---\n# Stuck\n",
		"stuck/phases/01-wait.md": "# Phase 1: Wait\n## Execution Steps\n### Step 1: Wait\n```bash\n" +
			"if [ -e " + marks + "/started ]; then echo x >> " + marks + "/resumed; exit 0; fi\n" +
			"sleep 1000 & echo $! > " + marks + "/bg.pid; touch " + marks + "/started; wait\n```\n",
	})
	return skill, marks
}

// bgPid is the pid of the step's background sleep.
func bgPid(t *testing.T, marks string) int {
	data, _ := os.ReadFile(filepath.Join(marks, "bg.pid"))
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatalf("bg.pid: %q", data)
	}
	return pid
}

// taskOf is the one task of the database at url.
func taskOf(t *testing.T, url string) *sqlstore.Task {
	t.Helper()
	d, err := sqlstore.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	tasks, err := d.Tasks(context.Background(), "")
	if err != nil || len(tasks) != 1 {
		t.Fatalf("tasks: %v, %v", tasks, err)
	}
	return tasks[0]
}

// TestWorkerSIGTERMReleasesItsTask: a worker stopped by SIGTERM in the
// middle of a step exits within a bounded time, kills the step's
// processes, and hands its task back at once (fix_proposed, with where
// the run stands) rather than leaving it working until the conductor's
// recovery finds it stale: the next worker resumes the run, on SQLite and
// PostgreSQL.
func TestWorkerSIGTERMReleasesItsTask(t *testing.T) {
	sqltest.Each(t, func(t *testing.T, url string) {
		skill, marks := stuckSkill(t)
		dir := t.TempDir()
		t.Chdir(dir)
		if code, _, stderr := run("task", "add", skill, "--db", url); code != ExitOK {
			t.Fatalf("task add: exit %d: %s", code, stderr)
		}
		cmd := skillkitCmd(t, "worker", "--db", url, "--poll", "50ms", "--name", "w1")
		cmd.Dir = dir
		stderr := startUntil(t, cmd, filepath.Join(marks, "started"), 30*time.Second)
		start := time.Now()
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			var exitErr *exec.ExitError
			if err != nil && !errors.As(err, &exitErr) {
				t.Fatal(err)
			}
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("the worker did not stop within 20 s of SIGTERM: %s", stderr)
		}
		t.Logf("stopped in %v", time.Since(start))
		if pid := bgPid(t, marks); proc.Alive(pid) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("the step's background child %d outlived the worker", pid)
		}
		k := taskOf(t, url)
		if k.State != sqlstore.FixProposed || !strings.Contains(k.Message, "w1") || !strings.Contains(k.Message, k.RunID) || k.RunID == "" {
			t.Fatalf("after SIGTERM the task is %s (%q), want fix_proposed naming the worker and run %s: %s", k.State, k.Message, k.RunID, stderr)
		}
		// The next worker resumes it; the hand-off is no fix of the
		// conductor's for its agent to apply: no agent call is made.
		agentLog := filepath.Join(dir, "agent.log")
		if code, out, stderr := run("worker", "--db", url, "--poll", "50ms", "--until-idle", "--name", "w2", "--agent", "cat >> "+agentLog); code != ExitOK {
			t.Fatalf("the next worker: exit %d: %s%s", code, out, stderr)
		}
		if k := taskOf(t, url); k.State != sqlstore.Complete {
			t.Errorf("the task is %s, want complete", k.State)
		}
		if data, _ := os.ReadFile(filepath.Join(marks, "resumed")); string(data) != "x\n" {
			t.Errorf("the step resumed %q times", data)
		}
		if data, err := os.ReadFile(agentLog); err == nil {
			t.Errorf("the hand-off went to the agent as a fix to apply:\n%s", data)
		}
	})
}

// TestWorkerKilledMidStepLeavesNoOrphan: a worker killed with SIGKILL in
// the middle of a step leaves the step's processes running, as nothing
// can stop that; the worker that takes the run over kills them first,
// and the step runs once more to its end, on SQLite and PostgreSQL.
func TestWorkerKilledMidStepLeavesNoOrphan(t *testing.T) {
	sqltest.Each(t, func(t *testing.T, url string) {
		skill, marks := stuckSkill(t)
		dir := t.TempDir()
		t.Chdir(dir)
		if code, _, stderr := run("task", "add", skill, "--db", url); code != ExitOK {
			t.Fatalf("task add: exit %d: %s", code, stderr)
		}
		cmd := skillkitCmd(t, "worker", "--db", url, "--poll", "50ms", "--name", "victim")
		cmd.Dir = dir
		startUntil(t, cmd, filepath.Join(marks, "started"), 30*time.Second)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		pid := bgPid(t, marks)
		t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
		if code, out, stderr := run("recover", "--db", url, "--stale-after", "0s"); code != ExitOK || !strings.Contains(out+stderr, "fix_proposed") {
			t.Fatalf("recover: exit %d: %s%s", code, out, stderr)
		}
		if code, out, stderr := run("worker", "--db", url, "--poll", "50ms", "--until-idle", "--name", "w2"); code != ExitOK {
			t.Fatalf("the next worker: exit %d: %s%s", code, out, stderr)
		}
		if k := taskOf(t, url); k.State != sqlstore.Complete {
			t.Errorf("the task is %s, want complete", k.State)
		}
		if proc.Alive(pid) {
			t.Errorf("the killed worker's step child %d outlived the takeover", pid)
		}
	})
}
