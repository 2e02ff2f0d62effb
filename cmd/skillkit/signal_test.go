//go:build unix

package main

import (
	"bytes"
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
	"github.com/skillkit/skillkit/internal/runstore"
	"github.com/skillkit/skillkit/internal/runstore/fsstore"
	"github.com/skillkit/skillkit/internal/testfs"
)

// skillkitCmd runs this test binary as the skillkit command (TestMain),
// through a link named skillkit.
func skillkitCmd(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "skillkit")
	if err := os.Symlink(os.Args[0], bin); err != nil {
		t.Fatal(err)
	}
	return exec.Command(bin, args...)
}

// A closed terminal (SIGHUP) and a kill (SIGTERM) stop a run as Ctrl-C
// does: exit 130, the run interrupted and resumable, its step's commands
// killed.
func TestSignalsInterruptTheRun(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			testfs.WriteTree(t, dir, map[string]string{
				"skill/SKILL.md":          "---\nname: hup\ndescription: Waits.\n---\n# Hup\n",
				"skill/phases/01-wait.md": "# Phase 1: Wait\n## Execution Steps\n### Step 1: Wait\n```bash\nsleep 1000 & echo $! > bg.pid; touch started; wait\n```\n",
			})
			work := filepath.Join(dir, "work")
			cmd := skillkitCmd(t, "run", filepath.Join(dir, "skill"), "--workdir", work)
			cmd.Dir = dir
			stderr := startUntil(t, cmd, filepath.Join(work, "started"), 20*time.Second)
			cmd.Process.Signal(sig)
			err := cmd.Wait()
			var exitErr *exec.ExitError
			if !errors.As(err, &exitErr) || exitErr.ExitCode() != ExitInterrupted {
				t.Fatalf("exit %v, want %d: %s", err, ExitInterrupted, stderr)
			}
			sum, err := fsstore.New(fsstore.Options{Base: dir}).Status(work)
			if err != nil || sum.State != runstore.RunInterrupted {
				t.Fatalf("status %+v, %v: want interrupted", sum, err)
			}
			// A run in a --workdir is found by its folder, not its id.
			if !bytes.Contains(stderr.Bytes(), []byte("--resume "+work)) && !bytes.Contains(stderr.Bytes(), []byte("--resume "+shellQuote(work))) {
				t.Errorf("no resume hint naming the run's folder %s: %s", work, stderr)
			}
			data, _ := os.ReadFile(filepath.Join(work, "bg.pid"))
			pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
			if err != nil {
				t.Fatalf("bg.pid: %q", data)
			}
			if proc.Alive(pid) {
				t.Errorf("the step's background child %d outlived the run", pid)
			}
		})
	}
}

// Two new runs started at once in one --workdir: one runs, the other
// exits 2 (a usage error) and writes nothing there: the work dir holds one
// run, started once.
func TestTwoRunsInOneWorkDir(t *testing.T) {
	dir := t.TempDir()
	testfs.WriteTree(t, dir, map[string]string{
		"skill/SKILL.md":          "---\nname: twice\ndescription: Runs once.\n---\n# Twice\n",
		"skill/phases/01-step.md": "# Phase 1: Step\n## Execution Steps\n### Step 1: Note\n```bash\necho $$ >> ran.log; sleep 0.3\n```\n",
	})
	work := filepath.Join(dir, "work")
	var cmds [2]*exec.Cmd
	var out [2]bytes.Buffer
	for i := range cmds {
		cmds[i] = skillkitCmd(t, "run", filepath.Join(dir, "skill"), "--workdir", work)
		cmds[i].Dir, cmds[i].Stdout, cmds[i].Stderr = dir, &out[i], &out[i]
	}
	for _, c := range cmds {
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
	}
	var codes [2]int
	for i, c := range cmds {
		c.Wait()
		codes[i] = c.ProcessState.ExitCode()
	}
	if !(codes[0] == 0 && codes[1] == ExitUsage || codes[0] == ExitUsage && codes[1] == 0) {
		t.Fatalf("exit codes %v, want one 0 and one %d:\n%s\n%s", codes, ExitUsage, &out[0], &out[1])
	}
	loser := 0
	if codes[1] == ExitUsage {
		loser = 1
	}
	if !strings.Contains(out[loser].String(), "a run is already there") {
		t.Errorf("the refused run said %q", &out[loser])
	}
	events, err := fsstore.New(fsstore.Options{}).Events(work)
	if err != nil {
		t.Fatal(err)
	}
	starts := 0
	for _, e := range events {
		if e.Start != nil {
			starts++
		}
	}
	data, _ := os.ReadFile(filepath.Join(work, "ran.log"))
	if starts != 1 || len(strings.Fields(string(data))) != 1 {
		t.Errorf("the work dir holds %d run starts and %d step runs, want 1 and 1", starts, len(strings.Fields(string(data))))
	}
}

// startUntil starts cmd, its stderr kept, and waits until the step it
// runs writes the file started (killing it after limit); it returns the
// stderr.
func startUntil(t *testing.T, cmd *exec.Cmd, started string, limit time.Duration) *bytes.Buffer {
	t.Helper()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(limit); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(started); err == nil {
			return &stderr
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("the step never started: %s", &stderr)
		}
	}
}
