//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/skillkit/skillkit/internal/mcp/mcptest"
	"github.com/skillkit/skillkit/internal/proc"
	"github.com/skillkit/skillkit/internal/testfs"
)

// An MCP server a run started dies with the run: when the run is stopped
// (SIGTERM: interrupted, resumable) and when its runner is killed
// (SIGKILL), while a call of the server is under way.
func TestMCPServerEndsWithTheRunner(t *testing.T) {
	standin := mcptest.Standin(t)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			testfs.WriteTree(t, dir, map[string]string{
				"skill/SKILL.md":      "---\nname: hang\ndescription: Hangs in an MCP call.\n---\n# Hang\n",
				"skill/skillkit.yaml": "mcp:\n  call_timeout: 10m\n  servers:\n    ace-tool:\n      command: " + standin + "\n",
				"skill/phases/01-wait.md": "# Phase 1: Wait\n## Execution Steps\n### Step 1: Wait\n```javascript\n" +
					"mcp__ace-tool__echo({ message: 'up' })\nWrite('started', 'yes')\nmcp__ace-tool__hang({})\n```\n",
			})
			work := filepath.Join(dir, "work")
			pidFile := filepath.Join(dir, "server.pid")
			cmd := skillkitCmd(t, "run", filepath.Join(dir, "skill"), "--workdir", work)
			cmd.Dir, cmd.Env = dir, append(os.Environ(), "STANDIN_PIDFILE="+pidFile)
			stderr := startUntil(t, cmd, filepath.Join(work, "started"), 30*time.Second)
			data, _ := os.ReadFile(pidFile)
			pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
			if err != nil || !proc.Alive(pid) {
				t.Fatalf("server pid %q: %v", data, err)
			}
			cmd.Process.Signal(sig)
			cmd.Wait()
			for deadline := time.Now().Add(10 * time.Second); proc.Alive(pid); time.Sleep(20 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("the server %d outlived its runner (%s)", pid, sig)
				}
			}
			if sig == syscall.SIGTERM && !strings.Contains(stderr.String(), "--resume") {
				t.Errorf("no resume hint: %s", stderr)
			}
		})
	}
}
