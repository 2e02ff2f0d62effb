//go:build unix

package skillfs

import "syscall"

// nonBlock keeps the open of a FIFO from waiting for a writer.
const nonBlock = syscall.O_NONBLOCK
