package cassette

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillkit/skillkit/internal/mcp"
)

// TestMCPRecordReplay records MCP calls (a result, a tool error, a file
// the server wrote in the work dir) and replays them in another work dir:
// same values, the file written again, a secret scrubbed, and a miss with
// the arguments' diff.
func TestMCPRecordReplay(t *testing.T) {
	work := t.TempDir()
	env := []string{"SKILL_WORKDIR=" + work, "SKILL_RUN_ID=r1"}
	scrub, err := NewScrubber([]string{"API_TOKEN=s3cr3t-value"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "c.jsonl")
	rec, err := Create(path, Header{Skill: "demo", Agent: NoAgent}, scrub)
	if err != nil {
		t.Fatal(err)
	}
	write := mcp.Call{Server: "fs", Tool: "write_file", Args: map[string]any{"path": work + "/notes.md", "content": "hi s3cr3t-value"}}
	if _, ok, _ := rec.ReplayMCP(env, write); ok {
		t.Fatal("a recorder answered a call")
	}
	os.WriteFile(filepath.Join(work, "notes.md"), []byte("hi\n"), 0o644)
	write.Result = map[string]any{"content": "Successfully wrote to " + work + "/notes.md"}
	rec.RecordMCP(env, write)
	fail := mcp.Call{Server: "fs", Tool: "read_text_file", Args: map[string]any{"path": "/etc/passwd"}, Error: "Access denied"}
	rec.ReplayMCP(env, fail)
	rec.RecordMCP(env, fail)
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	if rec.MCPCalls() != 2 || rec.Exchanges() != 0 {
		t.Errorf("%d MCP calls, %d agent exchanges", rec.MCPCalls(), rec.Exchanges())
	}
	data, _ := os.ReadFile(path)
	if strings.Contains(string(data), "s3cr3t-value") || strings.Contains(string(data), work) || !strings.Contains(string(data), "${SKILL_WORKDIR}/notes.md") {
		t.Errorf("cassette:\n%s", data)
	}

	c, err := Load(path, "demo")
	if err != nil {
		t.Fatal(err)
	}
	work2 := t.TempDir()
	env2 := []string{"SKILL_WORKDIR=" + work2, "SKILL_RUN_ID=r2"}
	p := NewPlayer(c.Exchanges, scrub)
	write.Args["path"] = work2 + "/notes.md"
	got, ok, err := p.ReplayMCP(env2, mcp.Call{Server: "fs", Tool: "write_file", Args: write.Args})
	if !ok || err != nil || got.(map[string]any)["content"] != "Successfully wrote to "+work2+"/notes.md" {
		t.Errorf("replay: %v %v %v", got, ok, err)
	}
	if b, err := os.ReadFile(filepath.Join(work2, "notes.md")); err != nil || string(b) != "hi\n" {
		t.Errorf("replayed file: %q %v", b, err)
	}
	_, _, err = p.ReplayMCP(env2, mcp.Call{Server: "fs", Tool: "read_text_file", Args: map[string]any{"path": "/etc/passwd"}})
	var te *mcp.ToolError
	if !errors.As(err, &te) || te.Msg != "Access denied" {
		t.Errorf("tool error: %v", err)
	}
	_, _, err = p.ReplayMCP(env2, mcp.Call{Server: "fs", Tool: "read_text_file", Args: map[string]any{"path": "/etc/hosts"}})
	var miss *MissError
	if !errors.As(err, &miss) || !strings.Contains(miss.Diff, `-  "path": "/etc/passwd"`) || !strings.Contains(miss.Diff, `+  "path": "/etc/hosts"`) {
		t.Errorf("miss: %v", err)
	}
	if p.MCPCalls() != 3 || p.Calls() != 0 || len(p.Misses()) != 1 {
		t.Errorf("%d MCP calls, %d agent calls, %d misses", p.MCPCalls(), p.Calls(), len(p.Misses()))
	}
}
