package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// walkthrough is the README's walkthrough block.
var walkthrough = regexp.MustCompile("(?s)## Walkthrough\n.*?```sh\n(.*?)```")

// expectExit reads a "(exit N)" note in a walkthrough comment.
var expectExit = regexp.MustCompile(`\(exit (\d+)\)`)

// TestReadmeWalkthrough runs the README's walkthrough, command by command,
// in a copy of the repository's examples: what a newcomer types must work
// as the README says.
func TestReadmeWalkthrough(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(repoRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := walkthrough.FindSubmatch(readme)
	if m == nil {
		t.Fatal("README.md has no ## Walkthrough with a sh block")
	}
	var script strings.Builder
	n := 0
	for _, line := range strings.Split(string(m[1]), "\n") {
		cmd, comment, _ := strings.Cut(line, "  #")
		cmd = strings.TrimSpace(cmd)
		if cmd == "" {
			continue
		}
		if !strings.HasPrefix(cmd, "skillkit ") {
			t.Fatalf("walkthrough line %q does not run skillkit", line)
		}
		n++
		fmt.Fprintf(&script, "# %s\n", cmd)
		if mm := expectExit.FindStringSubmatch(comment); mm != nil {
			cmd += "; test $? -eq " + mm[1]
		}
		// testscript quotes with single quotes, doubling a quote inside.
		fmt.Fprintf(&script, "exec sh -c '%s'\n", strings.ReplaceAll(cmd, "'", "''"))
	}
	if n < 8 {
		t.Fatalf("the walkthrough has %d commands; expected the whole tour", n)
	}
	// The last run resumed and completed.
	script.WriteString("stdout 'completed'\n")
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "walkthrough.txtar"), []byte(script.String()), 0o644))
	testscript.Run(t, testscript.Params{
		Dir: dir,
		Setup: func(env *testscript.Env) error {
			env.Setenv("NO_COLOR", "1")
			return os.CopyFS(filepath.Join(env.WorkDir, "examples"), os.DirFS(filepath.Join(repoRoot(t), "examples")))
		},
	})
}
