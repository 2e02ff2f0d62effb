package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/skillkit/skillkit/lint"
)

// TestReadmeCommandsTable compares the README's Commands table with the
// commands: each command skillkit has is in the table, each command the
// table names exists, and each flag a row gives is a flag of its command.
func TestReadmeCommandsTable(t *testing.T) {
	readme := string(must2(os.ReadFile(filepath.Join(repoRoot(t), "README.md"))))
	table := regexp.MustCompile("(?s)## Commands\n(.*?)\n\n").FindStringSubmatch(readme)
	if table == nil {
		t.Fatal("README.md has no ## Commands table")
	}
	root := newRootCmd(Streams{In: strings.NewReader(""), Out: &bytes.Buffer{}, Err: &bytes.Buffer{}})
	root.InitDefaultCompletionCmd()
	named := map[string]bool{}
	for _, span := range regexp.MustCompile("`(skillkit [^`]*)`").FindAllStringSubmatch(table[1], -1) {
		usage := strings.ReplaceAll(span[1], `\|`, "|")
		c, rest, err := root.Find(strings.Fields(usage)[1:])
		if err != nil || c == root {
			t.Errorf("the table names %q: no such command", usage)
			continue
		}
		named[c.CommandPath()] = true
		for _, f := range regexp.MustCompile(`(?:^|[\s\[|])(--?[a-z][a-z-]*)`).FindAllStringSubmatch(strings.Join(rest, " "), -1) {
			name := strings.TrimLeft(f[1], "-")
			short := len(name) == 1 && c.Flags().ShorthandLookup(name) != nil
			if !short && c.Flags().Lookup(name) == nil && c.InheritedFlags().Lookup(name) == nil {
				t.Errorf("the table gives %s for %q: %s has no such flag", f[1], usage, c.CommandPath())
			}
		}
	}
	for _, c := range root.Commands() {
		if c.Hidden || c.Name() == "help" {
			continue
		}
		if !named[c.CommandPath()] && !slices.ContainsFunc(c.Commands(), func(sub *cobra.Command) bool { return named[sub.CommandPath()] }) {
			t.Errorf("%s is not in the README's Commands table", c.CommandPath())
		}
	}
}

// TestReadmeExitCodes: the README's exit codes are the ones skillkit
// exits with, 130 included.
func TestReadmeExitCodes(t *testing.T) {
	readme := string(must2(os.ReadFile(filepath.Join(repoRoot(t), "README.md"))))
	line := regexp.MustCompile(`(?s)Exit codes, everywhere:(.*?)\n\n`).FindStringSubmatch(readme)
	if line == nil {
		t.Fatal("README.md does not list its exit codes")
	}
	for _, code := range []int{ExitOK, ExitFailed, ExitUsage, ExitInternal, ExitInterrupted} {
		if !strings.Contains(line[1], fmt.Sprintf("`%d`", code)) {
			t.Errorf("the README's exit codes lack %d", code)
		}
	}
}

// TestConfigProfiles: docs/config.md's profile row lists the profiles lint
// accepts, from lint.ProfileNames.
func TestConfigProfiles(t *testing.T) {
	doc := string(must2(os.ReadFile(filepath.Join(repoRoot(t), "docs", "config.md"))))
	row := regexp.MustCompile("(?m)^\\| `profile` \\| lint \\| ([^|]*)\\|").FindStringSubmatch(doc)
	if row == nil {
		t.Fatal("docs/config.md has no profile row")
	}
	var got []string
	for _, m := range regexp.MustCompile("`([a-z-]+)`").FindAllStringSubmatch(row[1], -1) {
		got = append(got, m[1])
	}
	want := slices.Sorted(slices.Values(lint.ProfileNames))
	if slices.Sort(got); !slices.Equal(got, want) {
		t.Errorf("docs/config.md lists profiles %v; lint accepts %v", got, want)
	}
}

func must2[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
