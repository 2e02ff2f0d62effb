//go:build !unix

package proc

import (
	"os"
	"os/exec"
)

// ownGroup keeps exec's default on systems without process groups.
func ownGroup(*exec.Cmd) {}

// killGroup kills the command itself: its children are beyond reach
// without process groups.
func killGroup(p *os.Process) { p.Kill() }

// KillGroup does nothing without process groups.
func KillGroup(int) error { return nil }

// Alive reports whether the process pid exists.
func Alive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	p.Release()
	return true
}
