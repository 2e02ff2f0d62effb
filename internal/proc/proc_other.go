//go:build !unix

package proc

import "os/exec"

// killGroup keeps exec's default on systems without process groups: the
// command itself is killed and WaitDelay bounds the wait for its children.
func killGroup(*exec.Cmd) {}
