package lsp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHoverSpecific hovers over the bundled autonomous example's
// orchestrator: a catalog row, a state field, a section heading and the
// decision logic each say what they are, not the same text anywhere in
// the section.
func TestHoverSpecific(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "autonomous")
	if err := os.CopyFS(dir, os.DirFS("../../examples/autonomous")); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "phases", "orchestrator.md")
	text, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	uri := uriOf(file)
	cl := startServer(t)
	var init struct{}
	cl.request("initialize", map[string]any{"processId": nil, "rootUri": uriOf(dir), "capabilities": map[string]any{}}, &init)
	cl.notify("initialized", map[string]any{})
	cl.notify("textDocument/didOpen", didOpenParams{TextDocument: textDocumentItem{URI: uri, Version: 1, Text: string(text)}})
	lines := strings.Split(string(text), "\n")
	at := func(sub string, offset int) position {
		for i, l := range lines {
			if j := strings.Index(l, sub); j >= 0 {
				return position{i, j + offset}
			}
		}
		t.Fatalf("no %q in the orchestrator", sub)
		return position{}
	}
	seen := map[string]string{}
	for _, c := range []struct {
		what string
		at   position
		want string
	}{
		{"catalog row", at("| [action-init]", 4), "**action-init** (catalog row"},
		{"state field", at("state.error_count", 8), "**state.error_count**: `error_count"},
		{"heading", at("## Action Catalog", 4), "read as the section"},
		{"decision logic", at("return 'action-abort'", 0), "**selectNextAction**"},
	} {
		var h hover
		cl.request("textDocument/hover", textDocumentPositionParams{TextDocument: textDocumentIdentifier{URI: uri}, Position: c.at}, &h)
		if !strings.Contains(h.Contents.Value, c.want) {
			t.Errorf("hover on the %s at %+v: %q, want %q", c.what, c.at, h.Contents.Value, c.want)
		}
		if prev, ok := seen[h.Contents.Value]; ok {
			t.Errorf("the %s and the %s hover alike: %q", c.what, prev, h.Contents.Value)
		}
		seen[h.Contents.Value] = c.what
	}
}
