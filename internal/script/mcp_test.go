package script

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillkit/skillkit/internal/corpus"
	"github.com/skillkit/skillkit/internal/mcp"
	"github.com/skillkit/skillkit/internal/mcp/mcptest"
	"github.com/skillkit/skillkit/internal/realtool"
	"github.com/skillkit/skillkit/internal/testfs"
	"github.com/skillkit/skillkit/parse"
	"github.com/skillkit/skillkit/plan"
)

// standinPool is a pool with the stand-in server as ace-tool.
func standinPool(t *testing.T, dir string) *mcp.Pool {
	t.Helper()
	p := mcp.NewPool(mcp.Options{Dir: dir, Config: &mcp.Config{
		Servers:      map[string]*mcp.Server{"ace-tool": {Name: "ace-tool", Type: mcp.TypeStdio, Command: mcptest.Standin(t), Pos: plan.Pos{File: ".mcp.json", Line: 2}}},
		StartTimeout: 10 * time.Second, CallTimeout: 10 * time.Second,
	}})
	t.Cleanup(p.Close)
	return p
}

// TestCorpusMCPStep runs the Explore step of the real ccw-loop
// action-debug, as written (mcp__ace-tool__search_context, hyphen and no
// await), against the stand-in ace-tool: the plan classes it native once
// ace-tool is configured, and the host calls the tool.
func TestCorpusMCPStep(t *testing.T) {
	dir := corpus.Skill(t, "catlog22__Claude-Code-Workflow@5b48bcff/.codex/skills/ccw-loop")
	s, err := parse.DirWith(dir, parse.Options{NoHash: true, MCPServers: []string{"ace-tool"}})
	if err != nil {
		t.Fatal(err)
	}
	a := s.Action("action-debug")
	if a == nil {
		t.Fatal("no action-debug")
	}
	var b *plan.CodeBlock
	for _, c := range a.Doc.Code {
		if strings.Contains(c.Text, "mcp__ace-tool__search_context") {
			b = c
		}
	}
	if b == nil {
		t.Fatal("no block calls mcp__ace-tool__search_context")
	}
	f := newFixture(t)
	testfs.WriteFile(t, filepath.Join(f.project, "src", "login.ts"), "export function login() { throw new Error('token expired') }\n")
	h := f.host(t, func(o *Options) { o.MCP = standinPool(t, f.project); o.WorkDir = f.project })
	// bugDescription is what the step before binds (from the user).
	scope := &Scope{Values: map[string]any{"bugDescription": "login fails"}}
	if _, err := h.RunStep(context.Background(), b, map[string]any{}, scope); err != nil {
		t.Fatal(err)
	}
	got, _ := scope.Values["searchResults"].(string)
	if !strings.Contains(got, `Found 1 files for "code related to: login fails"`) || !strings.Contains(got, "login.ts") {
		t.Errorf("searchResults = %q", got)
	}
	if !strings.HasPrefix(b.Pos.File, "phases/actions/action-debug.md") {
		t.Errorf("block at %s", b.Pos)
	}
}

func TestMCPCalls(t *testing.T) {
	f := newFixture(t)
	h := f.host(t, func(o *Options) { o.MCP = standinPool(t, f.project) })
	for _, tc := range []struct{ name, src, want, err string }{
		{"tool function", "state.r = mcp__ace-tool__echo({message: 'hi'})", "Echo: hi", ""},
		{"awaited", "state.r = await mcp__ace-tool__echo({message: 'hi'})", "Echo: hi", ""},
		{"MCP.call", "state.r = MCP.call('ace-tool', 'add', {x: 1, y: 2}).sum", "3", ""},
		{"tool error caught", "try { mcp__ace-tool__fail({}) } catch (e) { state.r = e.message }", "MCP tool mcp__ace-tool__fail: the index is locked", ""},
		{"tool error", "mcp__ace-tool__fail({})", "", "phases/01-x.md:10:20: GoError: MCP tool mcp__ace-tool__fail: the index is locked"},
		{"unknown server", "mcp__nope__x({})", "", `MCP server "nope" is not configured`},
		{"bad args", "mcp__ace-tool__echo('hi')", "", "mcp__ace-tool__echo: want an object of arguments, got hi"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, err := f.step(t, h, tc.src)
			if !checkErr(t, err, tc.err) {
				return
			}
			if got := fmt.Sprint(st["r"]); got != tc.want {
				t.Errorf("r = %q, want %q", got, tc.want)
			}
		})
	}
	h = f.host(t, nil)
	_, err := f.step(t, h, "mcp__ace-tool__echo({})")
	if !errors.Is(err, errNoMCP) {
		t.Errorf("no MCP: %v", err)
	}
}

// TestMCPCallTimeoutNamesErrTimeout: an MCP call cut by the evaluation's
// time limit fails with the limit, as a Bash call does
// (TestHostCallTimeoutNamesErrTimeout), and not with the context's bare
// "context deadline exceeded", which named no limit.
func TestMCPCallTimeoutNamesErrTimeout(t *testing.T) {
	everything := realtool.Find(t, "mcp-server-everything")
	f := newFixture(t)
	pool := mcp.NewPool(mcp.Options{Dir: f.project, Config: &mcp.Config{
		Servers:      map[string]*mcp.Server{"everything": {Name: "everything", Type: mcp.TypeStdio, Command: everything, Pos: plan.Pos{File: ".mcp.json", Line: 2}}},
		StartTimeout: 10 * time.Second, CallTimeout: 10 * time.Second,
	}})
	t.Cleanup(pool.Close)
	// The server starts before the limit is short.
	if _, err := pool.Call(context.Background(), "everything", "echo", map[string]any{"message": "up"}); err != nil {
		t.Fatal(err)
	}
	h := f.host(t, func(o *Options) { o.MCP = pool; o.Timeout = 500 * time.Millisecond })
	_, err := f.step(t, h, `mcp__everything__trigger-long-running-operation({duration: 5, steps: 1})`)
	if !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "MCP tool mcp__everything__trigger-long-running-operation: evaluation timed out after 500ms") {
		t.Errorf("err = %v, want the call to fail with ErrTimeout", err)
	}
}
