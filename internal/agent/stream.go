package agent

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/skillkit/skillkit/internal/proc"
)

// DefaultStall is how long an agent may print nothing before a notice
// says so, when Agent.StallAfter is zero.
const DefaultStall = 60 * time.Second

// Activity is what a streaming agent is doing, for the live line: the
// tool it uses now, the turns so far, the time since the call began.
type Activity struct {
	// Agent is the adapter's name: claude or codex.
	Agent   string
	Tool    string
	Turns   int
	Elapsed time.Duration
	// Silent is set on a stall notice: how long the agent has made no
	// progress. Waiting is what it said meanwhile, if anything: a
	// reconnect.
	Silent  time.Duration
	Waiting string
	// Limit is the call's time limit, for the notice to say when it
	// ends.
	Limit time.Duration
	// Done marks the call's end: the live line drops the agent's part.
	Done bool
}

// String is the agent's part of the live line: "claude: Bash · 3 turns".
func (a Activity) String() string {
	s := a.Agent
	if a.Tool != "" {
		s += ": " + oneLine(a.Tool)
	}
	if a.Turns > 0 {
		s += fmt.Sprintf(" · %d turns", a.Turns)
	}
	if a.Waiting != "" {
		s += " · reconnecting"
	}
	return s
}

// oneLine is what the agent reports (codex's commands are the model's,
// often a heredoc of several lines) as one line of the terminal, its
// control bytes shown, not acted on: a line break in the live line left
// a line behind at every redraw.
func oneLine(s string) string { return shown(strings.Join(strings.Fields(s), " ")) }

// Notice is the line a stall prints, "" when the agent is not stalled.
func (a Activity) Notice() string {
	if a.Silent <= 0 {
		return ""
	}
	if a.Waiting != "" {
		return fmt.Sprintf("no progress from %s for %v, it says: %s; the call ends at --agent-timeout %v",
			a.Agent, a.Silent.Round(time.Second), oneLine(a.Waiting), a.Limit)
	}
	return fmt.Sprintf("no output from %s for %v; the call ends at --agent-timeout %v (it may be waiting for the network or a login: skillkit doctor checks)",
		a.Agent, a.Silent.Round(time.Second), a.Limit)
}

// lines splits a command's stdout into lines as it comes and hands each
// to a reader of events. A line is kept up to max bytes: the rest of a
// longer one is dropped and the line is marked cut, so that memory stays
// bounded whatever the command prints (a 50 MB stream, a line without
// end).
type lines struct {
	mu   sync.Mutex
	max  int
	buf  []byte
	long bool
	ev   events
	log  io.Writer
	// last is when the agent last made progress; the stall watch reads
	// it.
	last time.Time
}

func (l *lines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.log != nil {
		// A log that fails (a full disk) does not fail the call.
		l.log.Write(p)
	}
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		chunk := p
		if i >= 0 {
			chunk = p[:i]
		}
		if room := l.max - len(l.buf); !l.long && len(chunk) > room {
			l.buf, l.long = append(l.buf, chunk[:room]...), true
		} else if !l.long {
			l.buf = append(l.buf, chunk...)
		}
		if i < 0 {
			break
		}
		l.emit()
		p = p[i+1:]
	}
	return n, nil
}

// flush hands over a last line that has no newline: a command that died
// mid-line.
func (l *lines) flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.buf) > 0 || l.long {
		l.emit()
	}
}

func (l *lines) emit() {
	if line := bytes.TrimSpace(l.buf); len(line) > 0 || l.long {
		if l.ev.line(line, l.long) {
			l.last = time.Now()
		}
	}
	l.buf, l.long = l.buf[:0], false
}

// since is how long the agent has made no progress.
func (l *lines) since() time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	return time.Since(l.last)
}

// events reads one streaming call's stdout, a JSON event per line, and
// decides how the call ended.
type events interface {
	// line sees one line as it comes; cut says its end was dropped. It
	// reports whether the line is progress: a reconnect is not.
	line(b []byte, cut bool) bool
	// activity is what the agent does now, for the live line.
	activity() Activity
	// end decides the call once the command ended, from how it ended
	// and its stderr's tail: its answer, or its failure in the agent's
	// words.
	end(res proc.Result) (reply, error)
}

// watch tells progress what the agent does, every tick, and a stall
// notice once the agent has been silent for stall, until done closes.
func watch(l *lines, start time.Time, stall, limit time.Duration, progress func(Activity), done <-chan struct{}) {
	tick := time.NewTicker(min(time.Second, stall/4+1))
	defer tick.Stop()
	noticed := false
	for {
		select {
		case <-done:
			l.mu.Lock()
			a := l.ev.activity()
			l.mu.Unlock()
			a.Elapsed, a.Done = time.Since(start), true
			progress(a)
			return
		case <-tick.C:
		}
		silent := l.since()
		l.mu.Lock()
		a := l.ev.activity()
		l.mu.Unlock()
		a.Elapsed, a.Limit = time.Since(start), limit
		switch {
		case silent >= stall && !noticed:
			a.Silent, noticed = silent, true
		case silent < stall:
			// It spoke again: a later silence gets its own notice.
			noticed = false
		}
		progress(a)
	}
}

// exited says how a command that failed ended: "exited with status 3",
// "was killed (signal: killed)".
func exited(res proc.Result) string {
	if res.Signal != "" {
		return "was killed (" + res.Signal + ")"
	}
	return fmt.Sprintf("exited with status %d", res.ExitCode)
}

// firstLine is the first non-empty line of s, for a one-line message.
func firstLine(s string) string {
	for line := range strings.Lines(s) {
		if line = strings.TrimSpace(line); line != "" {
			return line
		}
	}
	return ""
}
