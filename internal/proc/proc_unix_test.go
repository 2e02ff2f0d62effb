//go:build unix

package proc

import (
	"context"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A command that leaves a background process behind has finished when it
// exits: its exit code and output stand, and the background process is
// killed with its group rather than waited for.
func TestRunKillsBackgroundChildAtExit(t *testing.T) {
	start := time.Now()
	res, err := Run(context.Background(), Cmd{Name: "sh", Args: []string{"-c", "sleep 1000 & echo $!; exit 0"}, Dir: t.TempDir()})
	if err != nil {
		t.Fatalf("err = %v, want the command's own result", err)
	}
	pid, perr := strconv.Atoi(strings.TrimSpace(res.Stdout))
	if res.ExitCode != 0 || perr != nil {
		t.Fatalf("got %+v, want exit 0 and the child's pid", res)
	}
	if d := time.Since(start); d >= waitDelay {
		t.Errorf("took %v: the background child was waited for", d)
	}
	waitDead(t, pid)
}

// waitDead fails unless the process pid is gone within a few seconds (a
// killed orphan is reaped by init a little later).
func waitDead(t *testing.T, pid int) {
	t.Helper()
	for range 100 {
		if !Alive(pid) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Errorf("process %d outlived its command", pid)
}

type groups struct{ started, ended []int }

func (g *groups) Started(pgid int) { g.started = append(g.started, pgid) }
func (g *groups) Ended(pgid int)   { g.ended = append(g.ended, pgid) }

// The groups a command ran in are reported while it runs, so that a run's
// record can name them; KillGroup kills a group a dead runner left.
func TestRunReportsAndKillGroup(t *testing.T) {
	g := &groups{}
	res, err := Run(WithGroups(context.Background(), g), Cmd{Name: "sh", Args: []string{"-c", "echo $$"}})
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(res.Stdout))
	if len(g.started) != 1 || g.started[0] != pid || len(g.ended) != 1 || g.ended[0] != pid {
		t.Errorf("groups started %v ended %v, want [%d] both", g.started, g.ended, pid)
	}

	cmd := exec.Command("sh", "-c", "sleep 1000 & wait")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if err := KillGroup(cmd.Process.Pid); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if err := KillGroup(cmd.Process.Pid); err != nil {
		t.Errorf("killing a group that is gone: %v", err)
	}
}
