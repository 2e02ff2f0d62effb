package proc

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// needCgroups skips where cgroup v2 is not writable (a user's machine
// without delegation): there a setsid child may outlive its step, as
// docs/runtime.md says.
func needCgroups(t *testing.T) {
	if cgroupBase() == "" {
		t.Skip("cgroup v2 is not mounted or not writable here")
	}
}

// A setsid child leaves its process group: the command's cgroup ends it
// when the command exits and when it times out (F6, N14).
func TestSetsidChildDiesWithItsCommand(t *testing.T) {
	needCgroups(t)
	res, err := Run(context.Background(), Cmd{Name: "sh", Args: []string{"-c", "setsid sleep 1000 & echo $!"}})
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(res.Stdout))
	waitDead(t, pid)

	pidFile := filepath.Join(t.TempDir(), "pid")
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	Run(ctx, Cmd{Name: "sh", Args: []string{"-c", "setsid sleep 1000 & echo $! > " + pidFile + "; sleep 1000"}})
	data, _ := os.ReadFile(pidFile)
	pid, _ = strconv.Atoi(strings.TrimSpace(string(data)))
	if pid == 0 {
		t.Fatal("the command did not start its child")
	}
	waitDead(t, pid)
}

const helperEnv = "SKILLKIT_PROC_HELPER"

// TestMain lets the test binary be a runner of its own, to be killed.
func TestMain(m *testing.M) {
	if f := os.Getenv(helperEnv); f != "" {
		Run(context.Background(), Cmd{Name: "sh", Args: []string{"-c", "setsid sleep 1000 & echo $! > " + f + "; sleep 1000"}})
		os.Exit(0)
	}
	code := m.Run()
	RemoveIdle()
	os.Exit(code)
}

// A runner killed with SIGKILL mid-command leaves a setsid child that no
// parent-death signal reaches; the next runner (a resume) ends it before
// it runs anything (F6, N14).
func TestKilledRunnerLeavesNoOrphans(t *testing.T) {
	needCgroups(t)
	for i := range 3 {
		pidFile := filepath.Join(t.TempDir(), "pid")
		runner := exec.Command(os.Args[0], "-test.run=^$")
		runner.Env = append(os.Environ(), helperEnv+"="+pidFile)
		if err := runner.Start(); err != nil {
			t.Fatal(err)
		}
		var pid int
		for deadline := time.Now().Add(10 * time.Second); pid == 0 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			data, _ := os.ReadFile(pidFile)
			pid, _ = strconv.Atoi(strings.TrimSpace(string(data)))
		}
		if pid == 0 {
			t.Fatal("the runner's command did not start its child")
		}
		runner.Process.Signal(syscall.SIGKILL)
		runner.Wait()
		time.Sleep(100 * time.Millisecond)
		if !Alive(pid) {
			t.Logf("case %d: the child died with its runner already", i)
		}
		SweepOrphans()
		waitDead(t, pid)
	}
}

// A cgroup its command left empty takes the next command; one that held
// what the command left (a setsid child) is removed, and RemoveIdle
// leaves none of this process's behind.
func TestCgroupKeptWhenEmpty(t *testing.T) {
	needCgroups(t)
	RemoveIdle()
	own := func() string {
		t.Helper()
		res, err := Run(context.Background(), Cmd{Name: "cat", Args: []string{"/proc/self/cgroup"}})
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(res.Stdout, "\n") {
			if p, ok := strings.CutPrefix(l, "0::"); ok {
				return filepath.Base(p)
			}
		}
		t.Fatalf("no cgroup v2 line in %q", res.Stdout)
		return ""
	}
	first := own()
	if !strings.HasPrefix(first, "skillkit-") {
		t.Fatalf("the command ran in %s, not a cgroup of its own", first)
	}
	if again := own(); again != first {
		t.Errorf("the second command ran in %s, not in %s, which the first left empty", again, first)
	}
	res, err := Run(context.Background(), Cmd{Name: "sh", Args: []string{"-c", "setsid sleep 1000 & echo $!; cat /proc/self/cgroup"}})
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.SplitN(res.Stdout, "\n", 2)[0])
	waitDead(t, pid)
	if _, err := os.Stat(filepath.Join(cgroupBase(), first)); !os.IsNotExist(err) {
		t.Errorf("the cgroup the setsid child was left in is still there (%v)", err)
	}
	if next := own(); next == first {
		t.Errorf("a command ran in %s again, after it held a setsid child", next)
	}
	RemoveIdle()
	entries, _ := os.ReadDir(cgroupBase())
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), fmt.Sprintf("skillkit-%d-", os.Getpid())) {
			t.Errorf("RemoveIdle left %s", e.Name())
		}
	}
}

// A cgroup its command's timeout killed is not kept: what starts in a
// killed cgroup dies at once on the kernels we run on, and the command
// after a timeout must run.
func TestKilledCgroupNotKept(t *testing.T) {
	needCgroups(t)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := Run(ctx, Cmd{Name: "sh", Args: []string{"-c", "sleep 1000"}}); err == nil {
		t.Fatal("the command outlived its timeout")
	}
	for range 3 {
		res, err := Run(context.Background(), Cmd{Name: "sh", Args: []string{"-c", "echo ran"}})
		if err != nil || res.ExitCode != 0 || res.Stdout != "ran\n" {
			t.Fatalf("the command after a timeout: %+v, %v", res, err)
		}
	}
}
