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
