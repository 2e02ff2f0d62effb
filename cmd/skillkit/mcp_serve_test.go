package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillkit/skillkit/internal/realtool"
)

// mcpProject is a project holding a copy of the bundled sequential
// example, in a folder whose parent has a package.json: the Inspector CLI
// 1.0.3 reads its own package.json through a path relative to its working
// folder, and finds it only there (docs/mcp-server.md).
func mcpProject(t *testing.T) string {
	t.Helper()
	parent := t.TempDir()
	if err := os.WriteFile(filepath.Join(parent, "package.json"), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(parent, "project")
	if err := os.CopyFS(filepath.Join(dir, "sequential"), os.DirFS(filepath.Join(repoRoot(t), "examples", "sequential"))); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// skillkitBin is a link named skillkit to this test binary, which runs as
// the skillkit command (TestMain).
func skillkitBin(t *testing.T) string {
	t.Helper()
	return skillkitCmd(t).Path
}

// TestMCPServeInspector: the real MCP Inspector CLI, as the client of
// `skillkit mcp serve`, lists the tools, calls lint and plan, reads a
// skill and gets its prompt.
func TestMCPServeInspector(t *testing.T) {
	inspector := realtool.Find(t, "mcp-inspector-cli")
	dir := mcpProject(t)
	bin := skillkitBin(t)
	inspect := func(args ...string) map[string]any {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, inspector, append([]string{"--cli", bin, "mcp", "serve", "--method"}, args...)...)
		cmd.Dir = dir
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("inspector %v: %v\n%s%s", args, err, stdout.String(), stderr.String())
		}
		var out map[string]any
		if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
			t.Fatalf("inspector %v: %v in %s", args, err, stdout.String())
		}
		return out
	}
	var names []string
	for _, tl := range inspect("tools/list")["tools"].([]any) {
		names = append(names, tl.(map[string]any)["name"].(string))
	}
	if got := strings.Join(names, " "); got != "lint plan run status test" {
		t.Errorf("tools: %s", got)
	}
	lint := inspect("tools/call", "--tool-name", "lint", "--tool-arg", "path=sequential")["structuredContent"].(map[string]any)
	if lint["errors"] != 0.0 || lint["text"] != "0 errors, 0 warnings, 0 infos in 1 skill\n" {
		t.Errorf("lint: %v", lint)
	}
	plan := inspect("tools/call", "--tool-name", "plan", "--tool-arg", "skill=sequential")["structuredContent"].(map[string]any)
	if plan["mode"] != "sequential" || !strings.Contains(plan["summary"].(string), "03-report") {
		t.Errorf("plan: %v", plan)
	}
	read := inspect("resources/read", "--uri", "skillkit://skill/sequential/SKILL.md")
	if text := read["contents"].([]any)[0].(map[string]any)["text"].(string); !strings.Contains(text, "# Word count report") {
		t.Errorf("resource: %s", text)
	}
	prompt := inspect("prompts/get", "--prompt-name", "sequential", "--prompt-args", "arguments=docs")
	msg := prompt["messages"].([]any)[0].(map[string]any)["content"].(map[string]any)["text"].(string)
	if !strings.HasSuffix(msg, "ARGUMENTS: docs") {
		t.Errorf("prompt: %s", msg)
	}
}

// TestMCPServeClaude: the real Claude Code adds `skillkit mcp serve` and
// finds it connected. HOME is a fresh folder: no login is needed to list
// servers, and the user's own configuration stays untouched.
func TestMCPServeClaude(t *testing.T) {
	claude := realtool.Find(t, "claude")
	dir := mcpProject(t)
	bin := skillkitBin(t)
	home := t.TempDir()
	run := func(args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, claude, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "CLAUDE_CONFIG_DIR=")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("claude %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	run("mcp", "add", "skillkit", "--", bin, "mcp", "serve")
	out := run("mcp", "list")
	if !strings.Contains(out, "skillkit: "+bin+" mcp serve - ✔ Connected") {
		t.Errorf("claude mcp list:\n%s", out)
	}
}

// BenchmarkMCPServe measures the server as a client sees it over stdio:
// the start (process start, initialize, the skill scan) and one lint call
// of the sequential example.
func BenchmarkMCPServe(b *testing.B) {
	dir := b.TempDir()
	if err := os.CopyFS(filepath.Join(dir, "sequential"), os.DirFS(filepath.Join("..", "..", "examples", "sequential"))); err != nil {
		b.Fatal(err)
	}
	bin := filepath.Join(b.TempDir(), "skillkit")
	if err := os.Symlink(os.Args[0], bin); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	start := func() *mcp.ClientSession {
		cmd := exec.Command(bin, "mcp", "serve")
		cmd.Dir = dir
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			b.Fatal(err)
		}
		return cs
	}
	b.Run("start", func(b *testing.B) {
		for b.Loop() {
			start().Close()
		}
	})
	b.Run("lint", func(b *testing.B) {
		cs := start()
		defer cs.Close()
		for b.Loop() {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "lint", Arguments: map[string]any{"path": "sequential"}})
			if err != nil || res.IsError {
				b.Fatal(err, res)
			}
		}
	})
}
