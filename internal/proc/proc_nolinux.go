//go:build unix && !linux

package proc

import "syscall"

// parentDeath does nothing where there is no parent-death signal: a resume
// kills the groups a dead runner left, from the run's record.
func parentDeath(*syscall.SysProcAttr) {}

// zombie cannot tell a zombie without /proc: it counts as alive until
// reaped.
func zombie(int) bool { return false }
