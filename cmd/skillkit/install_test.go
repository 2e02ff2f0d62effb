package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// tryIt is the README's first block: what a newcomer runs first.
var tryIt = regexp.MustCompile("(?s)## Try it\n.*?```sh\n(.*?)```")

// firstScreen is how many lines of the README a terminal or a browser
// shows before scrolling: the two commands must be within them.
const firstScreen = 30

// TestReadmeFirstScreen holds the README's first screen to its two
// commands, run the bundled example and run the tests, and checks both:
// the example runs to completion, and the test command is CI's own (a line
// of .ci/run), so that a fresh clone reaches both with the README alone.
// The install line is the one that works from a clone: the module path
// does not resolve on the proxy, so no `@latest` until it does.
func TestReadmeFirstScreen(t *testing.T) {
	root := repoRoot(t)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	must(t, err)
	loc := tryIt.FindSubmatchIndex(readme)
	if loc == nil {
		t.Fatal("README.md has no ## Try it with a sh block")
	}
	if line := strings.Count(string(readme[:loc[1]]), "\n") + 1; line > firstScreen {
		t.Errorf("the Try it block ends on line %d, past the first screen (%d lines)", line, firstScreen)
	}
	var cmds []string
	for _, l := range strings.Split(string(readme[loc[2]:loc[3]]), "\n") {
		if cmd, _, _ := strings.Cut(l, "#"); strings.TrimSpace(cmd) != "" {
			cmds = append(cmds, strings.TrimSpace(cmd))
		}
	}
	if len(cmds) != 2 {
		t.Fatalf("the Try it block has %d commands, want 2 (run the example, run the tests): %q", len(cmds), cmds)
	}
	run, ok := strings.CutPrefix(cmds[0], "go run ./cmd/skillkit ")
	if !ok || !strings.HasPrefix(run, "run examples/") {
		t.Errorf("the first command %q does not run a bundled example with go run ./cmd/skillkit", cmds[0])
	}
	ci, err := os.ReadFile(filepath.Join(root, ".ci", "run"))
	must(t, err)
	if !strings.Contains("\n"+string(ci), "\n"+cmds[1]+"\n") {
		t.Errorf("the test command %q is not a line of .ci/run", cmds[1])
	}
	if !strings.Contains(string(readme), "go install ./cmd/skillkit") {
		t.Error("the README does not say to install with go install ./cmd/skillkit from a clone")
	}
	if strings.Contains(string(readme), "@latest") {
		t.Error("the README installs with @latest, which the module proxy refuses for this module")
	}
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "try.txtar"), []byte("exec skillkit "+run+"\nstdout completed\n"), 0o644))
	testscript.Run(t, testscript.Params{
		Dir: dir,
		Setup: func(env *testscript.Env) error {
			env.Setenv("NO_COLOR", "1")
			return os.CopyFS(filepath.Join(env.WorkDir, "examples"), os.DirFS(filepath.Join(root, "examples")))
		},
	})
}
