//go:build unix

package orchestrator_test

import (
	"syscall"
	"time"
)

// cpuTime is the CPU this process has used so far, user and system; -1
// where getrusage does not say.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return -1
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
