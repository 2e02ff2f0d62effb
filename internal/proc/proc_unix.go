//go:build unix

package proc

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// ownGroup starts the command in a process group of its own, so that
// `sleep 100 &` under a shell can be killed with the shell.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	parentDeath(cmd.SysProcAttr)
}

// killGroup kills the process group p leads, whatever is left of it.
func killGroup(p *os.Process) { KillGroup(p.Pid) }

// KillGroup kills every process of the process group pgid with SIGKILL. A
// group that is gone already is no error.
func KillGroup(pgid int) error {
	if pgid <= 1 {
		// -1 and -0 would mean every process we may signal, or our own
		// group: never a command's group.
		return nil
	}
	if err := syscall.Kill(-pgid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	return nil
}

// Alive reports whether the process pid runs: it exists, and it is not a
// zombie (a killed orphan until init reaps it). A process of another user
// counts (EPERM).
func Alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return (err == nil || errors.Is(err, syscall.EPERM)) && !zombie(pid)
}
