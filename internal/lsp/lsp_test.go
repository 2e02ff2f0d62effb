package lsp

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillkit/skillkit/internal/testfs"
)

// client is the test's side of a JSON-RPC exchange with a server over
// pipes.
type client struct {
	t    *testing.T
	c    *conn
	next int
	done chan error
	// srv is the server, for a test to look at what it keeps between
	// two messages (the server handles one at a time).
	srv *server
	// in gets what the server writes, read as it comes: a server that
	// publishes while the test sends its next message must not wait for
	// the test to read (the pipes hold nothing).
	in chan received
}

type received struct {
	m   *message
	err error
}

func startServer(t *testing.T) *client {
	t.Helper()
	toServer, fromClient := io.Pipe()
	toClient, fromServer := io.Pipe()
	cl := &client{t: t, c: newConn(toClient, fromClient), done: make(chan error, 1), in: make(chan received, 1<<12)}
	cl.srv = newServer(toServer, fromServer, Options{Version: "test"})
	go func() {
		for {
			m, err := cl.c.read()
			cl.in <- received{m, err}
			if err != nil {
				return
			}
		}
	}()
	go func() {
		err := cl.srv.serve()
		fromServer.Close()
		cl.done <- err
	}()
	t.Cleanup(func() { fromClient.Close() })
	return cl
}

// request sends a request and returns its result, skipping the
// notifications that come before the response.
func (cl *client) request(method string, params any, result any) {
	cl.t.Helper()
	cl.next++
	id := json.RawMessage(fmt.Sprint(cl.next))
	raw, _ := json.Marshal(params)
	if err := cl.c.write(&message{JSONRPC: "2.0", ID: id, Method: method, Params: raw}); err != nil {
		cl.t.Fatal(err)
	}
	for {
		m := cl.read()
		if string(m.ID) != string(id) || m.Method != "" {
			continue
		}
		if m.Error != nil {
			cl.t.Fatalf("%s: %v", method, m.Error)
		}
		if err := json.Unmarshal(m.Result, result); err != nil {
			cl.t.Fatalf("%s result %s: %v", method, m.Result, err)
		}
		return
	}
}

func (cl *client) notify(method string, params any) {
	cl.t.Helper()
	if err := cl.c.notify(method, params); err != nil {
		cl.t.Fatal(err)
	}
}

func (cl *client) read() *message {
	cl.t.Helper()
	select {
	case g := <-cl.in:
		if g.err != nil {
			cl.t.Fatal(g.err)
		}
		return g.m
	case <-time.After(10 * time.Second):
		cl.t.Fatal("no message from the server in 10s")
	}
	return nil
}

// diagnostics reads messages until diagnostics for uri arrive.
func (cl *client) diagnostics(uri string) []diagnostic {
	cl.t.Helper()
	for {
		m := cl.read()
		if m.Method != "textDocument/publishDiagnostics" {
			continue
		}
		var p publishDiagnosticsParams
		if err := json.Unmarshal(m.Params, &p); err != nil {
			cl.t.Fatal(err)
		}
		if p.URI == uri {
			return p.Diagnostics
		}
	}
}

const (
	skillMD = "---\nname: demo\ndescription: Counts files.\nauthor: me\n---\n\n# Demo\n\n中文😀 [gone](gone.md) and [phase](phases/01-count.md).\n"
	phaseMD = "# Phase 1: Count\n\n## Execution\n\n### Step 1: Count\n\n```javascript\nconst n = state.count + 1;\n```\n\n### Step 2: Ask\n\nAsk the user.\n"
	schema  = "# State Schema\n\n```typescript\ninterface S {\n  status: 'pending' | 'running' | 'completed' | 'failed';\n  count: number;\n}\n```\n"
)

func find(ds []diagnostic, code string) *diagnostic {
	for i := range ds {
		if ds[i].Code == code {
			return &ds[i]
		}
	}
	return nil
}

// TestExchange runs a session over pipes: initialize, didOpen and its
// diagnostics, a code action that fixes one, definitions, a hover, a
// change that clears the diagnostic, shutdown and exit.
func TestExchange(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".claude", "skills", "demo")
	testfs.WriteTree(t, dir, map[string]string{
		"SKILL.md":               skillMD,
		"phases/01-count.md":     phaseMD,
		"phases/state-schema.md": schema,
	})
	skill := uriOf(filepath.Join(dir, "SKILL.md"))
	phase := uriOf(filepath.Join(dir, "phases", "01-count.md"))
	cl := startServer(t)

	var init struct {
		Capabilities map[string]any `json:"capabilities"`
		ServerInfo   struct {
			Name, Version string
		} `json:"serverInfo"`
	}
	cl.request("initialize", map[string]any{"processId": nil, "rootUri": uriOf(dir), "capabilities": map[string]any{}}, &init)
	if init.Capabilities["codeActionProvider"] == nil || init.Capabilities["hoverProvider"] != true {
		t.Errorf("capabilities %v", init.Capabilities)
	}
	if init.ServerInfo.Name != "skillkit" || init.ServerInfo.Version != "test" {
		t.Errorf("serverInfo %+v, want skillkit test", init.ServerInfo)
	}
	cl.notify("initialized", map[string]any{})

	cl.notify("textDocument/didOpen", didOpenParams{TextDocument: textDocumentItem{URI: skill, Version: 1, Text: skillMD}})
	ds := cl.diagnostics(skill)
	key := find(ds, "frontmatter-unknown-key")
	if key == nil || key.Range.Start != (position{3, 0}) || key.Range.End != (position{3, 6}) || key.Severity != severityWarning {
		t.Fatalf("frontmatter-unknown-key diagnostic %+v in %+v", key, ds)
	}
	// 中文😀 is 3 code points and 4 UTF-16 units: the link starts at 5.
	if link := find(ds, "link-broken"); link == nil || link.Range.Start != (position{8, 5}) {
		t.Errorf("link-broken diagnostic %+v, want it at 8:5 in UTF-16", link)
	}

	var actions []codeAction
	cl.request("textDocument/codeAction", codeActionParams{TextDocument: textDocumentIdentifier{URI: skill}, Range: key.Range}, &actions)
	if len(actions) != 1 {
		t.Fatalf("code actions %+v, want one", actions)
	}
	edits := actions[0].Edit.Changes[skill]
	if len(edits) != 2 || edits[0].Range != (lspRange{position{3, 0}, position{4, 0}}) || edits[0].NewText != "" ||
		edits[1].NewText != "metadata:\n  author: me\n" || edits[1].Range.Start != (position{4, 0}) {
		t.Errorf("code action edits %+v", edits)
	}

	var loc location
	cl.request("textDocument/definition", textDocumentPositionParams{TextDocument: textDocumentIdentifier{URI: skill}, Position: position{8, 30}}, &loc)
	if loc.URI != phase {
		t.Errorf("definition of the phase link: %+v", loc)
	}
	cl.notify("textDocument/didOpen", didOpenParams{TextDocument: textDocumentItem{URI: phase, Version: 1, Text: phaseMD}})
	cl.diagnostics(skill) // the skill's files are published again
	cl.request("textDocument/definition", textDocumentPositionParams{TextDocument: textDocumentIdentifier{URI: phase}, Position: position{7, 18}}, &loc)
	if loc.URI != uriOf(filepath.Join(dir, "phases", "state-schema.md")) || loc.Range.Start.Line != 5 {
		t.Errorf("definition of state.count: %+v", loc)
	}

	var h hover
	cl.request("textDocument/hover", textDocumentPositionParams{TextDocument: textDocumentIdentifier{URI: phase}, Position: position{7, 3}}, &h)
	if !strings.Contains(h.Contents.Value, "**Step 1: Count** runs natively") {
		t.Errorf("hover on step 1: %q", h.Contents.Value)
	}
	cl.request("textDocument/hover", textDocumentPositionParams{TextDocument: textDocumentIdentifier{URI: phase}, Position: position{12, 3}}, &h)
	if !strings.Contains(h.Contents.Value, "goes to the agent") || !strings.Contains(h.Contents.Value, "prose") {
		t.Errorf("hover on step 2: %q", h.Contents.Value)
	}

	fixed := strings.Replace(skillMD, "author: me\n", "metadata:\n  author: me\n", 1)
	cl.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": skill, "version": 2}, "contentChanges": []map[string]any{{"text": fixed}}})
	ds = cl.diagnostics(skill)
	if find(ds, "frontmatter-unknown-key") != nil || find(ds, "link-broken") == nil {
		t.Errorf("after the change: %+v", ds)
	}

	var null any
	cl.request("shutdown", nil, &null)
	cl.notify("exit", nil)
	select {
	case err := <-cl.done:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the server did not exit")
	}
}

// TestNotInitialized checks that requests before initialize are refused.
func TestNotInitialized(t *testing.T) {
	cl := startServer(t)
	cl.next++
	if err := cl.c.write(&message{JSONRPC: "2.0", ID: json.RawMessage("1"), Method: "textDocument/hover", Params: json.RawMessage("{}")}); err != nil {
		t.Fatal(err)
	}
	if m := cl.read(); m.Error == nil || m.Error.Code != codeNotInitialized {
		t.Errorf("reply %+v, want error %d", m, codeNotInitialized)
	}
}
