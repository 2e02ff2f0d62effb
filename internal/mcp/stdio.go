package mcp

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"
)

// logLines passes on a stdio server's JSON-RPC lines and hands the others
// to log: servers print their start-up banner or a debug line on stdout,
// and Claude Code's client skips such lines. A line counts as JSON-RPC
// when it starts, past blanks, with "{" or "[" (or is blank): a broken
// JSON object still fails the connection, as a broken server should.
type logLines struct {
	io.Closer
	r   *bufio.Reader
	log func(line []byte)
	// pending is the rest of a passed-on line that Read has not returned.
	pending []byte
	// passing and skipping say that the line under way, longer than the
	// buffer, is passed on or was logged (its rest is dropped).
	passing, skipping bool
}

// logLineMax is how much of a log line is logged; the rest is dropped.
const logLineMax = 64 << 10

func newLogLines(r io.ReadCloser, log func([]byte)) *logLines {
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
			l.log(bytes.TrimRight(chunk, "\r\n"))
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

func (l *serverLog) write(stream string, b []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cut {
		return
	}
	if len(b) > l.left {
		b, l.cut = b[:l.left], true
	}
	l.left -= len(b)
	if len(b) > 0 {
		fmt.Fprintf(l.w, "mcp %s %s: %s", l.name, stream, l.scrub(string(b)))
	}
	if l.cut {
		fmt.Fprintf(l.w, "\nmcp %s %s: (cut: more than %d MiB)\n", l.name, stream, serverLogMax>>20)
	}
}

// stderrLog is a server's stderr as a writer of its log.
type stderrLog struct{ l *serverLog }

func (s stderrLog) Write(b []byte) (int, error) {
	s.l.write("stderr", b)
	return len(b), nil
}
