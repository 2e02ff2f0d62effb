package lsp

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/skillkit/skillkit/internal/corpus"
	"github.com/skillkit/skillkit/internal/testfs"
)

// publishes sends a request the server answers with nothing (a hover
// outside any skill) and returns the diagnostics it published before
// the answer, the last of each URI: the server handles one message at a
// time, so they are all that the messages sent before caused.
func (cl *client) publishes() map[string][]diagnostic {
	cl.t.Helper()
	cl.next++
	id := json.RawMessage(fmt.Sprint(cl.next))
	raw, _ := json.Marshal(textDocumentPositionParams{TextDocument: textDocumentIdentifier{URI: "file:///nowhere.md"}})
	if err := cl.c.write(&message{JSONRPC: "2.0", ID: id, Method: "textDocument/hover", Params: raw}); err != nil {
		cl.t.Fatal(err)
	}
	got := map[string][]diagnostic{}
	for {
		m := cl.read()
		if m.Method == "" && string(m.ID) == string(id) {
			return got
		}
		if m.Method == "textDocument/publishDiagnostics" {
			var p publishDiagnosticsParams
			if err := json.Unmarshal(m.Params, &p); err != nil {
				cl.t.Fatal(err)
			}
			got[p.URI] = p.Diagnostics
		}
	}
}

func (cl *client) initialize(capabilities map[string]any) {
	cl.t.Helper()
	var init any
	cl.request("initialize", map[string]any{"processId": nil, "capabilities": capabilities}, &init)
	cl.notify("initialized", map[string]any{})
}

func (cl *client) open(path string) {
	cl.t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		cl.t.Fatal(err)
	}
	cl.notify("textDocument/didOpen", didOpenParams{TextDocument: textDocumentItem{URI: uriOf(path), Version: 1, Text: string(data)}})
}

func (cl *client) close(path string) {
	cl.t.Helper()
	cl.notify("textDocument/didClose", map[string]any{"textDocument": textDocumentIdentifier{URI: uriOf(path)}})
}

// brokenSkill writes a skill whose SKILL.md and phase both have
// findings, and returns its folder.
func brokenSkill(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), ".claude", "skills", "demo")
	testfs.WriteTree(t, dir, map[string]string{
		"SKILL.md":               skillMD,
		"phases/01-count.md":     strings.Replace(phaseMD, "const n = state.count + 1;", "const = ;", 1),
		"phases/state-schema.md": schema,
	})
	return dir
}

// cleared checks that every file of files had diagnostics in before and
// has an empty list in after.
func cleared(t *testing.T, what string, before, after map[string][]diagnostic, files ...string) {
	t.Helper()
	for _, f := range files {
		uri := uriOf(f)
		if len(before[uri]) == 0 {
			t.Fatalf("%s: %s had no diagnostics to clear: %v", what, f, before)
		}
		if d, ok := after[uri]; !ok || d == nil || len(d) != 0 {
			t.Errorf("%s: %s was published %v (sent: %t), want an empty list", what, f, d, ok)
		}
	}
}

// TestClosingASkillClearsItsDiagnostics: while a file of a skill is
// open, its other files carry the diagnostics of its lint, those on disk
// as the closed ones; once the editor closes the skill's last open
// file, each file that had diagnostics gets an empty list and the server
// keeps nothing of the skill. It kept the skill's last lint, and its
// diagnostics stayed in the editor's problems, stale, for good.
func TestClosingASkillClearsItsDiagnostics(t *testing.T) {
	dir := brokenSkill(t)
	skill, phase := filepath.Join(dir, "SKILL.md"), filepath.Join(dir, "phases", "01-count.md")
	cl := startServer(t)
	cl.initialize(map[string]any{})
	cl.open(skill)
	cl.open(phase)
	before := cl.publishes()
	cl.close(phase)
	// The phase is closed but on disk, in a skill still open: it keeps
	// its diagnostics, read from disk.
	if got := cl.publishes(); len(got[uriOf(phase)]) == 0 || len(got[uriOf(skill)]) == 0 {
		t.Fatalf("with SKILL.md open, the closed phase's diagnostics were cleared: %v", got)
	}
	cl.close(skill)
	cleared(t, "the skill's last file closed", before, cl.publishes(), skill, phase)
	if n := len(cl.srv.skills); n != 0 {
		t.Errorf("the server keeps %d skills with none open", n)
	}
	// Opened again, the skill is linted afresh.
	cl.open(phase)
	if got := cl.publishes(); len(got[uriOf(phase)]) == 0 || len(got[uriOf(skill)]) == 0 {
		t.Errorf("opened again: %v", got)
	}
}

// TestDeletedSkillClearsItsDiagnostics: the editor reports (LSP's
// workspace/didChangeWatchedFiles) that a skill's folder was deleted
// while a file of it is open (editors keep the buffer): the skill's
// diagnostics are cleared and the server keeps nothing of it. A file
// deleted from a skill that stays loses its diagnostics, and the skill
// is linted again. The server asks the client to watch the files when
// the client can register the watch.
func TestDeletedSkillClearsItsDiagnostics(t *testing.T) {
	dir := brokenSkill(t)
	skill, phase := filepath.Join(dir, "SKILL.md"), filepath.Join(dir, "phases", "01-count.md")
	cl := startServer(t)
	var init any
	cl.request("initialize", map[string]any{"processId": nil, "capabilities": map[string]any{
		"workspace": map[string]any{"didChangeWatchedFiles": map[string]any{"dynamicRegistration": true}}}}, &init)
	cl.notify("initialized", map[string]any{})
	reg := cl.read()
	if reg.Method != "client/registerCapability" || len(reg.ID) == 0 ||
		!strings.Contains(string(reg.Params), `"method":"workspace/didChangeWatchedFiles"`) || !strings.Contains(string(reg.Params), `"globPattern":"**/*"`) {
		t.Fatalf("after initialized: %s %s, want a request to watch the files", reg.Method, reg.Params)
	}
	if err := cl.c.reply(reg.ID, nil, nil); err != nil {
		t.Fatal(err)
	}
	cl.open(skill)
	before := cl.publishes()

	// A phase deleted: the skill stays, the phase's diagnostics go.
	if err := os.Remove(phase); err != nil {
		t.Fatal(err)
	}
	cl.notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []map[string]any{{"uri": uriOf(phase), "type": 3}}})
	after := cl.publishes()
	cleared(t, "the phase deleted", before, after, phase)
	if len(after[uriOf(skill)]) == 0 || len(cl.srv.skills) != 1 {
		t.Fatalf("the phase deleted, the skill's own diagnostics are %v; %d skills kept", after[uriOf(skill)], len(cl.srv.skills))
	}
	if err := os.WriteFile(phase, []byte(strings.Replace(phaseMD, "const n = state.count + 1;", "const = ;", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	cl.notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []map[string]any{{"uri": uriOf(phase), "type": 1}}})
	if before = cl.publishes(); len(before[uriOf(phase)]) == 0 {
		t.Fatalf("the phase written back has no diagnostics: %v", before)
	}

	// The whole folder deleted, SKILL.md still open in the editor.
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	cl.notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []map[string]any{{"uri": uriOf(dir), "type": 3}}})
	before[uriOf(skill)] = after[uriOf(skill)]
	cleared(t, "the folder deleted", before, cl.publishes(), skill, phase)
	if n := len(cl.srv.skills); n != 0 {
		t.Errorf("the server keeps %d skills, all deleted", n)
	}
	// The editor closes the deleted file: nothing to say, nothing kept.
	cl.close(skill)
	if got := cl.publishes(); len(got) != 0 || len(cl.srv.docs) != 0 {
		t.Errorf("closing the deleted file published %v; %d documents kept", got, len(cl.srv.docs))
	}
}

// TestOpeningAndClosingManySkillsKeepsNothing opens the SKILL.md of each
// corpus skill and closes it, as a session that browses skills does:
// every diagnostic published is cleared in the end, the server keeps no
// skill and no document, and its heap does not grow with the skills it
// saw (it kept every skill's last lint: plan, findings and file list).
func TestOpeningAndClosingManySkillsKeepsNothing(t *testing.T) {
	skills := corpus.Skills(t)
	cl := startServer(t)
	cl.initialize(map[string]any{})
	shown := map[string][]diagnostic{}
	browse := func(from, to int) {
		for _, e := range skills[from:to] {
			md := filepath.Join(e.Path(), "SKILL.md")
			if _, err := os.Stat(md); err != nil {
				continue
			}
			cl.open(md)
			cl.close(md)
			for uri, d := range cl.publishes() {
				shown[uri] = d
			}
		}
	}
	heap := func() uint64 {
		var m runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	// A few skills first, for what the first lint sets up once (rules,
	// compiled patterns).
	browse(0, 5)
	warm := heap()
	browse(5, len(skills))
	grown := int64(heap()) - int64(warm)
	had := 0
	for uri, d := range shown {
		if len(d) > 0 {
			t.Errorf("%s keeps %d diagnostics after its skill was closed", uri, len(d))
		}
		had++
	}
	if had == 0 {
		t.Fatal("no diagnostics were published: the test shows nothing")
	}
	if len(cl.srv.skills) != 0 || len(cl.srv.docs) != 0 {
		t.Errorf("the server keeps %d skills and %d documents, none open", len(cl.srv.skills), len(cl.srv.docs))
	}
	t.Logf("%d skills opened and closed; the heap grew by %d KiB after the first 5", len(skills), grown>>10)
	if grown > 2<<20 {
		t.Errorf("the heap grew by %d KiB over %d skills opened and closed", grown>>10, len(skills)-5)
	}
}
