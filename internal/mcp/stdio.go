package mcp

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
)

// logLines passes on a stdio server's JSON-RPC lines and hands the others
// to log: servers print their start-up banner or a debug line on stdout,
// and Claude Code's client skips such lines. A line counts as JSON-RPC
// when it starts, past blanks, with "{" or "[" (or is blank): a broken
// JSON object still fails the connection, as a broken server should.
type logLines struct {
	io.Closer
	r *bufio.Reader
	// log gets each line that is not JSON-RPC, without its newline;
	// cut says it is the first logLineMax bytes of a longer one.
	log func(line []byte, cut bool)
	// pending is the rest of a passed-on line that Read has not returned.
	pending []byte
	// passing and skipping say that the line under way, longer than the
	// buffer, is passed on or was logged (its rest is dropped).
	passing, skipping bool
}

// logLineMax is how much of a log line is logged; the rest is dropped.
const logLineMax = 64 << 10

func newLogLines(r io.ReadCloser, log func(line []byte, cut bool)) *logLines {
	return &logLines{Closer: r, r: bufio.NewReaderSize(r, logLineMax), log: log}
}

func (l *logLines) Read(p []byte) (int, error) {
	for len(l.pending) == 0 {
		chunk, err := l.r.ReadSlice('\n')
		whole := !errors.Is(err, bufio.ErrBufferFull)
		switch {
		case len(chunk) == 0:
		case l.passing:
			l.pending, l.passing = chunk, !whole
		case l.skipping:
			l.skipping = !whole
		case isRPCLine(chunk):
			l.pending, l.passing = chunk, !whole
		default:
			l.log(bytes.TrimRight(chunk, "\r\n"), !whole)
			l.skipping = !whole
		}
		if err != nil && whole {
			if len(l.pending) > 0 {
				// The last line without its newline: returned before
				// the error, which the next Read meets again.
				break
			}
			return 0, err
		}
	}
	n := copy(p, l.pending)
	l.pending = l.pending[n:]
	return n, nil
}

// isRPCLine reports whether a line from a server's stdout is meant as a
// JSON-RPC message (or is blank): it starts with "{" or "[".
func isRPCLine(line []byte) bool {
	t := bytes.TrimLeft(line, " \t\r\n")
	return len(t) == 0 || t[0] == '{' || t[0] == '['
}

// serverLog is what a stdio server writes to the run's log beside its
// calls: its stderr and the log lines of its stdout, scrubbed, up to
// serverLogMax bytes, so that a server that floods them fills no disk.
// The end of its stderr is kept for errors apart (conn.stderr).
type serverLog struct {
	mu    sync.Mutex
	w     io.Writer
	name  string
	scrub func(string) string
	left  int
	// cut is set once the bound is reached: the rest is dropped.
	cut bool
}

// serverLogMax bounds what one server writes to the log besides its calls.
const serverLogMax = 1 << 20

// write logs whole lines of a stream, each ending in a newline, one log
// line each. The text is scrubbed before it is bounded: cutting first
// could leave the head of a secret that the scrubber no longer knows.
func (l *serverLog) write(stream string, lines []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cut {
		return
	}
	text := l.scrub(string(lines))
	if len(text) > l.left {
		text, l.cut = text[:l.left], true
	}
	l.left -= len(text)
	var b strings.Builder
	for line := range strings.Lines(text) {
		fmt.Fprintf(&b, "mcp %s %s: %s", l.name, stream, line)
	}
	if l.cut {
		fmt.Fprintf(&b, "\nmcp %s %s: (cut: more than %d MiB)\n", l.name, stream, serverLogMax>>20)
	}
	io.WriteString(l.w, b.String())
}

// stdout logs a line of the server's stdout that is not JSON-RPC. Of a
// line cut at logLineMax, whose rest is dropped, it logs the part before
// a point no secret crosses (safeCut): the head of a secret that crossed
// the cut would be logged as it is.
func (l *serverLog) stdout(line []byte, cut bool) {
	if cut {
		line = line[:safeCut(line, l.scrub)]
	}
	// A copy: line is the reader's buffer.
	l.write("stdout", append(line[:len(line):len(line)], '\n'))
}

// stderrLog is a server's stderr as a writer of its log. It passes on
// whole lines, so that the scrubber sees a secret whole however the pipe
// cut the server's writes; the lines a read brings are scrubbed
// together, so that a secret holding a newline (a PEM key) written at
// once is scrubbed too. Flush logs the last line, which may have no
// newline, once the server is gone.
type stderrLog struct {
	mu sync.Mutex
	l  *serverLog
	// line is the line under way, never longer than logLineMax.
	line []byte
}

func (s *stderrLog) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(b)
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		s.l.write("stderr", append(s.line, b[:i+1]...))
		s.line, b = s.line[:0], b[i+1:]
	}
	for len(s.line)+len(b) >= logLineMax {
		k := logLineMax - len(s.line)
		s.line, b = append(s.line, b[:k]...), b[k:]
		c := safeCut(s.line, s.l.scrub)
		s.l.write("stderr", append(s.line[:c:c], '\n'))
		s.line = append(s.line[:0], s.line[c:]...)
	}
	s.line = append(s.line, b...)
	return n, nil
}

// Flush logs the line under way, as the server left it.
func (s *stderrLog) Flush() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.line) > 0 {
		s.l.write("stderr", append(s.line, '\n'))
		s.line = nil
	}
}

// safeCut is where a line too long to hold (logLineMax bytes without a
// newline) is cut into a piece logged now and a rest kept: a point that
// no secret crosses, so that neither piece holds part of one. The
// scrubber only rewrites text, so a point is tried by scrubbing both
// sides and the whole: where they differ, a secret crosses it. The rest
// is at least cutKeep bytes, so a secret up to that long that starts in
// the piece ends in the line and is seen. Secrets are tokens, passwords
// and keys, of a few KiB at most; one longer than cutKeep and written on
// one line longer than logLineMax is not scrubbed.
func safeCut(line []byte, scrub func(string) string) int {
	whole := scrub(string(line))
	for c := len(line) - cutKeep; c > 0; c -= cutStep {
		if scrub(string(line[:c]))+scrub(string(line[c:])) == whole {
			return c
		}
	}
	// Secrets all along the line: the piece is all of it, scrubbed whole.
	return len(line)
}

// cutKeep and cutStep: how much of a cut line is kept at least, and how
// far apart the points safeCut tries are.
const (
	cutKeep = logLineMax / 4
	cutStep = 512
)
