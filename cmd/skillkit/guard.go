package main

import (
	"fmt"
	"io"
	"runtime"
	"strings"
)

// stackFrames is how many frames of a panic's stack the report shows:
// enough to find the fault, short enough to paste into an issue.
const stackFrames = 10

// guard runs a command and turns a panic that reaches it into exit 3 and a
// report on w: the panic value and where it happened, never a raw Go
// stack trace. Whatever skill files or skill code do, a panic is
// skillkit's bug, so the message asks for a report.
func guard(w io.Writer, command func() int) (code int) {
	defer func() {
		if p := recover(); p != nil {
			fmt.Fprintf(w, "skillkit: internal error, please report: %v\n%s", p, panicStack())
			code = ExitInternal
		}
	}()
	return command()
}

// panicStack is the stack of the panicking goroutine from the frame that
// panicked down, one "\tat function (file:line)" line per frame. It must
// be called from the deferred function that recovered.
func panicStack() string {
	pcs := make([]uintptr, 64)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(1, pcs)])
	var b strings.Builder
	seenPanic, n := false, 0
	for f, more := frames.Next(); more && n < stackFrames; f, more = frames.Next() {
		if !seenPanic {
			// Frames above runtime.gopanic are the recovery itself.
			seenPanic = f.Function == "runtime.gopanic"
			continue
		}
		if strings.HasPrefix(f.Function, "runtime.") {
			// A runtime error (nil map, bad index) panics from inside
			// the runtime: its frames say nothing about skillkit.
			continue
		}
		fmt.Fprintf(&b, "\tat %s (%s:%d)\n", f.Function, f.File, f.Line)
		n++
	}
	return b.String()
}
