package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillkit/skillkit/internal/mcp/mcptest"
	"github.com/skillkit/skillkit/internal/realtool"
	"github.com/skillkit/skillkit/internal/testfs"
)

// TestMCPToolsSaveThenLint lists the stand-in server's tools, saves the
// listing beside the skill's skillkit.yaml, and lint checks a call's
// arguments against it without starting the server.
func TestMCPToolsSaveThenLint(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ace")
	testfs.WriteFile(t, filepath.Join(dir, "SKILL.md"), "---\nname: ace\ndescription: Searches the code.\n---\n# Ace\n")
	testfs.WriteFile(t, filepath.Join(dir, "skillkit.yaml"), "mcp:\n  servers:\n    ace-tool:\n      command: "+mcptest.Standin(t)+"\n")
	testfs.WriteFile(t, filepath.Join(dir, "phases", "01-search.md"), "# Phase 1: Search\n\n## Execution Steps\n\n### Step 1: Search\n\n"+
		"```javascript\nstate.hits = mcp__ace-tool__search_context({ project_root_path: 1, query: 'login', limit: 3 })\n```\n")
	code, out, stderr := run("mcp", "tools", "ace-tool", "--skill", dir, "--save")
	if code != ExitOK || !strings.Contains(out, "mcp__ace-tool__search_context\n  Searches the code base for context\n  input: {") {
		t.Fatalf("mcp tools: %d\n%s\n%s", code, out, stderr)
	}
	if !strings.Contains(stderr, "saved 6 tool(s) to "+filepath.Join(dir, ".mcp-tools", "ace-tool.json")) {
		t.Errorf("stderr: %s", stderr)
	}
	// Lint reads the listing; the server's command may be gone.
	testfs.WriteFile(t, filepath.Join(dir, "skillkit.yaml"), "mcp:\n  servers:\n    ace-tool:\n      command: gone\n")
	code, out, _ = run("lint", dir)
	for _, want := range []string{
		"phases/01-search.md:8:84: error: `mcp__ace-tool__search_context`: `limit` is no argument of the tool (it takes `project_root_path`, `query`) [mcp-args]",
		"phases/01-search.md:8:46: error: `mcp__ace-tool__search_context`: `project_root_path` is a number, the tool wants string [mcp-args]",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("lint (exit %d) lacks %q:\n%s", code, want, out)
		}
	}
	if code, _, stderr := run("mcp", "tools", "nope", "--skill", dir); code != ExitUsage || !strings.Contains(stderr, `MCP server "nope" is not configured; skillkit mcp list shows those that are`) {
		t.Errorf("unknown server: exit %d %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, ".mcp-tools", "nope.json")); err == nil {
		t.Error("a listing for an unknown server")
	}
}

// TestMCPNotesExampleLive runs examples/mcp-notes against the real
// filesystem and memory servers from npm: what its recorded test replays.
func TestMCPNotesExampleLive(t *testing.T) {
	fsServer := realtool.Find(t, "mcp-server-filesystem")
	realtool.Find(t, "mcp-server-memory")
	t.Setenv("PATH", filepath.Dir(fsServer)+string(os.PathListSeparator)+os.Getenv("PATH"))
	// The memory server keeps its graph under $HOME.
	t.Setenv("HOME", t.TempDir())
	work := filepath.Join(t.TempDir(), "work")
	code, out, stderr := run("run", filepath.Join(repoRoot(t), "examples", "mcp-notes"), "--workdir", work)
	if code != ExitOK {
		t.Fatalf("run: exit %d\n%s\n%s", code, out, stderr)
	}
	report, err := os.ReadFile(filepath.Join(work, "report.md"))
	if err != nil || string(report) != "# Errands\n\n- call grandma\n- call the plumber\n" {
		t.Errorf("report.md: %q %v", report, err)
	}
	log, _ := os.ReadFile(filepath.Join(work, "logs", "mcp.log"))
	if strings.Count(string(log), "mcp mcp__") != 4 {
		t.Errorf("mcp.log:\n%s", log)
	}
}
