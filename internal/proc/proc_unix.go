//go:build unix

package proc

import (
	"os/exec"
	"syscall"
)

// killGroup starts the command in its own process group and makes
// cancellation kill the whole group, so `sleep 100` under a shell dies with
// the shell.
func killGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
