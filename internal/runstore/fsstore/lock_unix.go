//go:build unix

package fsstore

import (
	"os"
	"syscall"
)

// tryLock takes an exclusive lock on f without waiting. flock, not fcntl:
// its lock belongs to the open file, so the process's other descriptors of
// the same file do not release it, and the system drops it when the
// process dies.
func tryLock(f *os.File) bool {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil
}
