package mcp

import (
	"bufio"
	"bytes"
	"errors"
	"io"
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
