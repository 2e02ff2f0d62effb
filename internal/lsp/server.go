// Package lsp is skillkit's language server: lint findings as diagnostics
// while a skill is edited, its safe fixes as code actions, go to
// definition for action ids, links and state fields, and a step's class
// on hover. It speaks JSON-RPC 2.0 over one stream pair (stdio), with the
// Content-Length framing of the LSP base protocol.
package lsp

import (
	"encoding/json"
	"errors"
	"io"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/skillkit/skillkit/lint"
	"github.com/skillkit/skillkit/parse"
	"github.com/skillkit/skillkit/plan"
)

// Options tune a server.
type Options struct {
	// Profile is the lint profile; empty is auto (from the host folder).
	Profile string
	// Version is written as the server's version.
	Version string
}

// server is the state of one session: the open documents and, per skill,
// its last lint.
type server struct {
	conn *conn
	opts Options
	// docs are the open documents by absolute path.
	docs map[string]*document
	// skills is the last lint of each skill with an open document, by
	// skill folder: a skill is forgotten when its last document closes
	// or its folder is deleted.
	skills      map[string]*skillState
	initialized bool
	// watch is set when the client can watch files for the server
	// (workspace/didChangeWatchedFiles by dynamic registration).
	watch bool
	// shutdown is set by the shutdown request: exit is clean after it.
	shutdown bool
}

type document struct {
	uri     string
	version int
	text    string
}

type skillState struct {
	skill    *plan.Skill
	findings []lint.Finding
	// published are the files (absolute) that have diagnostics on the
	// client, to clear when they have none.
	published map[string]bool
	// cache keeps the work of one lint of the skill for the next: a
	// change re-does only what it changed.
	cache *lint.Cache
}

// errExit ends Serve after the exit notification.
var errExit = errors.New("exit")

// Serve runs a language server reading requests from r and writing to w
// until the client sends exit or r ends.
func Serve(r io.Reader, w io.Writer, opts Options) error {
	return newServer(r, w, opts).serve()
}

// serve answers messages until the client sends exit or the input ends.
func (s *server) serve() error {
	for {
		m, err := s.conn.read()
		if err == io.EOF {
			return nil
		}
		var rerr *rpcError
		if errors.As(err, &rerr) {
			if werr := s.conn.reply(json.RawMessage("null"), nil, rerr); werr != nil {
				return werr
			}
			continue
		}
		if err != nil {
			return err
		}
		if err := s.handle(m); err != nil {
			if err == errExit {
				return nil
			}
			return err
		}
	}
}

// newServer sets up a session on r and w. It tunes the collector as
// skillkit lint does (lint.TuneCollector): each change allocates a lint's
// trees and keeps little of them.
func newServer(r io.Reader, w io.Writer, opts Options) *server {
	lint.TuneCollector()
	return &server{conn: newConn(r, w), opts: opts, docs: map[string]*document{}, skills: map[string]*skillState{}}
}

// handle answers one message; only a failure to write is an error.
func (s *server) handle(m *message) error {
	isRequest := len(m.ID) > 0
	if m.Method == "" {
		return nil // a response to nothing we asked
	}
	result, rerr := s.dispatch(m)
	if rerr == errExitRPC {
		if !s.shutdown {
			// LSP: exit without shutdown ends the server with code 1.
			return errors.New("exit before shutdown")
		}
		return errExit
	}
	if !isRequest {
		return nil // notifications have no answer, errors included
	}
	return s.conn.reply(m.ID, result, rerr)
}

// errExitRPC is dispatch's signal that the client sent exit.
var errExitRPC = &rpcError{Code: 0, Message: "exit"}

func (s *server) dispatch(m *message) (any, *rpcError) {
	switch m.Method {
	case "initialize":
		var p initializeParams
		if err := decode(m.Params, &p); err != nil {
			return nil, err
		}
		s.initialized = true
		s.watch = p.Capabilities.Workspace.DidChangeWatchedFiles.DynamicRegistration
		return s.capabilities(), nil
	case "exit":
		return nil, errExitRPC
	}
	if !s.initialized {
		return nil, &rpcError{Code: codeNotInitialized, Message: "initialize first"}
	}
	switch m.Method {
	case "initialized":
		return nil, s.watchFiles()
	case "$/cancelRequest", "$/setTrace", "workspace/didChangeConfiguration":
		return nil, nil
	case "workspace/didChangeWatchedFiles":
		var p didChangeWatchedFilesParams
		if err := decode(m.Params, &p); err != nil {
			return nil, err
		}
		return nil, s.filesChanged(p.Changes)
	case "shutdown":
		s.shutdown = true
		return nil, nil
	case "textDocument/didOpen":
		var p didOpenParams
		if err := decode(m.Params, &p); err != nil {
			return nil, err
		}
		return nil, s.open(p.TextDocument.URI, p.TextDocument.Version, p.TextDocument.Text)
	case "textDocument/didChange":
		var p didChangeParams
		if err := decode(m.Params, &p); err != nil {
			return nil, err
		}
		if n := len(p.ContentChanges); n > 0 && p.ContentChanges[n-1].Range == nil {
			return nil, s.open(p.TextDocument.URI, 0, p.ContentChanges[n-1].Text)
		}
		return nil, nil
	case "textDocument/didSave":
		var p didSaveParams
		if err := decode(m.Params, &p); err != nil {
			return nil, err
		}
		if d := s.docs[pathOf(p.TextDocument.URI)]; d != nil {
			text := d.text
			if p.Text != nil {
				text = *p.Text
			}
			return nil, s.open(p.TextDocument.URI, d.version, text)
		}
		return nil, nil
	case "textDocument/didClose":
		var p struct {
			TextDocument textDocumentIdentifier `json:"textDocument"`
		}
		if err := decode(m.Params, &p); err != nil {
			return nil, err
		}
		return nil, s.close(p.TextDocument.URI)
	case "textDocument/codeAction":
		var p codeActionParams
		if err := decode(m.Params, &p); err != nil {
			return nil, err
		}
		return s.codeActions(p), nil
	case "textDocument/definition":
		var p textDocumentPositionParams
		if err := decode(m.Params, &p); err != nil {
			return nil, err
		}
		return s.definition(p), nil
	case "textDocument/hover":
		var p textDocumentPositionParams
		if err := decode(m.Params, &p); err != nil {
			return nil, err
		}
		return s.hover(p), nil
	}
	return nil, &rpcError{Code: codeMethodNotFound, Message: "method not supported: " + m.Method}
}

func decode(raw json.RawMessage, v any) *rpcError {
	if err := json.Unmarshal(raw, v); err != nil {
		return &rpcError{Code: codeInvalidParams, Message: err.Error()}
	}
	return nil
}

func (s *server) capabilities() any {
	return map[string]any{
		"capabilities": map[string]any{
			// Full text on every change: skill files are small, and lint
			// reads whole files anyway.
			"textDocumentSync":   map[string]any{"openClose": true, "change": 1, "save": map[string]any{"includeText": true}},
			"codeActionProvider": map[string]any{"codeActionKinds": []string{"quickfix"}},
			"definitionProvider": true,
			"hoverProvider":      true,
		},
		"serverInfo": map[string]any{"name": "skillkit", "version": s.opts.Version},
	}
}

// maxURI bounds a document's URI: a path longer than any file system
// allows is garbage, and walking its components costs in proportion.
const maxURI = 8 << 10

// pathOf turns a file URI into a path, "" for another scheme or an URI
// over maxURI bytes.
func pathOf(uri string) string {
	if len(uri) > maxURI {
		return ""
	}
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return ""
	}
	return filepath.FromSlash(u.Path)
}

// uriOf turns a path into a file URI.
func uriOf(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

// open records a document's text and lints its skill.
func (s *server) open(uri string, version int, text string) *rpcError {
	path := pathOf(uri)
	if path == "" {
		return nil
	}
	s.docs[path] = &document{uri: uri, version: version, text: text}
	return s.lintAndPublish(path)
}

// close forgets a document. While another document of its skill is
// open the skill is linted again, from disk for the closed file, which
// keeps the diagnostics it has on disk; the skill's last document takes
// the skill with it (forget).
func (s *server) close(uri string) *rpcError {
	path := pathOf(uri)
	if _, ok := s.docs[path]; !ok {
		return nil
	}
	delete(s.docs, path)
	// The skill the server holds, not lint.SkillOf's: the folder may be
	// gone already.
	dir, st, _ := s.stateOf(path)
	if st == nil {
		return nil
	}
	if !s.hasOpen(dir) {
		return s.forget(dir)
	}
	return s.lintSkill(dir)
}

// hasOpen reports whether a document of the skill in dir is open.
func (s *server) hasOpen(dir string) bool {
	for p := range s.docs {
		if _, ok := within(dir, p); ok {
			return true
		}
	}
	return false
}

// forget clears the diagnostics of the skill in dir and drops all the
// server kept of it. A session that kept the last lint of every skill it
// opened grew with each (18.7 MiB over 64 corpus skills opened and closed),
// and the editor showed diagnostics that nothing would update again.
func (s *server) forget(dir string) *rpcError {
	st := s.skills[dir]
	delete(s.skills, dir)
	cleared := map[string][]diagnostic{}
	for abs := range st.published {
		cleared[abs] = []diagnostic{}
	}
	return s.publish(cleared)
}

// filesChanged follows the files that the client watches for the server:
// a skill the server holds whose folder is deleted (or is no skill any
// more) is forgotten, and one whose files were created, changed or
// deleted is linted again, since its closed files are read from disk. A
// change of an open document's file changes nothing: its text is the
// editor's.
func (s *server) filesChanged(changes []fileEvent) *rpcError {
	touched := map[string]bool{}
	for _, c := range changes {
		path := pathOf(c.URI)
		if path == "" || (c.Type == fileChanged && s.docs[path] != nil) {
			continue
		}
		for dir := range s.skills {
			_, inside := within(dir, path)
			_, above := within(path, dir)
			if inside || above || path == dir {
				touched[dir] = true
			}
		}
	}
	for _, dir := range slices.Sorted(maps.Keys(touched)) {
		if now, err := lint.SkillOf(dir); err != nil || now != dir {
			if err := s.forget(dir); err != nil {
				return err
			}
			continue
		}
		if err := s.lintSkill(dir); err != nil {
			return err
		}
	}
	return nil
}

// watchFiles asks a client that can watch files to report every change
// under its workspace: the skill files, and the folders, whose deletion
// is the one event of a deleted skill.
func (s *server) watchFiles() *rpcError {
	if !s.watch {
		return nil
	}
	raw, err := json.Marshal(map[string]any{"registrations": []any{map[string]any{
		"id": "skillkit-files", "method": "workspace/didChangeWatchedFiles",
		"registerOptions": map[string]any{"watchers": []any{map[string]any{"globPattern": "**/*"}}},
	}}})
	if err == nil {
		// The client's answer is a response, which handle skips.
		err = s.conn.write(&message{JSONRPC: "2.0", ID: json.RawMessage(`"skillkit-watch"`), Method: "client/registerCapability", Params: raw})
	}
	if err != nil {
		return &rpcError{Code: codeInvalidRequest, Message: err.Error()}
	}
	return nil
}

// lintAndPublish lints the skill that holds path (lintSkill).
func (s *server) lintAndPublish(path string) *rpcError {
	dir, err := lint.SkillOf(filepath.Dir(path))
	if err != nil || dir == "" {
		return nil // not in a skill: nothing to say
	}
	return s.lintSkill(dir)
}

// lintSkill lints the skill in dir, with the open documents' texts, and
// publishes diagnostics for each of its files that has findings or had
// some.
func (s *server) lintSkill(dir string) *rpcError {
	files := map[string][]byte{}
	for p, d := range s.docs {
		if rel, ok := within(dir, p); ok {
			files[rel] = []byte(d.text)
		}
	}
	st := s.skills[dir]
	if st == nil {
		st = &skillState{published: map[string]bool{}, cache: lint.NewCache()}
		s.skills[dir] = st
	}
	skill, findings, err := lint.LintSkill(dir, files, s.opts.Profile, st.cache)
	if err != nil {
		return &rpcError{Code: codeInvalidRequest, Message: err.Error()}
	}
	st.skill, st.findings = skill, findings
	byFile := map[string][]diagnostic{}
	lines := s.lineSource()
	for _, f := range findings {
		if f.Line == 0 {
			continue // about the skill folder, not a file
		}
		abs := filepath.Join(dir, filepath.FromSlash(f.File))
		byFile[abs] = append(byFile[abs], toDiagnostic(f, lines(abs, f.Line)))
	}
	for abs := range st.published {
		if _, ok := byFile[abs]; !ok {
			byFile[abs] = []diagnostic{}
		}
	}
	st.published = map[string]bool{}
	for abs, diags := range byFile {
		if len(diags) > 0 {
			st.published[abs] = true
		}
	}
	return s.publish(byFile)
}

// publish sends the diagnostics of each file, in the order of their
// paths, under the URI of its open document if it has one.
func (s *server) publish(byFile map[string][]diagnostic) *rpcError {
	for _, abs := range slices.Sorted(maps.Keys(byFile)) {
		p := publishDiagnosticsParams{URI: uriOf(abs), Diagnostics: byFile[abs]}
		if d := s.docs[abs]; d != nil {
			p.URI = d.uri
		}
		if err := s.conn.notify("textDocument/publishDiagnostics", p); err != nil {
			return &rpcError{Code: codeInvalidRequest, Message: err.Error()}
		}
	}
	return nil
}

// within returns path relative to dir with forward slashes, and whether
// it is inside dir.
func within(dir, path string) (string, bool) {
	rel, err := filepath.Rel(dir, path)
	// Not a prefix test: a name may start with two dots ("..notes.md");
	// only a ".." part leads out.
	if err != nil || rel == "." || !filepath.IsLocal(rel) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// linesOf returns the lines of a file: its open document's, else the
// file's on disk. They are the lines lint numbered its findings by
// (parse.NormalizeNewlines): a lone \r ends a line, as it does for LSP,
// and a byte order mark, which editors keep out of the text, is dropped.
func (s *server) linesOf(path string) []string {
	return strings.Split(string(parse.NormalizeNewlines(s.textOf(path))), "\n")
}

// textOf returns a file's text: its open document's, else the file's on
// disk; nil when it cannot be read.
func (s *server) textOf(path string) []byte {
	if d := s.docs[path]; d != nil {
		return []byte(d.text)
	}
	data, _ := os.ReadFile(path)
	return data
}

// lineSource returns a function that reads line n (1-based) of a file
// through linesOf, each file once; "" past the end.
func (s *server) lineSource() func(path string, n int) string {
	cache := map[string][]string{}
	return func(path string, n int) string {
		lines, ok := cache[path]
		if !ok {
			lines = s.linesOf(path)
			cache[path] = lines
		}
		if n < 1 || n > len(lines) {
			return ""
		}
		return lines[n-1]
	}
}

// toDiagnostic turns a finding into a diagnostic on its line: from its
// column to its end column, or to the end of the line.
func toDiagnostic(f lint.Finding, line string) diagnostic {
	start := utf16Col(line, f.Col)
	end := utf16Col(line, f.EndCol)
	if f.EndCol <= f.Col {
		end = utf16Col(line, len([]rune(line))+1)
	}
	sev := severityInformation
	switch f.Severity {
	case plan.SevError:
		sev = severityError
	case plan.SevWarning:
		sev = severityWarning
	}
	d := diagnostic{
		Range:    lspRange{Start: position{f.Line - 1, start}, End: position{f.Line - 1, max(end, start)}},
		Severity: sev, Code: f.Rule, Source: "skillkit", Message: f.Message,
	}
	if r := lint.RuleByID(f.Rule); r != nil {
		d.CodeDescription = &codeDescripton{Href: r.DocsURL()}
	}
	return d
}

// utf16Col turns a 1-based code-point column of line into the 0-based
// UTF-16 offset LSP counts in; 0 (unknown) is the line's start.
func utf16Col(line string, col int) int {
	n, i := 0, 1
	for _, r := range line {
		if i >= col {
			break
		}
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
		i++
	}
	return n + max(0, col-i)
}
