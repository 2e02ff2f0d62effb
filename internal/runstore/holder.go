package runstore

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/skillkit/skillkit/internal/proc"
)

// Hostname is this machine's name, as claims record their holder's.
func Hostname() string {
	h, _ := os.Hostname()
	return h
}

// Holder names a claim's holder as pid@host.
func Holder(pid int, host string) string { return fmt.Sprintf("%d@%s", pid, host) }

// Gone reports whether the holder pid@host is known to be dead: it ran on
// this machine and its process is gone. A holder elsewhere is judged by
// its heartbeat alone.
func Gone(holder string) bool {
	pid, host, ok := cutHolder(holder)
	return ok && host == Hostname() && !proc.Alive(pid)
}

// cutHolder splits pid@host.
func cutHolder(holder string) (pid int, host string, ok bool) {
	p, host, ok := strings.Cut(holder, "@")
	pid, err := strconv.Atoi(p)
	return pid, host, ok && err == nil
}
