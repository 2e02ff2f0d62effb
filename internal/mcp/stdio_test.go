package mcp

import (
	"bufio"
	"bytes"
	"io"
	"testing"
)

// FuzzLogLines: what a server writes on stdout reaches the client without
// its log lines, byte for byte otherwise, however long the lines are
// against the buffer (16 bytes here, so that lines cross it).
func FuzzLogLines(f *testing.F) {
	f.Add([]byte("Starting...\n{\"jsonrpc\":\"2.0\"}\n"))
	f.Add([]byte("a line far longer than the buffer of sixteen bytes\n[1,2]\n  {\"x\": 1}"))
	f.Add([]byte("{\"long\": \"a message far longer than the buffer\"}\nlog\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		const size = 16
		var logged [][]byte
		l := &logLines{Closer: io.NopCloser(nil), r: bufio.NewReaderSize(bytes.NewReader(data), size),
			log: func(b []byte) { logged = append(logged, bytes.Clone(b)) }}
		got, err := io.ReadAll(l)
		if err != nil {
			t.Fatal(err)
		}
		var want []byte
		logs := 0
		for line := range bytes.Lines(data) {
			if isRPCLine(line[:min(len(line), size)]) {
				want = append(want, line...)
			} else {
				logs++
			}
		}
		if !bytes.Equal(got, want) || len(logged) != logs {
			t.Errorf("passed on %q, want %q; %d lines logged, want %d", got, want, len(logged), logs)
		}
	})
}
