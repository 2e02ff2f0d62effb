package mcp

import (
	"bufio"
	"bytes"
	"io"
	"slices"
	"strings"
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
			log: func(b []byte, _ bool) { logged = append(logged, bytes.Clone(b)) }}
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

// secret is what the tests of stderrLog scrub: upper case and digits, so
// that any piece of it shows in a log of lower-case text.
const secret = "S3CR3T-T0K3N"

func scrubSecret(s string) string { return strings.ReplaceAll(s, secret, "[scrubbed]") }

// stderrLogOf writes data to a server's stderr log in writes cut at the
// given lengths, flushes it and returns what the log got.
func stderrLogOf(data []byte, writes []int) string {
	var log strings.Builder
	s := &stderrLog{l: &serverLog{w: &log, name: "s", scrub: scrubSecret, left: serverLogMax}}
	for _, n := range writes {
		n = min(n, len(data))
		s.Write(data[:n])
		data = data[n:]
	}
	s.Write(data)
	s.Flush()
	return log.String()
}

// FuzzStderrLog: however a server's stderr is cut into writes, the log
// gets each of its lines whole and scrubbed, the last one too, and
// nothing else.
func FuzzStderrLog(f *testing.F) {
	f.Add([]byte("using token "+secret+"\nstarting\n"), []byte{14})
	f.Add([]byte("a\n\nlast words "+secret), []byte{3, 1, 12})
	f.Add([]byte(secret+secret+"\n"), []byte{5, 0, 9})
	f.Fuzz(func(t *testing.T, data []byte, cuts []byte) {
		writes := make([]int, len(cuts))
		for i, c := range cuts {
			writes[i] = int(c)
		}
		got := stderrLogOf(data, writes)
		var want strings.Builder
		for line := range strings.Lines(scrubSecret(string(data))) {
			want.WriteString("mcp s stderr: " + strings.TrimSuffix(line, "\n") + "\n")
		}
		if got != want.String() {
			t.Errorf("logged %q, want %q", got, want.String())
		}
	})
}

// TestStderrLogLongLine: a line longer than the log holds, coming in
// writes as a pipe gives them, is logged in pieces, cut where no secret
// crosses, wherever the secrets fall against the cut; nothing of it is
// lost.
func TestStderrLogLongLine(t *testing.T) {
	for _, at := range []int{0, logLineMax - cutKeep - 5, logLineMax - cutKeep, logLineMax - 6, logLineMax - 1, 2*logLineMax - 3} {
		for _, size := range []int{4096, 32 << 10, logLineMax - 3} {
			line := bytes.Repeat([]byte("x"), 3*logLineMax)
			writes := slices.Repeat([]int{size}, len(line)/size+1)
			// A secret every cutStep bytes from at on, and one at at.
			n := 0
			for i := at; i+len(secret) < len(line); i += cutStep + 3 {
				copy(line[i:], secret)
				n++
			}
			got := stderrLogOf(append(line, '\n'), writes)
			rest := strings.ReplaceAll(got, "[scrubbed]", "")
			rest = strings.ReplaceAll(rest, "mcp s stderr: ", "")
			if strings.ContainsAny(rest, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") {
				t.Fatalf("secrets from %d, write size %d: a piece of one is logged", at, size)
			}
			if c := strings.Count(got, "[scrubbed]"); c != n {
				t.Errorf("secrets from %d, write size %d: %d scrubbed, want %d", at, size, c, n)
			}
			if x := strings.Count(rest, "x"); x != len(line)-n*len(secret) {
				t.Errorf("secrets from %d, write size %d: %d bytes of the line logged, want %d", at, size, x, len(line)-n*len(secret))
			}
			if lines := strings.Count(got, "\n"); lines < 3 {
				t.Errorf("secrets from %d, write size %d: the line is logged in %d pieces", at, size, lines)
			}
		}
	}
}

// TestStdoutLogLineCutBeforeASecret: a log line on a server's stdout
// longer than logLineMax is logged up to a point no secret crosses (the
// rest is dropped): it was cut at logLineMax, so the head of a secret
// that crossed it reached the log, which the scrubber could not know.
func TestStdoutLogLineCutBeforeASecret(t *testing.T) {
	for _, at := range []int{logLineMax - len(secret) + 1, logLineMax - 5, logLineMax - cutKeep - 3} {
		line := bytes.Repeat([]byte("x"), logLineMax+4096)
		for i := at; i+len(secret) < len(line); i += cutStep + 3 {
			copy(line[i:], secret)
		}
		var log strings.Builder
		slog := &serverLog{w: &log, name: "s", scrub: scrubSecret, left: serverLogMax}
		in := append(append(line, '\n'), `{"jsonrpc":"2.0"}`+"\n"...)
		l := newLogLines(io.NopCloser(bytes.NewReader(in)), slog.stdout)
		got, err := io.ReadAll(l)
		if err != nil || string(got) != `{"jsonrpc":"2.0"}`+"\n" {
			t.Fatalf("passed on %q, %v", got, err)
		}
		rest := strings.ReplaceAll(strings.ReplaceAll(log.String(), "[scrubbed]", ""), "mcp s stdout: ", "")
		if strings.ContainsAny(rest, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") {
			t.Errorf("secrets from %d: a piece of one is logged", at)
		}
		if n := strings.Count(rest, "x"); n < logLineMax-2*cutKeep {
			t.Errorf("secrets from %d: %d bytes of the line logged", at, n)
		}
	}
}
