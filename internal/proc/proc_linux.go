package proc

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// parentDeath has the command killed when the runner dies, even by
// SIGKILL. Linux sends the signal to the direct child only (the shell);
// what the shell started in its group is killed by the resume, which finds
// the group in the run's record. The signal follows the thread that
// started the command, not the process: Go ends a thread only when a
// goroutine exits locked to it, which nothing here does.
func parentDeath(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }

// zombie reports whether the process pid has exited and waits for its
// parent to reap it.
func zombie(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// The state follows the command name, which is in parentheses.
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] == 'Z'
}
