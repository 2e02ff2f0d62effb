package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillkit/skillkit/internal/proc"
)

// ErrTransport is wrapped by the error of a call that failed for want of
// a working server (it did not start, it died, it sent garbage, it did
// not answer in time), not because the tool said no: the run stops
// resumable rather than failed.
var ErrTransport = errors.New("MCP server unavailable")

// MaxMessage is the largest JSON-RPC message read from a stdio server:
// a larger result fails the call rather than the runner's memory.
const MaxMessage = sdk.DefaultMaxLineLength

// ToolError is a tool result with isError set: the tool ran and said
// why it failed.
type ToolError struct {
	Server, Tool string
	Msg          string
}

func (e *ToolError) Error() string {
	return fmt.Sprintf("MCP tool %s: %s", Name(e.Server, e.Tool), e.Msg)
}

// Caller calls MCP tools: a Pool of live servers, or a cassette's replay.
type Caller interface {
	Call(ctx context.Context, server, tool string, args map[string]any) (any, error)
}

// Call is one tool call as it is logged and recorded.
type Call struct {
	Server string         `json:"server"`
	Tool   string         `json:"tool"`
	Args   map[string]any `json:"args,omitempty"`
	// Result is the value skill code got: the structured content, else
	// the text.
	Result any `json:"result,omitempty"`
	// Error is the tool's message of a result with isError.
	Error string `json:"error,omitempty"`
}

// Options configure a Pool.
type Options struct {
	Config *Config
	// Dir is where stdio servers run: the project.
	Dir string
	// Allowed are the skill's allowed-tools entries; nil allows every
	// tool.
	Allowed []string
	// Log gets a line per call, with its arguments and result, and the
	// servers' stderr; nil discards them.
	Log io.Writer
	// Scrub hides secrets in what goes to Log; nil keeps the text.
	Scrub func(string) string
	// Tape, when set, answers calls instead of the servers (a cassette
	// replayed) or keeps what they answered (a cassette recorded).
	Tape Tape
	// Env is the run's environment, for the tape.
	Env []string
}

// Tape is a cassette as the pool sees it. env is the run's environment
// (script.Env): a cassette keeps the run's folders and ids as
// placeholders, so that a replay elsewhere matches.
type Tape interface {
	// ReplayMCP answers a call from the tape: ok false sends the call to
	// its server. A replay answers every call, a miss with an error.
	ReplayMCP(env []string, c Call) (result any, ok bool, err error)
	// RecordMCP keeps a call a server answered (Result or Error set).
	RecordMCP(env []string, c Call)
}

// Pool holds the servers of one run: each starts on its first call and
// stays until Close.
type Pool struct {
	opts  Options
	mu    sync.Mutex
	conns map[string]*conn
	// closed refuses new starts: a server started after Close would be
	// stopped by nobody.
	closed bool
}

// NewPool makes a pool; it starts nothing.
func NewPool(opts Options) *Pool {
	if opts.Config == nil {
		opts.Config = &Config{Servers: map[string]*Server{}}
	}
	if opts.Config.StartTimeout <= 0 {
		opts.Config.StartTimeout = DefaultStartTimeout
	}
	if opts.Config.CallTimeout <= 0 {
		opts.Config.CallTimeout = DefaultCallTimeout
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	// Calls log from their goroutines and each server's stderr from its
	// own: one line at a time.
	opts.Log = proc.Serialised(opts.Log)
	if opts.Scrub == nil {
		opts.Scrub = func(s string) string { return s }
	}
	return &Pool{opts: opts, conns: map[string]*conn{}}
}

// conn is a started server. ready closes when the start ended, with err
// or sess set.
type conn struct {
	ready chan struct{}
	// abort ends the start under way: the pool closed meanwhile.
	abort context.CancelFunc
	err   error
	sess  *sdk.ClientSession
	// stop ends the server: its session, and for a command its group.
	stop func()
	// stderr keeps the end of a command's stderr, for errors.
	stderr *lockedTail
	// gone closes when the session's connection failed (the server
	// died, or sent what cannot be read), with why in goneErr: calls under
	// way end then rather than at their timeout.
	gone    chan struct{}
	goneErr error
	// exited closes when a command's process has exited, as it may
	// between calls: its output ends cleanly, and gone stays open. Nil
	// over HTTP.
	exited <-chan struct{}
}

// Allowed reports whether the skill's allowed-tools let it call the tool:
// mcp__server__tool, mcp__server and mcp__server__* entries allow it, with
// or without a (…) suffix. No allowed-tools at all allows everything.
func Allowed(allowed []string, server, tool string) bool {
	if allowed == nil {
		return true
	}
	full, srv := Name(server, tool), Prefix+NamePart(server)
	for _, e := range allowed {
		e, _, _ = strings.Cut(strings.TrimSpace(e), "(")
		if e == full || e == srv || e == srv+Sep+"*" {
			return true
		}
	}
	return false
}

// Call calls a tool and returns what skill code gets: the structured
// content where the tool gives it, else its text.
func (p *Pool) Call(ctx context.Context, server, tool string, args map[string]any) (any, error) {
	if !Allowed(p.opts.Allowed, server, tool) {
		return nil, fmt.Errorf("MCP tool %s is not in the skill's allowed-tools", Name(server, tool))
	}
	if p.opts.Tape != nil {
		res, ok, err := p.opts.Tape.ReplayMCP(p.opts.Env, Call{Server: server, Tool: tool, Args: args})
		if ok {
			fmt.Fprintf(p.opts.Log, "mcp %s %s → (replayed) %s\n", Name(server, tool), p.opts.Scrub(jsonText(args)), p.opts.Scrub(logText(Call{Result: res, Error: errText(err)})))
			return res, err
		}
	}
	c, err := p.conn(ctx, server)
	if err != nil {
		return nil, err
	}
	cctx, cancel := c.callContext(ctx, p.opts.Config.CallTimeout)
	defer cancel()
	// No arguments go as an empty object: a nil map would go as null,
	// which servers that validate their input refuse.
	sent := args
	if sent == nil {
		sent = map[string]any{}
	}
	res, err := c.sess.CallTool(cctx, &sdk.CallToolParams{Name: tool, Arguments: sent})
	argText := p.opts.Scrub(jsonText(args))
	if err != nil {
		err = p.callFailed(ctx, cctx, server, c, err)
		fmt.Fprintf(p.opts.Log, "mcp %s %s → %v\n", Name(server, tool), argText, err)
		return nil, fmt.Errorf("MCP tool %s: %w", Name(server, tool), err)
	}
	call := Call{Server: server, Tool: tool, Args: args}
	if res.IsError {
		call.Error = text(res)
	} else if call.Result, err = resultValue(res); err != nil {
		return nil, fmt.Errorf("MCP tool %s: reading the result: %w", Name(server, tool), err)
	}
	fmt.Fprintf(p.opts.Log, "mcp %s %s → %s\n", Name(server, tool), argText, p.opts.Scrub(logText(call)))
	if p.opts.Tape != nil {
		p.opts.Tape.RecordMCP(p.opts.Env, call)
	}
	if res.IsError {
		return nil, &ToolError{Server: server, Tool: tool, Msg: call.Error}
	}
	return call.Result, nil
}

// callFailed explains a call that got no result, and drops a server that
// is gone so that the next call starts it again.
func (p *Pool) callFailed(ctx, cctx context.Context, server string, c *conn, err error) error {
	var rpc *jsonrpc.Error
	select {
	case <-c.gone:
		err = fmt.Errorf("%w: the connection ended: %v", ErrTransport, c.goneErr)
	default:
		switch {
		case ctx.Err() != nil:
			// The caller's end says why (a step's time limit, the run
			// stopped), where ctx.Err says only that it ended.
			return context.Cause(ctx)
		case cctx.Err() != nil:
			return fmt.Errorf("%w: no answer in %s (mcp.call_timeout in skillkit.yaml)", ErrTransport, p.opts.Config.CallTimeout)
		case errors.As(err, &rpc):
			// The server answered, with a JSON-RPC error (an unknown
			// tool, bad arguments): the step's fault, not the server's.
			return errors.New(rpc.Message)
		}
		err = fmt.Errorf("%w: %w", ErrTransport, err)
	}
	p.mu.Lock()
	if key := NamePart(server); p.conns[key] == c {
		delete(p.conns, key)
	}
	p.mu.Unlock()
	c.stop()
	return fmt.Errorf("%w%s", err, c.stderr.note())
}

// isGone reports whether the server started and its connection has
// ended since, without waiting.
func (c *conn) isGone() bool {
	select {
	case <-c.ready:
	default:
		return false
	}
	if c.err != nil {
		return false
	}
	select {
	case <-c.gone:
		return true
	case <-c.exited:
		return true
	default:
		return false
	}
}

// callContext bounds a call by the call timeout and by the life of the
// connection.
func (c *conn) callContext(ctx context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	cctx, cancel := context.WithTimeout(ctx, timeout)
	go func() {
		select {
		case <-c.gone:
			cancel()
		case <-cctx.Done():
		}
	}()
	return cctx, cancel
}

// Tools lists a server's tools, starting it if need be.
func (p *Pool) Tools(ctx context.Context, server string) ([]*sdk.Tool, error) {
	c, err := p.conn(ctx, server)
	if err != nil {
		return nil, err
	}
	cctx, cancel := c.callContext(ctx, p.opts.Config.CallTimeout)
	defer cancel()
	var out []*sdk.Tool
	for t, err := range c.sess.Tools(cctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("listing the tools of MCP server %q: %w", server, p.callFailed(ctx, cctx, server, c, err))
		}
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Close stops every server the pool started.
func (p *Pool) Close() {
	p.mu.Lock()
	conns := p.conns
	p.conns, p.closed = map[string]*conn{}, true
	p.mu.Unlock()
	for _, c := range conns {
		// A start under way (the run stopped while a server started)
		// ends now, its process group killed, rather than at its
		// timeout.
		c.abort()
		<-c.ready
		if c.err == nil {
			c.stop()
		}
	}
}

// conn returns the server's connection, starting it on first use. Calls
// that come while it starts wait for that start.
func (p *Pool) conn(ctx context.Context, server string) (*conn, error) {
	s, ok := p.opts.Config.Server(server)
	if !ok {
		return nil, fmt.Errorf("MCP server %q is not configured (%s, or mcp.servers in skillkit.yaml)", server, ProjectFile)
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, fmt.Errorf("MCP server %q: %w: the run's servers were stopped", server, ErrTransport)
	}
	// One server, one process, by whichever of its names it is called.
	server = NamePart(server)
	c, ok := p.conns[server]
	var dead *conn
	if ok && c.isGone() {
		// It died between calls: this call was sent to nobody, so a new
		// server takes it. The old one's group is killed as at the end.
		dead, ok = c, false
	}
	if !ok {
		c = &conn{ready: make(chan struct{}), stderr: &lockedTail{t: proc.NewTail(stderrTail), scrub: p.opts.Scrub}}
		p.conns[server] = c
		// The start is every waiting caller's, not only the first's: it
		// does not end with the first caller's context (its own timeout
		// bounds it, or the pool's Close), and each caller stops waiting
		// at its own.
		var start context.Context
		start, c.abort = context.WithCancel(context.WithoutCancel(ctx))
		go func() {
			defer c.abort()
			defer close(c.ready)
			c.err = p.start(start, s, c)
		}()
	}
	p.mu.Unlock()
	if dead != nil {
		dead.stop()
	}
	select {
	case <-c.ready:
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
	if c.err != nil {
		p.mu.Lock()
		if p.conns[server] == c {
			delete(p.conns, server)
		}
		p.mu.Unlock()
		return nil, c.err
	}
	return c, nil
}

// stderrTail is how much of a server's stderr an error quotes.
const stderrTail = 2048

// start starts a server and initialises its session, within the start
// timeout.
func (p *Pool) start(ctx context.Context, s *Server, c *conn) error {
	what := fmt.Sprintf("MCP server %q (%s)", s.Name, s.Pos)
	// The session's context lives as long as the server (an SSE stream
	// is read under it), not as long as the call that started it; the
	// start timeout and the caller's end cut only the start short.
	life, endLife := context.WithCancel(context.WithoutCancel(ctx))
	var timedOut atomic.Bool
	timer := time.AfterFunc(p.opts.Config.StartTimeout, func() { timedOut.Store(true); endLife() })
	stopOnCancel := context.AfterFunc(ctx, endLife)
	defer func() {
		timer.Stop()
		stopOnCancel()
	}()
	var t sdk.Transport
	c.stop = func() {}
	switch s.Type {
	case TypeStdio:
		ct, stop, exited, err := p.command(ctx, s, c)
		if err != nil {
			return fmt.Errorf("%s: %w: %w", what, ErrTransport, err)
		}
		t, c.stop, c.exited = ct, stop, exited
	case TypeHTTP:
		t = &sdk.StreamableClientTransport{Endpoint: s.URL, HTTPClient: headerClient(s.Headers), MaxRetries: -1, DisableStandaloneSSE: true}
	case TypeSSE:
		t = &sdk.SSEClientTransport{Endpoint: s.URL, HTTPClient: headerClient(s.Headers)}
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "skillkit", Version: "1"}, nil)
	sess, err := client.Connect(life, t, nil)
	if err != nil {
		c.stop()
		endLife()
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case timedOut.Load():
			return fmt.Errorf("%s: %w: no answer to initialize in %s (mcp.start_timeout in skillkit.yaml)%s", what, ErrTransport, p.opts.Config.StartTimeout, c.stderr.note())
		}
		return fmt.Errorf("%s: %w: %v%s", what, ErrTransport, err, c.stderr.note())
	}
	c.gone = make(chan struct{})
	go func() {
		// A clean end is the pool's own Close (or, over SSE, the end of
		// a request); an error is the connection failing under the calls.
		if err := sess.Wait(); err != nil {
			c.goneErr = err
			close(c.gone)
		}
	}()
	stop := c.stop
	c.sess, c.stop = sess, sync.OnceFunc(func() {
		sess.Close()
		stop()
		endLife()
	})
	return nil
}

// command starts a stdio server in a process group of its own and
// returns its transport, how to stop it (close its input, give it a
// moment to exit, then kill its group, so that nothing it started (npx
// starts node) outlives the run) and a channel closed once it exited.
func (p *Pool) command(ctx context.Context, s *Server, c *conn) (sdk.Transport, func(), <-chan struct{}, error) {
	name := s.Command
	if strings.ContainsRune(name, '/') && !filepath.IsAbs(name) {
		name = filepath.Join(s.Dir, name)
	}
	path, err := exec.LookPath(name)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("command %q not found: %w", s.Command, errors.Unwrap(err))
	}
	cmd := exec.Command(path, s.Args...)
	cmd.Dir = p.opts.Dir
	cmd.Env = os.Environ()
	keys := make([]string, 0, len(s.Env))
	for k := range s.Env {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		cmd.Env = append(cmd.Env, k+"="+s.Env[k])
	}
	slog := &serverLog{w: p.opts.Log, name: s.Name, scrub: p.opts.Scrub, left: serverLogMax}
	errLog := &stderrLog{l: slog}
	cmd.Stderr = io.MultiWriter(c.stderr, errLog)
	// A grandchild holding stderr must not keep Wait for ever.
	cmd.WaitDelay = time.Second
	proc.OwnGroup(cmd)
	// Pipes of our own, so that Wait, which closes exec's, cannot cut a
	// last answer short.
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, nil, nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, nil, nil, err
	}
	cmd.Stdin, cmd.Stdout = inR, outW
	err = cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, nil, nil, err
	}
	pgid := cmd.Process.Pid
	g := proc.GroupsOf(ctx)
	if g != nil {
		g.Started(pgid)
	}
	exited := make(chan struct{})
	go func() {
		// Wait returns once exec's copy of stderr ended (WaitDelay
		// bounds that): nothing is written after the flush.
		cmd.Wait()
		errLog.Flush()
		close(exited)
	}()
	stop := sync.OnceFunc(func() {
		inW.Close()
		select {
		case <-exited:
		case <-time.After(exitGrace):
		}
		proc.KillGroup(pgid)
		<-exited
		outR.Close()
		if g != nil {
			g.Ended(pgid)
		}
	})
	out := newLogLines(outR, slog.stdout)
	return &sdk.IOTransport{Reader: out, Writer: inW, MaxLineLength: MaxMessage}, stop, exited, nil
}

// exitGrace is how long a server has to exit once its input closed
// before its group is killed.
const exitGrace = time.Second

// headerClient is an HTTP client that sends a server's headers.
func headerClient(h map[string]string) *http.Client {
	if len(h) == 0 {
		return nil
	}
	return &http.Client{Transport: headerTransport{h: h, next: http.DefaultTransport}}
}

type headerTransport struct {
	h    map[string]string
	next http.RoundTripper
}

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range t.h {
		r.Header.Set(k, v)
	}
	return t.next.RoundTrip(r)
}

// resultValue is what skill code gets from a result: the structured
// content where the tool gives it, else its text, as plain JSON values.
func resultValue(r *sdk.CallToolResult) (any, error) {
	if r.StructuredContent == nil {
		return text(r), nil
	}
	data, err := json.Marshal(r.StructuredContent)
	if err != nil {
		return nil, err
	}
	var v any
	err = json.Unmarshal(data, &v)
	return v, err
}

// text joins a result's text contents; other contents (images,
// resources) are named by their kind.
func text(r *sdk.CallToolResult) string {
	var parts []string
	for _, c := range r.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			parts = append(parts, c.Text)
		case *sdk.ImageContent:
			parts = append(parts, "[image "+c.MIMEType+"]")
		case *sdk.AudioContent:
			parts = append(parts, "[audio "+c.MIMEType+"]")
		case *sdk.ResourceLink:
			parts = append(parts, "[resource "+c.URI+"]")
		case *sdk.EmbeddedResource:
			switch r := c.Resource; {
			case r == nil:
			case r.Blob != nil:
				// Bytes are no text: named, as an image is.
				parts = append(parts, "[resource "+r.URI+" "+r.MIMEType+"]")
			default:
				parts = append(parts, r.Text)
			}
		}
	}
	return strings.Join(parts, "\n")
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func jsonText(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(data)
}

// maxLogged bounds what a log line quotes of a result.
const maxLogged = 4096

func logText(c Call) string {
	s := "error: " + c.Error
	if c.Error == "" {
		s = jsonText(c.Result)
	}
	if len(s) > maxLogged {
		s = s[:maxLogged] + fmt.Sprintf("… (%d bytes)", len(s))
	}
	return s
}

// lockedTail is a proc.Tail written by exec's goroutine and read by an
// error message, which goes to the log and the terminal scrubbed.
type lockedTail struct {
	mu    sync.Mutex
	t     *proc.Tail
	scrub func(string) string
}

func (l *lockedTail) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.t.Write(p)
}

// note is the server's last stderr for an error message, or "".
func (l *lockedTail) note() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.t.String()
	if len(s) == stderrTail {
		// The tail may start inside a secret, which the scrubber would
		// not know: it starts at a line.
		if _, rest, ok := strings.Cut(s, "\n"); ok {
			s = rest
		}
	}
	if s := strings.TrimSpace(l.scrub(s)); s != "" {
		return "; its stderr: " + s
	}
	return ""
}
