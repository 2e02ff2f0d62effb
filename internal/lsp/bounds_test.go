package lsp

import (
	"bytes"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"
)

// endless is a stream of one byte for ever: a header line with no end.
type endless byte

func (e endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(e)
	}
	return len(p), nil
}

// TestHeaderBounds: a header line without end, or a header of endless
// lines, is refused after a few KiB, not held in memory (N12).
func TestHeaderBounds(t *testing.T) {
	for name, r := range map[string]io.Reader{
		"endless line":  endless('a'),
		"endless lines": io.MultiReader(strings.NewReader("Content-Length: 2\r\n"), strings.NewReader(strings.Repeat("X-A: b\r\n", 1000))),
	} {
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		err := Serve(r, io.Discard, Options{})
		runtime.ReadMemStats(&m1)
		if err == nil || !strings.Contains(err.Error(), "header") {
			t.Errorf("%s: err = %v, want the header refused", name, err)
		}
		if grew := m1.TotalAlloc - m0.TotalAlloc; grew > 1<<20 {
			t.Errorf("%s: allocated %d KiB before refusing it", name, grew>>10)
		}
	}
}

// TestLongURIAndClosedInput: a document whose URI has 100,000 path
// components is answered at once, and the server returns when its input
// closes (N12).
func TestLongURIAndClosedInput(t *testing.T) {
	msg := func(body string) string { return "Content-Length: " + itoa(len(body)) + "\r\n\r\n" + body }
	uri := "file:///" + strings.Repeat("a/", 100000) + "SKILL.md"
	in := msg(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`) +
		msg(`{"jsonrpc":"2.0","method":"initialized","params":{}}`) +
		msg(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"`+uri+`","version":1,"text":"---\nname: x\n---\n"}}}`) +
		msg(`{"jsonrpc":"2.0","id":2,"method":"shutdown"}`)
	done := make(chan error, 1)
	var out bytes.Buffer
	go func() { done <- Serve(strings.NewReader(in), &out, Options{}) }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the server neither answered nor returned when its input closed")
	}
	if !strings.Contains(out.String(), `"id":2`) {
		t.Errorf("shutdown was not answered:\n%.500s", out.String())
	}
}
