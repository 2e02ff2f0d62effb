package lsp

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/textproto"
	"strconv"
	"strings"
	"sync"
)

// message is a JSON-RPC 2.0 request, notification or response: a request
// has an id and a method, a notification a method only, a response an id
// and a result or an error.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

// response is a message answering a request: the result is always
// written (null included) unless there is an error.
type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  *any            `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// JSON-RPC and LSP error codes.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
	codeNotInitialized = -32002
)

func (e *rpcError) Error() string { return fmt.Sprintf("%d: %s", e.Code, e.Message) }

// conn reads and writes messages framed by a Content-Length header, as
// the base protocol of LSP says.
type conn struct {
	r  *bufio.Reader
	mu sync.Mutex // writes come from the handler and from diagnostics
	w  io.Writer
}

func newConn(r io.Reader, w io.Writer) *conn { return &conn{r: bufio.NewReader(r), w: w} }

// maxMessage bounds a message's body: a document of a skill is far
// smaller, and a header claiming more is refused before anything is read.
const maxMessage = 64 << 20

// read reads one message; io.EOF when the stream ends between messages.
func (c *conn) read() (*message, error) {
	h, err := textproto.NewReader(c.r).ReadMIMEHeader()
	if err != nil {
		if err == io.EOF && len(h) == 0 {
			return nil, io.EOF
		}
		return nil, fmt.Errorf("reading header: %w", err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(h.Get("Content-Length")))
	if err != nil || n < 0 || n > maxMessage {
		return nil, fmt.Errorf("bad Content-Length %q (at most %d bytes)", h.Get("Content-Length"), maxMessage)
	}
	// Read as much as arrives, not what the header claims: a false length
	// must not allocate it.
	body, err := io.ReadAll(io.LimitReader(c.r, int64(n)))
	if err == nil && len(body) < n {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		return nil, fmt.Errorf("reading body: %w", err)
	}
	var m message
	if err := json.Unmarshal(body, &m); err != nil {
		return &message{}, &rpcError{Code: codeParseError, Message: err.Error()}
	}
	return &m, nil
}

// write writes one message (a *message or a *response).
func (c *conn) write(m any) error {
	body, err := json.Marshal(m)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, err := fmt.Fprintf(c.w, "Content-Length: %d\r\n\r\n", len(body)); err != nil {
		return err
	}
	_, err = c.w.Write(body)
	return err
}

// notify sends a notification.
func (c *conn) notify(method string, params any) error {
	raw, err := json.Marshal(params)
	if err != nil {
		return err
	}
	return c.write(&message{JSONRPC: "2.0", Method: method, Params: raw})
}

// reply answers the request id with a result or an error.
func (c *conn) reply(id json.RawMessage, result any, err *rpcError) error {
	r := &response{JSONRPC: "2.0", ID: id, Error: err}
	if err == nil {
		r.Result = &result
	}
	return c.write(r)
}
