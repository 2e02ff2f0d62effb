// Package mcptest gives tests an MCP server to call where the real one
// cannot run here: the stand-in of internal/mcp/testdata/standin, built
// with the official Go SDK.
package mcptest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

var (
	once  sync.Once
	bin   string
	built error
	out   []byte
)

// Standin builds the stand-in server once per test binary and returns
// its path.
func Standin(t testing.TB) string {
	t.Helper()
	once.Do(func() {
		_, file, _, _ := runtime.Caller(0)
		src := filepath.Join(filepath.Dir(file), "..", "testdata", "standin")
		// The binary lives as long as the test binary: a test's own
		// TempDir would go with the first test that built it.
		dir, err := os.MkdirTemp("", "skillkit-mcptest-")
		if err != nil {
			built = err
			return
		}
		bin = filepath.Join(dir, "standin")
		cmd := exec.Command("go", "build", "-o", bin, ".")
		cmd.Dir = src
		out, built = cmd.CombinedOutput()
	})
	if built != nil {
		t.Fatalf("building the stand-in MCP server: %v\n%s", built, out)
	}
	return bin
}
