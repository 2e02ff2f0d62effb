package lsp

import (
	"bytes"
	"io"
	"testing"
)

// FuzzServe feeds arbitrary bytes to the server as its stdin: whatever the
// framing or the JSON, it answers or stops, never panics.
func FuzzServe(f *testing.F) {
	msg := func(body string) []byte {
		return []byte("Content-Length: " + itoa(len(body)) + "\r\n\r\n" + body)
	}
	f.Add(msg(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`))
	f.Add(append(msg(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///tmp/x/SKILL.md","text":"---\nname: x\n---\n"}}}`), msg(`{"jsonrpc":"2.0","id":2,"method":"shutdown"}`)...))
	f.Add(append(append(append(msg(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{"workspace":{"didChangeWatchedFiles":{"dynamicRegistration":true}}}}}`),
		msg(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)...),
		msg(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///tmp/x/SKILL.md","text":"---\nname: x\n---\n"}}}`)...),
		msg(`{"jsonrpc":"2.0","method":"workspace/didChangeWatchedFiles","params":{"changes":[{"uri":"file:///tmp/x","type":3},{"uri":"file:///tmp/x/SKILL.md","type":2}]}}`)...))
	f.Add([]byte("Content-Length: 99999999999\r\n\r\n{"))
	f.Add([]byte("Content-Length: -1\r\n\r\n"))
	f.Add([]byte("garbage\r\n\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		_ = Serve(bytes.NewReader(data), io.Discard, Options{})
	})
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}
