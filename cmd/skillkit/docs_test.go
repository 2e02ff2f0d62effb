package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// commandDocs is where the generated command reference lives.
const commandDocs = "../../docs/commands"

// TestCommandDocsCurrent regenerates the command reference from the cobra
// commands and fails when docs/commands differs: --help and the docs are
// one text. Run go test ./cmd/skillkit -run CommandDocs -update to refresh.
func TestCommandDocsCurrent(t *testing.T) {
	tmp := t.TempDir()
	root := newRootCmd(Streams{In: strings.NewReader(""), Out: &bytes.Buffer{}, Err: &bytes.Buffer{}})
	root.DisableAutoGenTag = true
	root.InitDefaultCompletionCmd()
	var visit func(c *cobra.Command)
	visit = func(c *cobra.Command) {
		c.DisableAutoGenTag = true
		for _, sub := range c.Commands() {
			visit(sub)
		}
	}
	visit(root)
	if err := doc.GenMarkdownTree(root, tmp); err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.RemoveAll(commandDocs); err != nil {
			t.Fatal(err)
		}
		if err := os.CopyFS(commandDocs, os.DirFS(tmp)); err != nil {
			t.Fatal(err)
		}
	}
	want, _ := filepath.Glob(filepath.Join(commandDocs, "*.md"))
	got, _ := filepath.Glob(filepath.Join(tmp, "*.md"))
	if len(want) != len(got) {
		t.Fatalf("docs/commands has %d files, the commands make %d (go test ./cmd/skillkit -run CommandDocs -update)", len(want), len(got))
	}
	for _, g := range got {
		gb, _ := os.ReadFile(g)
		wb, err := os.ReadFile(filepath.Join(commandDocs, filepath.Base(g)))
		if err != nil || !bytes.Equal(gb, wb) {
			t.Errorf("docs/commands/%s is out of date (go test ./cmd/skillkit -run CommandDocs -update)", filepath.Base(g))
		}
	}
}

// TestEveryCommandHasExamples: --help teaches by example, for every
// command skillkit defines (cobra's own help and completion aside).
func TestEveryCommandHasExamples(t *testing.T) {
	var visit func(c *cobra.Command)
	visit = func(c *cobra.Command) {
		if c.Name() == "help" || c.Name() == "completion" {
			return
		}
		if c.Runnable() && strings.TrimSpace(c.Example) == "" {
			t.Errorf("skillkit %s has no examples in --help", c.CommandPath())
		}
		for _, sub := range c.Commands() {
			visit(sub)
		}
	}
	visit(newRootCmd(Streams{In: strings.NewReader(""), Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}))
}
