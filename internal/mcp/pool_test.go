package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skillkit/skillkit/internal/mcp"
	"github.com/skillkit/skillkit/internal/mcp/mcptest"
	"github.com/skillkit/skillkit/internal/proc"
	"github.com/skillkit/skillkit/internal/realtool"
	"github.com/skillkit/skillkit/plan"
)

// groups records the process groups a pool starts, to check that none
// outlives it.
type groups struct {
	mu      sync.Mutex
	started []int
	ended   []int
}

func (g *groups) Started(pgid int) { g.mu.Lock(); g.started = append(g.started, pgid); g.mu.Unlock() }
func (g *groups) Ended(pgid int)   { g.mu.Lock(); g.ended = append(g.ended, pgid); g.mu.Unlock() }

// noOrphan checks that every group the pool started is reported ended and
// has no process left.
func (g *groups) noOrphan(t *testing.T) {
	t.Helper()
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.started) != len(g.ended) {
		t.Errorf("groups started %v, ended %v", g.started, g.ended)
	}
	for _, pgid := range g.started {
		if proc.Alive(pgid) {
			t.Errorf("server process %d still runs", pgid)
		}
	}
}

func config(servers ...*mcp.Server) *mcp.Config {
	c := &mcp.Config{Servers: map[string]*mcp.Server{}, StartTimeout: 10 * time.Second, CallTimeout: 10 * time.Second}
	for _, s := range servers {
		if s.Type == "" {
			s.Type = mcp.TypeStdio
		}
		s.Pos = plan.Pos{File: ".mcp.json", Line: 3, Col: 5}
		c.Servers[s.Name] = s
	}
	return c
}

func TestRealServers(t *testing.T) {
	everything := realtool.Find(t, "mcp-server-everything")
	memory := realtool.Find(t, "mcp-server-memory")
	filesystem := realtool.Find(t, "mcp-server-filesystem")
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("buy milk\n"), 0o644)
	g := &groups{}
	var log bytes.Buffer
	var calls []mcp.Call
	pool := mcp.NewPool(mcp.Options{
		Config: config(
			&mcp.Server{Name: "everything", Command: everything},
			&mcp.Server{Name: "memory", Command: memory, Env: map[string]string{"MEMORY_FILE_PATH": filepath.Join(dir, "memory.jsonl")}},
			&mcp.Server{Name: "server-filesystem", Command: filesystem, Args: []string{dir}},
		),
		Dir: dir, Log: &log,
		Tape: recorder{&calls},
	})
	ctx := proc.WithGroups(context.Background(), g)

	got, err := pool.Call(ctx, "everything", "echo", map[string]any{"message": "hi"})
	if err != nil || got != "Echo: hi" {
		t.Fatalf("echo: %v %v", got, err)
	}
	// A second call reuses the server.
	if _, err := pool.Call(ctx, "everything", "echo", map[string]any{"message": "again"}); err != nil {
		t.Fatal(err)
	}
	// Structured content comes as a value.
	got, err = pool.Call(ctx, "everything", "get-structured-content", map[string]any{"location": "New York"})
	if m, ok := got.(map[string]any); err != nil || !ok || m["temperature"] == nil {
		t.Errorf("structured: %#v %v", got, err)
	}
	got, err = pool.Call(ctx, "server-filesystem", "read_text_file", map[string]any{"path": filepath.Join(dir, "notes.txt")})
	if m, _ := got.(map[string]any); err != nil || m["content"] != "buy milk\n" {
		t.Errorf("read_text_file: %#v %v", got, err)
	}
	// A tool error fails with the tool's words.
	_, err = pool.Call(ctx, "server-filesystem", "read_text_file", map[string]any{"path": "/etc/passwd"})
	var te *mcp.ToolError
	if !errors.As(err, &te) || !strings.Contains(te.Msg, "Access denied") {
		t.Errorf("outside the allowed dir: %v", err)
	}
	if _, err := pool.Call(ctx, "memory", "create_entities", map[string]any{"entities": []any{
		map[string]any{"name": "milk", "entityType": "grocery", "observations": []any{"two litres"}},
	}}); err != nil {
		t.Fatal(err)
	}
	got, err = pool.Call(ctx, "memory", "search_nodes", map[string]any{"query": "milk"})
	if err != nil || !strings.Contains(jsonOf(got), "two litres") {
		t.Errorf("search_nodes: %#v %v", got, err)
	}
	tools, err := pool.Tools(ctx, "memory")
	if err != nil || len(tools) < 5 || tools[0].InputSchema == nil {
		t.Errorf("tools: %d %v", len(tools), err)
	}
	pool.Close()
	if len(g.started) != 3 {
		t.Errorf("servers started %d times, want once each: %v", len(g.started), g.started)
	}
	g.noOrphan(t)
	if len(calls) != 7 || !strings.Contains(log.String(), `mcp mcp__everything__echo {"message":"hi"} → "Echo: hi"`) {
		t.Errorf("%d calls; log:\n%s", len(calls), log.String())
	}
}

// recorder is a tape that keeps the calls in a slice.
type recorder struct{ calls *[]mcp.Call }

func (recorder) ReplayMCP([]string, mcp.Call) (any, bool, error) { return nil, false, nil }
func (r recorder) RecordMCP(_ []string, c mcp.Call)              { *r.calls = append(*r.calls, c) }

func jsonOf(v any) string {
	data, _ := json.Marshal(v)
	return string(data)
}

func TestBadServers(t *testing.T) {
	standin := mcptest.Standin(t)
	short := func(s *mcp.Server) *mcp.Config {
		c := config(s)
		c.StartTimeout, c.CallTimeout = 2*time.Second, 2*time.Second
		return c
	}
	for _, tc := range []struct {
		name   string
		server *mcp.Server
		tool   string
		args   map[string]any
		want   []string
		tool_  bool
		// slow is set where the server takes its time (writing 50 MB):
		// the call timeout is longer.
		slow bool
	}{
		{name: "exits at start", server: &mcp.Server{Command: standin, Args: []string{"-mode", "exit"}},
			want: []string{`MCP server "bad" (.mcp.json:3:5)`, "MCP server unavailable", "standin: cannot open the index"}},
		{name: "never answers initialize", server: &mcp.Server{Command: standin, Args: []string{"-mode", "silent"}},
			want: []string{"no answer to initialize in 2s (mcp.start_timeout in skillkit.yaml)"}},
		{name: "invalid JSON-RPC", server: &mcp.Server{Command: standin, Args: []string{"-mode", "garbage"}},
			want: []string{"MCP server unavailable"}},
		{name: "missing command", server: &mcp.Server{Command: "no-such-mcp-server"},
			want: []string{`MCP server "bad" (.mcp.json:3:5): MCP server unavailable: command "no-such-mcp-server" not found`}},
		{name: "tool hangs", server: &mcp.Server{Command: standin}, tool: "hang",
			want: []string{"MCP tool mcp__bad__hang: MCP server unavailable: no answer in 2s (mcp.call_timeout in skillkit.yaml)"}},
		{name: "50 MB result", server: &mcp.Server{Command: standin}, tool: "big", args: map[string]any{"n": 50 << 20}, slow: true,
			want: []string{"MCP tool mcp__bad__big: MCP server unavailable: ", "inbound JSON-RPC frame exceeded the configured maximum line length"}},
		{name: "tool error", server: &mcp.Server{Command: standin}, tool: "fail",
			want: []string{"MCP tool mcp__bad__fail: the index is locked"}, tool_: true},
		{name: "unknown tool", server: &mcp.Server{Command: standin}, tool: "nope",
			want: []string{"mcp__bad__nope", "nope"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.server.Name = "bad"
			g := &groups{}
			c := short(tc.server)
			if tc.slow {
				c.CallTimeout = time.Minute
			}
			pool := mcp.NewPool(mcp.Options{Config: c, Dir: t.TempDir()})
			tool := tc.tool
			if tool == "" {
				tool = "echo"
			}
			_, err := pool.Call(proc.WithGroups(context.Background(), g), "bad", tool, tc.args)
			pool.Close()
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			var te *mcp.ToolError
			if errors.As(err, &te) != tc.tool_ {
				t.Errorf("tool error %v, want %v", errors.As(err, &te), tc.tool_)
			}
			g.noOrphan(t)
		})
	}
}

func TestAllowedTools(t *testing.T) {
	standin := mcptest.Standin(t)
	pool := mcp.NewPool(mcp.Options{Config: config(&mcp.Server{Name: "ace-tool", Command: standin}),
		Allowed: []string{"Read", "mcp__ace-tool__search_context(*)"}})
	defer pool.Close()
	if _, err := pool.Call(context.Background(), "ace-tool", "echo", nil); err == nil || err.Error() != "MCP tool mcp__ace-tool__echo is not in the skill's allowed-tools" {
		t.Errorf("echo: %v", err)
	}
	// MCP.call('ace.tool', …) is held to the entries of mcp__ace_tool, as
	// skills name its tools.
	if !mcp.Allowed([]string{"mcp__ace_tool"}, "ace.tool", "echo") || mcp.Allowed([]string{"mcp__ace.tool"}, "ace_tool", "echo") {
		t.Error("a server named with a dot is not held to its tools' names")
	}
	for _, tc := range []struct {
		allowed []string
		want    bool
	}{
		{nil, true},
		{[]string{}, false},
		{[]string{"mcp__ace-tool"}, true},
		{[]string{"mcp__ace-tool__*"}, true},
		{[]string{" mcp__ace-tool__echo "}, true},
		{[]string{"mcp__ace-tool__echoes"}, false},
		{[]string{"mcp__ace"}, false},
	} {
		if got := mcp.Allowed(tc.allowed, "ace-tool", "echo"); got != tc.want {
			t.Errorf("Allowed(%q) = %v", tc.allowed, got)
		}
	}
}

func TestSecretsScrubbedFromLog(t *testing.T) {
	standin := mcptest.Standin(t)
	var log bytes.Buffer
	pool := mcp.NewPool(mcp.Options{Config: config(&mcp.Server{Name: "s", Command: standin}), Log: &log,
		Scrub: func(s string) string { return strings.ReplaceAll(s, "hunter2", "[scrubbed]") }})
	defer pool.Close()
	if _, err := pool.Call(context.Background(), "s", "echo", map[string]any{"message": "pw hunter2"}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(log.String(), "hunter2") || !strings.Contains(log.String(), "[scrubbed]") {
		t.Errorf("log: %s", log.String())
	}
}

func TestStructuredFromStandin(t *testing.T) {
	standin := mcptest.Standin(t)
	pool := mcp.NewPool(mcp.Options{Config: config(&mcp.Server{Name: "s", Command: standin})})
	defer pool.Close()
	got, err := pool.Call(context.Background(), "s", "add", map[string]any{"x": 2, "y": 3})
	if m, _ := got.(map[string]any); err != nil || m["sum"] != 5.0 {
		t.Errorf("add: %#v %v", got, err)
	}
	if _, err := pool.Call(context.Background(), "nope", "x", nil); err == nil || !strings.Contains(err.Error(), `MCP server "nope" is not configured`) {
		t.Errorf("unconfigured: %v", err)
	}
}

// TestClosedPoolStartsNothing: a call that comes after Close is refused;
// the server it would have started would be stopped by nobody.
func TestClosedPoolStartsNothing(t *testing.T) {
	g := &groups{}
	pool := mcp.NewPool(mcp.Options{Config: config(&mcp.Server{Name: "bad", Command: mcptest.Standin(t)}), Dir: t.TempDir()})
	pool.Close()
	_, err := pool.Call(proc.WithGroups(context.Background(), g), "bad", "echo", nil)
	if !errors.Is(err, mcp.ErrTransport) || !strings.Contains(err.Error(), "stopped") {
		t.Errorf("a call after Close: %v", err)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.started) != 0 {
		t.Errorf("a call after Close started %d process groups", len(g.started))
	}
}

// TestCallWithoutArguments: a call with no arguments
// (mcp__everything__get-tiny-image() in JavaScript) sends an empty object:
// the TypeScript reference servers refuse "arguments": null ("expected
// record, received null"), which is what a nil map was sent as.
func TestCallWithoutArguments(t *testing.T) {
	everything := realtool.Find(t, "mcp-server-everything")
	pool := mcp.NewPool(mcp.Options{Config: config(&mcp.Server{Name: "everything", Command: everything}), Dir: t.TempDir()})
	defer pool.Close()
	got, err := pool.Call(context.Background(), "everything", "get-tiny-image", nil)
	if err != nil || !strings.Contains(jsonOf(got), "[image image/png]") {
		t.Errorf("get-tiny-image without arguments: %#v %v", got, err)
	}
}

// TestEmbeddedBlobIsNamed: a resource embedded as bytes (server-everything's
// get-resource-reference of a Blob) is named in the text, as an image
// is; it came out as an empty line, as if the tool had returned nothing.
func TestEmbeddedBlobIsNamed(t *testing.T) {
	everything := realtool.Find(t, "mcp-server-everything")
	pool := mcp.NewPool(mcp.Options{Config: config(&mcp.Server{Name: "everything", Command: everything}), Dir: t.TempDir()})
	defer pool.Close()
	got, err := pool.Call(context.Background(), "everything", "get-resource-reference", map[string]any{"resourceType": "Blob", "resourceId": 1})
	if s, _ := got.(string); err != nil || !strings.Contains(s, "\n[resource demo://resource/dynamic/blob/1 ") {
		t.Errorf("a blob resource: %q %v", got, err)
	}
}

// TestServerKilledBetweenCalls: a server killed (kill -9 of its group)
// after one call and before the next is started again by the next call,
// which it had not been sent; that call failed with "the connection
// ended" and stopped the run.
func TestServerKilledBetweenCalls(t *testing.T) {
	everything := realtool.Find(t, "mcp-server-everything")
	g := &groups{}
	ctx := proc.WithGroups(context.Background(), g)
	pool := mcp.NewPool(mcp.Options{Config: config(&mcp.Server{Name: "everything", Command: everything}), Dir: t.TempDir()})
	if _, err := pool.Call(ctx, "everything", "echo", map[string]any{"message": "one"}); err != nil {
		t.Fatal(err)
	}
	g.mu.Lock()
	first := g.started[0]
	g.mu.Unlock()
	if err := proc.KillGroup(first); err != nil {
		t.Fatal(err)
	}
	// Gone from /proc once reaped; the pool learns it from the reaping,
	// as it would between two steps.
	for _, err := os.Stat(fmt.Sprintf("/proc/%d", first)); err == nil; _, err = os.Stat(fmt.Sprintf("/proc/%d", first)) {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond)
	got, err := pool.Call(ctx, "everything", "echo", map[string]any{"message": "two"})
	if err != nil || got != "Echo: two" {
		t.Errorf("the call after the server was killed: %#v %v", got, err)
	}
	pool.Close()
	if len(g.started) != 2 {
		t.Errorf("servers started %v, want two", g.started)
	}
	g.noOrphan(t)
}

// TestServerNamedAsClaudeCodeNamesIt: Claude Code names a server's tools
// mcp__<name>__<tool> with each character of the name outside
// [A-Za-z0-9_-] replaced by "_", so a skill calls the tools of the
// server "everything.server" as mcp__everything_server__echo. skillkit
// found no server of that name.
func TestServerNamedAsClaudeCodeNamesIt(t *testing.T) {
	everything := realtool.Find(t, "mcp-server-everything")
	data, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"everything.server": map[string]any{"command": everything}}})
	c, err := mcp.ParseProject(".mcp.json", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(c.Names(), ","); got != "everything_server" {
		t.Errorf("names %s, want everything_server", got)
	}
	pool := mcp.NewPool(mcp.Options{Config: c, Dir: t.TempDir()})
	defer pool.Close()
	g := &groups{}
	ctx := proc.WithGroups(context.Background(), g)
	got, err := pool.Call(ctx, "everything_server", "echo", map[string]any{"message": "hi"})
	if err != nil || got != "Echo: hi" {
		t.Errorf("mcp__everything_server__echo: %#v %v", got, err)
	}
	// What skillkit mcp tools prints and saves, by the configured name,
	// is what lint reads, by the name in the code.
	if n := mcp.Name("everything.server", "echo"); n != "mcp__everything_server__echo" {
		t.Errorf("Name = %s", n)
	}
	if a, b := mcp.ListingPath("p", "everything.server"), mcp.ListingPath("p", "everything_server"); a != b {
		t.Errorf("listings %s and %s", a, b)
	}
	if s, ok := c.Server("everything.server"); !ok || s.Name != "everything.server" {
		t.Errorf("Server(everything.server) = %v, %v", s, ok)
	}
	// By its configured name (skillkit mcp tools), the same server.
	if _, err := pool.Tools(ctx, "everything.server"); err != nil {
		t.Error(err)
	}
	pool.Close()
	if len(g.started) != 1 {
		t.Errorf("servers started %v, want one", g.started)
	}
}

// TestLogLinesOnStdout: a server (here server-everything behind a start
// script, as wrappers are written) that prints a log line on stdout
// before it speaks JSON-RPC still serves; Claude Code skips such lines.
// skillkit failed the server: "MCP server unavailable".
func TestLogLinesOnStdout(t *testing.T) {
	everything := realtool.Find(t, "mcp-server-everything")
	var log bytes.Buffer
	pool := mcp.NewPool(mcp.Options{Config: config(&mcp.Server{Name: "everything", Command: "sh",
		Args: []string{"-c", `echo "Starting everything on stdio..."; exec "$0"`, everything}}), Dir: t.TempDir(), Log: &log})
	got, err := pool.Call(context.Background(), "everything", "echo", map[string]any{"message": "hi"})
	if err != nil || got != "Echo: hi" {
		t.Errorf("echo: %#v %v", got, err)
	}
	// The log is read once the server is gone: its stderr is written
	// until then.
	pool.Close()
	if !strings.Contains(log.String(), "mcp everything stdout: Starting everything on stdio...\n") {
		t.Errorf("the line is not in the log:\n%s", log.String())
	}
}

// TestStderrScrubbed: what a server prints on stderr goes to the log
// scrubbed, as its calls do; it went raw (a server that prints its token
// at start, here server-everything behind a start script).
func TestStderrScrubbed(t *testing.T) {
	everything := realtool.Find(t, "mcp-server-everything")
	var log bytes.Buffer
	pool := mcp.NewPool(mcp.Options{Config: config(&mcp.Server{Name: "everything", Command: "sh",
		Args: []string{"-c", `echo "using token hunter2-secret" >&2; exec "$0"`, everything}}), Dir: t.TempDir(), Log: &log,
		Scrub: func(s string) string { return strings.ReplaceAll(s, "hunter2-secret", "[scrubbed]") }})
	if _, err := pool.Call(context.Background(), "everything", "echo", map[string]any{"message": "hi"}); err != nil {
		t.Fatal(err)
	}
	// The log is read once the server is gone: its stderr is written
	// until then.
	pool.Close()
	if strings.Contains(log.String(), "hunter2") || !strings.Contains(log.String(), "mcp everything stderr: using token [scrubbed]") {
		t.Errorf("log:\n%s", log.String())
	}
}

// splitSecret writes "<before>hunt", waits so that the pipe delivers it
// alone, then "er2-secret<after>": the secret hunter2-secret reaches
// the pool in two reads.
func splitSecret(before, after string) string {
	return `printf '` + before + `hunt' >&2; sleep 0.3; printf 'er2-secret` + after + `' >&2; `
}

func hideHunter(s string) string { return strings.ReplaceAll(s, "hunter2-secret", "[scrubbed]") }

// leaked reports whether either half of the split secret is in text.
func leaked(text string) bool {
	return strings.Contains(text, "hunt") || strings.Contains(text, "er2-secret")
}

// TestStderrSecretSplitAcrossWrites: a secret that a server (here
// server-everything behind a start script) writes to stderr in two
// writes is scrubbed: the log was written and scrubbed chunk by chunk as
// the pipe delivered it, so each half went to mcp.log as it was.
func TestStderrSecretSplitAcrossWrites(t *testing.T) {
	everything := realtool.Find(t, "mcp-server-everything")
	var log bytes.Buffer
	pool := mcp.NewPool(mcp.Options{Config: config(&mcp.Server{Name: "everything", Command: "sh",
		Args: []string{"-c", splitSecret("using token ", `\n`) + `exec "$0"`, everything}}), Dir: t.TempDir(), Log: &log, Scrub: hideHunter})
	if _, err := pool.Call(context.Background(), "everything", "echo", map[string]any{"message": "hi"}); err != nil {
		t.Fatal(err)
	}
	pool.Close()
	if leaked(log.String()) || !strings.Contains(log.String(), "mcp everything stderr: using token [scrubbed]\n") ||
		!strings.Contains(log.String(), "mcp everything stderr: Starting default (STDIO) server...\n") {
		t.Errorf("log:\n%s", log.String())
	}
}

// TestStderrLastLineWithoutNewline: the last line of a server's stderr
// reaches the log, scrubbed whole, though it never ends with a newline:
// when the server exits by itself (its error quotes it scrubbed too) and
// when it is killed (the stand-in that never answers, past the start
// timeout).
func TestStderrLastLineWithoutNewline(t *testing.T) {
	standin := mcptest.Standin(t)
	for _, tc := range []struct {
		name, script string
	}{
		{"exits", splitSecret("fatal: bad token ", "") + "exit 3"},
		{"killed", splitSecret("fatal: bad token ", "") + `exec "$0" -mode silent`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var log bytes.Buffer
			c := config(&mcp.Server{Name: "bad", Command: "sh", Args: []string{"-c", tc.script, standin}})
			c.StartTimeout = 2 * time.Second
			pool := mcp.NewPool(mcp.Options{Config: c, Dir: t.TempDir(), Log: &log, Scrub: hideHunter})
			_, err := pool.Call(context.Background(), "bad", "echo", nil)
			pool.Close()
			if err == nil {
				t.Fatal("no error")
			}
			if leaked(err.Error()) {
				t.Errorf("the error quotes the secret: %v", err)
			}
			if leaked(log.String()) || !strings.Contains(log.String(), "mcp bad stderr: fatal: bad token [scrubbed]\n") {
				t.Errorf("log:\n%s", log.String())
			}
		})
	}
}

// TestStderrFloodIsBounded: a server that floods stderr (here 8 MiB
// before server-everything starts) fills the run's mcp.log no further
// than a bound; the log said all of it.
func TestStderrFloodIsBounded(t *testing.T) {
	everything := realtool.Find(t, "mcp-server-everything")
	var log bytes.Buffer
	pool := mcp.NewPool(mcp.Options{Config: config(&mcp.Server{Name: "everything", Command: "sh",
		Args: []string{"-c", `yes "debug: polling the index" | head -c 8388608 >&2; exec "$0"`, everything}}), Dir: t.TempDir(), Log: &log})
	if _, err := pool.Call(context.Background(), "everything", "echo", map[string]any{"message": "hi"}); err != nil {
		t.Fatal(err)
	}
	pool.Close()
	if log.Len() > 2<<20 || !strings.Contains(log.String(), "mcp everything stderr: (cut: more than 1 MiB)") {
		t.Errorf("%d bytes logged; the end:\n%s", log.Len(), log.String()[max(0, log.Len()-500):])
	}
}

// TestCloseDuringStart: a run stopped (Ctrl-C) while a server starts
// stops that start at once; Close waited for the whole start_timeout
// (here server-everything behind a start script that takes 30 s).
func TestCloseDuringStart(t *testing.T) {
	everything := realtool.Find(t, "mcp-server-everything")
	g := &groups{}
	c := config(&mcp.Server{Name: "everything", Command: "sh", Args: []string{"-c", `sleep 30; exec "$0"`, everything}})
	c.StartTimeout = time.Minute
	pool := mcp.NewPool(mcp.Options{Config: c, Dir: t.TempDir()})
	ctx, cancel := context.WithCancel(proc.WithGroups(context.Background(), g))
	time.AfterFunc(300*time.Millisecond, cancel)
	if _, err := pool.Call(ctx, "everything", "echo", map[string]any{"message": "hi"}); !errors.Is(err, context.Canceled) {
		t.Errorf("the call: %v, want it canceled", err)
	}
	start := time.Now()
	pool.Close()
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Close took %s", d)
	}
	g.noOrphan(t)
}
