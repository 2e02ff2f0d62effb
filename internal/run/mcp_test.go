package run_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/skillkit/skillkit/internal/mcp"
	"github.com/skillkit/skillkit/internal/mcp/mcptest"
	"github.com/skillkit/skillkit/internal/proc"
	"github.com/skillkit/skillkit/internal/realtool"
	"github.com/skillkit/skillkit/internal/run"
	"github.com/skillkit/skillkit/internal/runstore"
	"github.com/skillkit/skillkit/internal/runstore/fsstore"
	"github.com/skillkit/skillkit/internal/testfs"
	"github.com/skillkit/skillkit/parse"
	"github.com/skillkit/skillkit/plan"
)

// mcpSkill writes a skill whose one step calls the stand-in server twice
// (once through a Tool step) and whose allowed-tools leave out its fail
// tool.
func mcpSkill(t *testing.T, extra string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "calls")
	testfs.WriteFile(t, filepath.Join(dir, "SKILL.md"), "---\nname: calls\ndescription: Calls MCP tools.\n"+
		"allowed-tools: Read, mcp__ace-tool__echo, mcp__ace-tool__add\n---\n# Calls\n")
	testfs.WriteFile(t, filepath.Join(dir, "phases", "01-call.md"), "# Phase 1: Call\n\n## Execution Steps\n\n"+
		"### Step 1: Echo\n\n```javascript\nstate.echo = mcp__ace-tool__echo({ message: 'hi' })\n"+extra+"```\n\n"+
		"### Step 2: Add\n- **Tool**: mcp__ace-tool__add\n- **Save as**: sum\n\n```json\n{\"x\": 2, \"y\": 3}\n```\n")
	return dir
}

func mcpConfig(command string) *mcp.Config {
	return &mcp.Config{StartTimeout: 10 * time.Second, CallTimeout: 10 * time.Second, Servers: map[string]*mcp.Server{
		"ace-tool": {Name: "ace-tool", Type: mcp.TypeStdio, Command: command, Pos: plan.Pos{File: ".mcp.json", Line: 3, Col: 5}},
	}}
}

// TestMCPTransportFailureResumes: a server that cannot start leaves the
// run interrupted, not failed; once it is fixed the resume completes, and
// the server the run started is gone with it.
func TestMCPTransportFailureResumes(t *testing.T) {
	dir := mcpSkill(t, "")
	s, err := parse.DirWith(dir, parse.Options{MCPServers: []string{"ace-tool"}})
	if err != nil {
		t.Fatal(err)
	}
	if c := s.Phases[0].Steps[1].Class; c.Kind != plan.ClassNative {
		t.Fatalf("Tool step class %+v", c)
	}
	store := fsstore.New(fsstore.Options{Base: t.TempDir(), NoSync: true})
	o := run.Options{Skill: s, Store: store, WorkDir: filepath.Join(t.TempDir(), "work"), MCP: mcpConfig("no-such-mcp-server")}
	res, err := run.Run(context.Background(), o)
	if err == nil || !errors.Is(err, mcp.ErrTransport) || res.State != runstore.RunInterrupted {
		t.Fatalf("first run: %v, %+v", err, res)
	}
	if !strings.Contains(err.Error(), `MCP server "ace-tool" (.mcp.json:3:5): MCP server unavailable: command "no-such-mcp-server" not found`) {
		t.Errorf("error: %v", err)
	}
	o.MCP, o.Resume, o.WorkDir = mcpConfig(mcptest.Standin(t)), res.Dir, ""
	res, err = run.Run(context.Background(), o)
	if err != nil || res.State != runstore.RunCompleted {
		t.Fatalf("resume: %v, %+v", err, res)
	}
	data, err := os.ReadFile(filepath.Join(res.WorkDir, "state.json"))
	if err != nil {
		t.Fatal(err)
	}
	if st := string(data); !strings.Contains(st, `"echo": "Echo: hi"`) || !strings.Contains(st, `"sum": 5`) {
		t.Errorf("state: %s", st)
	}
	log, _ := os.ReadFile(filepath.Join(res.WorkDir, "logs", "mcp.log"))
	if !strings.Contains(string(log), `mcp mcp__ace-tool__add {"x":2,"y":3} → {"sum":5}`) {
		t.Errorf("mcp.log:\n%s", log)
	}
	// The record's process groups are all ended: the server is gone.
	if groups, _ := os.ReadFile(filepath.Join(res.WorkDir, fsstore.GroupsFile)); strings.TrimSpace(string(groups)) != "" {
		for _, f := range strings.Fields(string(groups)) {
			if pgid, err := strconv.Atoi(f); err == nil && proc.Alive(pgid) {
				t.Errorf("server group %d still runs", pgid)
			}
		}
	}
}

// TestMCPAllowedTools: a call of a tool allowed-tools leaves out fails the
// step, naming the tool.
func TestMCPAllowedTools(t *testing.T) {
	dir := mcpSkill(t, "mcp__ace-tool__fail({})\n")
	s, err := parse.DirWith(dir, parse.Options{MCPServers: []string{"ace-tool"}})
	if err != nil {
		t.Fatal(err)
	}
	o := run.Options{Skill: s, Store: fsstore.New(fsstore.Options{Base: t.TempDir(), NoSync: true}), WorkDir: filepath.Join(t.TempDir(), "work"), MCP: mcpConfig(mcptest.Standin(t))}
	res, err := run.Run(context.Background(), o)
	if err == nil || res.State != runstore.RunFailed || !strings.Contains(err.Error(), "MCP tool mcp__ace-tool__fail is not in the skill's allowed-tools") {
		t.Fatalf("run: %v, %+v", err, res)
	}
}

// TestMCPServerEnvSecretsAreScrubbed: a token written in a server's own
// env in .mcp.json is scrubbed from mcp.log as skillkit's own secret-named
// variables are; the real server-everything's get-env tool echoes its
// environment back (a test that failed before: only os.Environ() was
// known to the scrubber).
func TestMCPServerEnvSecretsAreScrubbed(t *testing.T) {
	everything := realtool.Find(t, "mcp-server-everything")
	const token = "ghp_L1teralTokenWrittenInMcpJson"
	dir := filepath.Join(t.TempDir(), "env")
	testfs.WriteFile(t, filepath.Join(dir, "SKILL.md"), "---\nname: env\ndescription: Reads a server's environment.\n---\n# Env\n")
	testfs.WriteFile(t, filepath.Join(dir, "phases", "01-env.md"), "# Phase 1: Env\n\n## Execution Steps\n\n"+
		"### Step 1: Env\n\n```javascript\nconst env = mcp__everything__get-env({})\nstate.seen = JSON.stringify(env).length > 0\n```\n")
	s, err := parse.DirWith(dir, parse.Options{MCPServers: []string{"everything"}})
	if err != nil {
		t.Fatal(err)
	}
	cfg := &mcp.Config{StartTimeout: 30 * time.Second, CallTimeout: 30 * time.Second, Servers: map[string]*mcp.Server{
		"everything": {Name: "everything", Type: mcp.TypeStdio, Command: everything, Env: map[string]string{"GITHUB_TOKEN": token},
			Pos: plan.Pos{File: ".mcp.json", Line: 3, Col: 5}},
	}}
	o := run.Options{Skill: s, Store: fsstore.New(fsstore.Options{Base: t.TempDir(), NoSync: true}), WorkDir: filepath.Join(t.TempDir(), "work"), MCP: cfg}
	res, err := run.Run(context.Background(), o)
	if err != nil || res.State != runstore.RunCompleted {
		t.Fatalf("run: %v, %+v", err, res)
	}
	log, err := os.ReadFile(filepath.Join(res.WorkDir, "logs", "mcp.log"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(log), "GITHUB_TOKEN") {
		t.Fatalf("get-env's answer is not in mcp.log, so the test shows nothing:\n%s", log)
	}
	if strings.Contains(string(log), token) || strings.Contains(string(log), "L1teralToken") {
		t.Errorf("the server's token is in mcp.log:\n%s", log)
	}
}

// TestMCPConfigEnv: the servers' env and the credentials of their
// Authorization headers are what Env gives the scrubbers.
func TestMCPConfigEnv(t *testing.T) {
	cfg := &mcp.Config{Servers: map[string]*mcp.Server{
		"b": {Name: "b", Type: mcp.TypeHTTP, URL: "https://example.invalid/mcp", Headers: map[string]string{"Authorization": "Bearer tok-123456", "Accept": "x"}},
		"a": {Name: "a", Type: mcp.TypeStdio, Command: "x", Env: map[string]string{"API_KEY": "k-123456", "MODE": "fast"}},
	}}
	got := strings.Join(cfg.Env(), " ")
	if want := "API_KEY=k-123456 MODE=fast MCP_AUTHORIZATION_TOKEN=tok-123456"; got != want {
		t.Errorf("Env() = %q, want %q", got, want)
	}
	var none *mcp.Config
	if none.Env() != nil {
		t.Error("a nil config has env")
	}
}
