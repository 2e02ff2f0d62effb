//go:build !unix

package main

import "os"

// isTerminal is false where skillkit cannot ask the terminal driver: the
// output is then plain lines, which every console shows.
func isTerminal(any) bool { return false }

// termWidth is unknown off unix.
func termWidth(any) (int, bool) { return 0, false }

// notifyResize never fires off unix.
func notifyResize(chan<- os.Signal) {}
