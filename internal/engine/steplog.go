package engine

import (
	"bytes"
	"fmt"
)

// stepLog streams a command's output into one of the run's logs as it
// comes, after a header: the output of a step is never whole in memory,
// however much it prints. The command's goroutines write to it one at a
// time (proc serialises them); close is called after the command ended.
type stepLog struct {
	r      *Runner
	name   string
	header string
	// started says the header is written; evidence that the output holds
	// more than blanks; last is the last byte written.
	started, evidence bool
	last              byte
	err               error
}

func (l *stepLog) Write(p []byte) (int, error) {
	if len(p) == 0 || l.err != nil {
		return len(p), nil
	}
	text := string(p)
	if !l.started {
		text = l.header + text
		l.started = true
	}
	if l.err = l.r.o.Run.Log(l.name, text); l.err == nil {
		l.evidence = l.evidence || len(bytes.TrimSpace(p)) > 0
		l.last = p[len(p)-1]
	}
	return len(p), nil
}

// close ends the log's entry with a newline and reports whether the
// output was captured as evidence: something other than blanks, all
// written.
func (l *stepLog) close() bool {
	if l.started && l.err == nil && l.last != '\n' {
		l.err = l.r.o.Run.Log(l.name, "\n")
	}
	if l.err != nil {
		l.r.history(fmt.Errorf("logging %s: %w", l.name, l.err))
	}
	return l.evidence && l.err == nil
}
