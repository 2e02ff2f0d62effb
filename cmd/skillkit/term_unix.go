//go:build unix

package main

import (
	"os"
	"os/signal"

	"golang.org/x/sys/unix"
)

// isTerminal reports whether a stream is a terminal: colour, live
// progress and interactive prompts only go to one. It asks the terminal
// driver for the window size, which only a terminal answers: a file
// mode check takes /dev/null, a character device, for one.
func isTerminal(v any) bool {
	_, ok := termWidth(v)
	return ok
}

// termWidth is the width in columns of the terminal v is, if it is one.
func termWidth(v any) (int, bool) {
	f, ok := v.(*os.File)
	if !ok {
		return 0, false
	}
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil {
		return 0, false
	}
	return int(ws.Col), true
}

// notifyResize sends on c when the terminal changes size (SIGWINCH).
func notifyResize(c chan<- os.Signal) { signal.Notify(c, unix.SIGWINCH) }
