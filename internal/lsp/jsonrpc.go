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

func newConn(r io.Reader, w io.Writer) *conn {
	return &conn{r: bufio.NewReaderSize(r, maxHeaderLine), w: w}
}

// maxMessage bounds a message's body: a document of a skill is far
// smaller, and a header claiming more is refused before anything is read.
const maxMessage = 64 << 20

// Bounds of a message's header: LSP sends two short fields, so a longer
// line or more lines is garbage, refused before it is held in memory.
const (
	maxHeaderLine  = 4 << 10
	maxHeaderLines = 32
)

// readHeader reads the header fields up to the blank line; io.EOF when
// the stream ends before any.
func (c *conn) readHeader() (textproto.MIMEHeader, error) {
	h := textproto.MIMEHeader{}
	for i := 0; ; i++ {
		if i == maxHeaderLines {
			return nil, fmt.Errorf("more than %d header lines", maxHeaderLines)
		}
		line, err := c.r.ReadSlice('\n')
		if err == bufio.ErrBufferFull || len(line) > maxHeaderLine {
			return nil, fmt.Errorf("a header line over %d bytes", maxHeaderLine)
		}
		if err != nil {
			if err == io.EOF && i == 0 && len(line) == 0 {
				return nil, io.EOF
			}
			return nil, fmt.Errorf("%w", io.ErrUnexpectedEOF)
		}
		l := strings.TrimRight(string(line), "\r\n")
		if l == "" {
			return h, nil
		}
		k, v, ok := strings.Cut(l, ":")
		if !ok {
			return nil, fmt.Errorf("malformed header line %q", l)
		}
		h.Add(textproto.CanonicalMIMEHeaderKey(strings.TrimSpace(k)), strings.TrimSpace(v))
	}
}

// read reads one message; io.EOF when the stream ends between messages.
func (c *conn) read() (*message, error) {
	h, err := c.readHeader()
	if err == io.EOF {
		return nil, io.EOF
	}
	if err != nil {
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
