package main

import (
	"bytes"
	"strings"
	"testing"
)

// A panic that reaches the command boundary exits 3 with a report naming
// the panic and where it happened, and no raw Go stack trace.
func TestGuardReportsPanics(t *testing.T) {
	var stderr bytes.Buffer
	code := guard(&stderr, func() int {
		// An index out of range: a runtime error, as a real bug would be.
		return len(strings.Fields("")[0])
	})
	out := stderr.String()
	if code != ExitInternal {
		t.Errorf("exit %d, want %d", code, ExitInternal)
	}
	if !strings.HasPrefix(out, "skillkit: internal error, please report: runtime error: index out of range [0] with length 0\n\tat ") {
		t.Errorf("report:\n%s", out)
	}
	if first := strings.SplitN(out, "\n", 3)[1]; !strings.Contains(first, "TestGuardReportsPanics") || !strings.Contains(first, "guard_test.go:") {
		t.Errorf("the first frame is %q, want the function that panicked", first)
	}
	if strings.Contains(out, "goroutine ") || strings.Contains(out, "runtime.") || strings.Count(out, "\n") > stackFrames+1 {
		t.Errorf("the report holds a raw or long Go stack trace:\n%s", out)
	}
	if got := guard(&stderr, func() int { return ExitFailed }); got != ExitFailed {
		t.Errorf("a command that does not panic: exit %d, want its own %d", got, ExitFailed)
	}
}
