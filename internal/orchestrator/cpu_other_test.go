//go:build !unix

package orchestrator_test

import "time"

// cpuTime is -1: the process's CPU is not read here.
func cpuTime() time.Duration { return -1 }
