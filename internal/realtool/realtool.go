// Package realtool finds the real programs that skillkit's tests talk to:
// Claude Code, Codex, the reference MCP servers and the MCP Inspector, as
// .ci/run installs them from npm (.ci/npm/package.json, pinned).
//
// A test that needs one calls Find. On a user's clone without the program
// the test skips, saying how to install it; in CI, where
// SKILLKIT_TEST_REQUIRE_REAL_TOOLS is set, it fails instead, so a missing
// install step cannot hide behind a green run.
package realtool

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// RequireEnv names the variable that turns a missing program from a skip
// into a failure.
const RequireEnv = "SKILLKIT_TEST_REQUIRE_REAL_TOOLS"

// DirEnv names a folder searched before PATH, for a checkout whose tools
// were installed elsewhere (a worktree sharing one .ci/npm).
const DirEnv = "SKILLKIT_TEST_REAL_TOOLS_DIR"

// Install is the command that installs every program Find looks for.
const Install = "npm ci --prefix .ci/npm"

// Find returns the path of the program name, looking in $SKILLKIT_TEST_REAL_TOOLS_DIR,
// in the repository's .ci/npm/node_modules/.bin, then on PATH.
func Find(t testing.TB, name string) string {
	t.Helper()
	if p, ok := Lookup(name); ok {
		return p
	}
	msg := name + " is not installed; install the pinned real programs with `" + Install + "` at the repository root"
	if os.Getenv(RequireEnv) != "" {
		t.Fatal(msg + " (" + RequireEnv + " is set, so this fails rather than skips)")
	}
	t.Skip(msg)
	return ""
}

// Lookup is Find without a test: the path of name and whether it was found.
func Lookup(name string) (string, bool) {
	for _, d := range BinDirs() {
		p := filepath.Join(d, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, true
		}
	}
	p, err := exec.LookPath(name)
	return p, err == nil
}

// BinDirs returns the folders Lookup searches before PATH, for a test that
// must put the real programs on a child's PATH.
func BinDirs() []string {
	var dirs []string
	if d := os.Getenv(DirEnv); d != "" {
		dirs = append(dirs, d)
	}
	if root, ok := repoRoot(); ok {
		dirs = append(dirs, filepath.Join(root, ".ci", "npm", "node_modules", ".bin"))
	}
	return dirs
}

// repoRoot walks up from the working directory (a test's package folder)
// to the folder holding go.mod.
func repoRoot() (string, bool) {
	dir, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}
