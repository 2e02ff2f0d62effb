// Package parse reads a skill folder into a plan.Skill.
//
// The parser is tolerant: odd markdown, unknown sections and unparseable
// numbers become diagnostics with positions, never a failure. Dir fails only
// when the folder itself cannot be read; a file inside it that cannot be
// read (permissions, a symlink loop, binary junk) is a diagnostic too, so
// that lint can report it beside everything else.
package parse

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/skillkit/skillkit/internal/skillfs"
	"github.com/skillkit/skillkit/plan"
)

// MaxFileSize is the largest markdown file the parser reads; a larger one
// is reported and skipped, so a stray dump cannot exhaust memory.
const MaxFileSize = 16 << 20

// Options tune a parse.
type Options struct {
	// NoHash leaves Skill.Hash empty and does not read the files that are
	// not markdown: a linter has no use for the content hash that a run
	// checks on resume, and reading every data file costs time.
	NoHash bool
	// FS, when set, is read instead of the folder dir on disk (dir still
	// names the skill): an editor's unsaved buffers, or fixes not yet
	// written, laid over the folder.
	FS fs.FS
	// MCPServers are the configured MCP servers (internal/mcp reads
	// them): a step calling a tool of another server goes to the agent.
	MCPServers []string
	// Blocks, when set, keeps block parses from this parse of the skill
	// for the next (plan.Skill.Blocks): an editor's parse after a change.
	Blocks *plan.Blocks
	// Docs, when set, keeps each markdown file's parse for the next parse
	// of the skill, which parses again only the files that changed: an
	// editor's parse after a change.
	Docs *Docs
}

// Dir parses the skill folder dir.
func Dir(dir string) (*plan.Skill, error) { return DirWith(dir, Options{}) }

// DirWith parses the skill folder dir with options.
func DirWith(dir string, opts Options) (*plan.Skill, error) {
	info, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("reading skill: %w", err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("reading skill: %s is not a folder", dir)
	}
	s := &plan.Skill{Dir: dir, Name: filepath.Base(filepath.Clean(dir)), Files: []string{}, MCPServers: opts.MCPServers, Blocks: opts.Blocks}
	if abs, err := filepath.Abs(dir); err == nil {
		s.Name = filepath.Base(abs)
	}
	fsys := opts.FS
	if fsys == nil {
		// The skill's files are read through its root: no link leads out,
		// no special file blocks or streams, no file is read past the cap.
		root, err := skillfs.Open(dir)
		if err != nil {
			return nil, fmt.Errorf("reading skill: %w", err)
		}
		defer root.Close()
		fsys = root
	}
	r := &reader{skill: s, fsys: fsys, noHash: opts.NoHash, kept: opts.Docs}
	if err := r.walk(); err != nil {
		return nil, fmt.Errorf("reading skill %s: %w", dir, err)
	}
	opts.Docs.sweep()
	r.classify()
	s.Configure(r.settings())
	s.Classify()
	return s, nil
}

// settings reads worker.yaml and skillkit.yaml beside the entry, for
// plan.Skill.Configure: the parser is the one reader of a skill's files.
func (r *reader) settings() plan.Settings {
	var st plan.Settings
	st.Worker, st.WorkerErr = r.readSetting(plan.WorkerFile)
	st.Config, st.ConfigErr = r.readSetting(plan.ConfigFile)
	return st
}

// readSetting reads a configuration file; nil and no error when it is not
// there.
func (r *reader) readSetting(name string) ([]byte, error) {
	info, err := fs.Stat(r.fsys, name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, err
	case info.Size() > MaxFileSize:
		return nil, fmt.Errorf("file is %d bytes, over the %d-byte limit", info.Size(), MaxFileSize)
	}
	return fs.ReadFile(r.fsys, name)
}

type reader struct {
	skill *plan.Skill
	fsys  fs.FS
	// docs maps a markdown file to its parse, for the role readers.
	docs   map[string]*md
	noHash bool
	// kept are the documents of the last parse, nil when none are kept.
	kept *Docs
}

// skipDir reports folders that are never part of a skill.
func skipDir(name string) bool {
	return name == ".git" || name == "node_modules" || name == ".skillkit"
}

func (r *reader) walk() error {
	r.docs = map[string]*md{}
	h := sha256.New()
	err := fs.WalkDir(r.fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == "." {
				return err
			}
			r.diag(plan.Pos{File: p}, plan.SevError, "file-unreadable", "cannot read: "+unwrapPath(err))
			return nil
		}
		if d.IsDir() {
			if p != "." && skipDir(d.Name()) {
				return fs.SkipDir
			}
			return nil
		}
		r.skill.Files = append(r.skill.Files, p)
		// A link is part of the skill by name; a link to a folder is not
		// followed, so a link loop cannot trap the walk. What a link (or a
		// special file) leads to is looked up here, a regular file's not:
		// the read finds its size, and a second look-up through the root
		// was a fifth of the syscalls of a lint.
		var target fs.FileInfo
		if !d.Type().IsRegular() {
			if target, err = fs.Stat(r.fsys, p); err != nil {
				r.diag(plan.Pos{File: p}, plan.SevError, "file-unreadable", "cannot read: "+unwrapPath(err))
				return nil
			}
		}
		isMarkdown := strings.EqualFold(path.Ext(p), ".md")
		if r.noHash && !isMarkdown {
			return nil
		}
		data, err := r.read(p, target, isMarkdown)
		if err != nil {
			r.diag(plan.Pos{File: p}, plan.SevError, "file-unreadable", err.Error())
			return nil
		}
		// The skill's tests (skillkit test) are not what it runs: a run
		// that records one into tests/ has not changed its skill.
		if !r.noHash && !strings.HasPrefix(p, "tests/") {
			fmt.Fprintf(h, "%s\x00%d\x00", p, len(data))
			h.Write(data)
		}
		if isMarkdown {
			r.readDoc(p, data)
		}
		return nil
	})
	if !r.noHash {
		r.skill.Hash = "sha256:" + hex.EncodeToString(h.Sum(nil))
	}
	return err
}

// read reads the file p; target is what it leads to when it is not a
// regular file (nil for one).
func (r *reader) read(p string, target fs.FileInfo, isMarkdown bool) ([]byte, error) {
	if target != nil {
		if target.IsDir() {
			return nil, nil
		}
		if target.Size() > MaxFileSize && isMarkdown {
			return nil, tooLarge(target.Size())
		}
	}
	data, err := fs.ReadFile(r.fsys, p)
	if err != nil {
		// A markdown file over the read cap is over this limit too: say
		// this one, as for a file between the two.
		if isMarkdown {
			if info, serr := fs.Stat(r.fsys, p); serr == nil && info.Size() > MaxFileSize {
				return nil, tooLarge(info.Size())
			}
		}
		return nil, errors.New("cannot read: " + unwrapPath(err))
	}
	if int64(len(data)) > MaxFileSize && isMarkdown {
		return nil, tooLarge(int64(len(data)))
	}
	return data, nil
}

// tooLarge is the error of a markdown file over MaxFileSize.
func tooLarge(size int64) error {
	return fmt.Errorf("file is %d bytes, over the %d-byte limit; skipped", size, MaxFileSize)
}

// unwrapPath drops the "open x:" prefix of a path error: the position
// already names the file.
func unwrapPath(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

func (r *reader) diag(p plan.Pos, sev plan.Severity, code, msg string) {
	r.skill.Diagnostics = append(r.skill.Diagnostics, plan.Diagnostic{Pos: p, Severity: sev, Code: code, Message: msg})
}

// readDoc parses one markdown file, or takes its parse from the kept
// documents when its bytes are unchanged.
func (r *reader) readDoc(p string, data []byte) {
	if k := r.kept.get(p, data); k != nil {
		r.skill.Diagnostics = append(r.skill.Diagnostics, k.diags...)
		if k.doc != nil {
			r.docs[p] = k.doc
		}
		return
	}
	before := len(r.skill.Diagnostics)
	m := r.parseDoc(p, data)
	if m != nil {
		r.docs[p] = m
		if last := r.kept.last(p); last != nil {
			plan.InheritParses(m.doc.Code, last.doc.Code)
		}
	}
	r.kept.put(p, data, m, slices.Clone(r.skill.Diagnostics[before:]))
}

// parseDoc parses one markdown file, keeping its front matter when it is
// the entry document; nil when the file is skipped.
func (r *reader) parseDoc(p string, data []byte) *md {
	if bytes.IndexByte(data, 0) >= 0 {
		r.diag(plan.Pos{File: p}, plan.SevError, "file-binary", "file holds NUL bytes: not a markdown text file; skipped")
		return nil
	}
	data = NormalizeNewlines(data)
	if !utf8.Valid(data) {
		line := 1 + bytes.Count(data[:firstInvalidUTF8(data)], []byte("\n"))
		r.diag(plan.Pos{File: p, Line: line, Col: 1}, plan.SevWarning, "file-encoding", "file is not valid UTF-8")
	}
	starts := lineStarts(data)
	if line, depth := deepestNesting(data, starts); depth > MaxNesting {
		r.diag(plan.Pos{File: p, Line: line, Col: 1}, plan.SevError, "file-too-deep",
			fmt.Sprintf("blocks nest %d deep here (lists, quotes, indentation), over the limit of %d; file skipped", depth, MaxNesting))
		return nil
	}
	fm, body := splitFrontMatter(p, data)
	var m *md
	if fm == nil || !fm.Closed {
		m = readMarkdownLines(p, body, starts) // the body is data itself
	} else {
		m = readMarkdown(p, body)
	}
	if p == "SKILL.md" || p == "orchestrator.md" {
		m.fm = fm
	}
	return m
}

// MaxNesting is how deeply a markdown file may nest blocks. Markdown
// parsers (goldmark among them) slow down more than linearly with nesting:
// a 2,000-level list takes seconds, a few kilobytes of "- - - …" or
// "> > > …" could hold a run for minutes. No real skill nests past a
// dozen levels.
const MaxNesting = 250

// deepestNesting estimates the deepest block nesting of src from each
// line's prefix: every quote marker, every list marker followed by a
// space, and every two columns of indentation open a level. It returns the
// first line with the deepest nesting and that depth.
func deepestNesting(src []byte, starts []int) (line, depth int) {
	for i, start := range starts {
		end := len(src)
		if i+1 < len(starts) {
			end = starts[i+1] - 1
		} else if src[end-1] == '\n' {
			end--
		}
		if d := lineNesting(src[start:end]); d > depth {
			line, depth = i+1, d
		}
	}
	return line, depth
}

func lineNesting(l []byte) int {
	depth, cols := 0, 0
	for i := 0; i < len(l); i++ {
		switch c := l[i]; {
		case c == ' ':
			cols++
		case c == '\t':
			cols += 4
		case c == '>':
			// A marker's own space is not indentation.
			depth++
			if i+1 < len(l) && l[i+1] == ' ' {
				i++
			}
		case (c == '-' || c == '*' || c == '+') && i+1 < len(l) && (l[i+1] == ' ' || l[i+1] == '\t'):
			depth++
			i++
		case c >= '0' && c <= '9':
			j := i
			for j < len(l) && l[j] >= '0' && l[j] <= '9' {
				j++
			}
			if j+1 < len(l) && (l[j] == '.' || l[j] == ')') && (l[j+1] == ' ' || l[j+1] == '\t') {
				depth++
				i = j + 1
				continue
			}
			return depth + cols/2
		default:
			return depth + cols/2
		}
	}
	return depth + cols/2
}

func firstInvalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(b)
}

// classify gives each markdown file its role and infers the mode.
func (r *reader) classify() {
	s := r.skill
	entry := ""
	switch {
	case r.docs["SKILL.md"] != nil:
		entry = "SKILL.md"
	case r.docs["orchestrator.md"] != nil:
		entry = "orchestrator.md"
	}
	used := map[string]bool{}
	if entry != "" {
		m := r.docs[entry]
		s.Entry, s.Body, s.FrontMatter = entry, m.doc, m.fm
		s.Instructions, s.InstructionsLine = m.body()
		if fm := s.FrontMatter; fm != nil && fm.Error != nil {
			s.Diagnostics = append(s.Diagnostics, *fm.Error)
		}
		if n := s.FrontMatter.Get("name").String(); n != "" {
			s.Name = n
		}
		used[entry] = true
	}
	var orchPhase *plan.Phase
	for _, p := range sortedKeys(r.docs) {
		m := r.docs[p]
		dir, base := path.Split(p)
		name := strings.TrimSuffix(base, path.Ext(base))
		switch {
		case dir == "phases/" && name == "orchestrator":
			s.Orchestrator = readOrchestrator(m)
		case dir == "phases/actions/" || dir == "actions/":
			s.Actions = append(s.Actions, readAction(m, name))
		case base == "state-schema.md" && (dir == "phases/" || dir == "specs/" || dir == "") && s.StateSchema == nil:
			s.StateSchema = readStateSchema(m)
		case dir == "phases/":
			n, slug, ok := phaseNumber(name)
			if !ok {
				s.Docs = append(s.Docs, m.doc)
				break
			}
			ph := readPhase(m, n, slug)
			if slug == "orchestrator" {
				ph.IsOrchestrator = true
				orchPhase = ph
				o := readOrchestrator(m)
				o.Phase = &ph.Number
				if s.Orchestrator == nil {
					s.Orchestrator = o
				}
			}
			s.Phases = append(s.Phases, ph)
		default:
			if !used[p] {
				s.Docs = append(s.Docs, m.doc)
			}
		}
	}
	for _, p := range sortedKeys(r.docs) {
		s.Diagnostics = append(s.Diagnostics, r.docs[p].diags...)
	}
	slices.SortStableFunc(s.Phases, func(a, b *plan.Phase) int {
		switch {
		case a.Number.Less(b.Number):
			return -1
		case b.Number.Less(a.Number):
			return 1
		}
		return strings.Compare(a.Doc.File, b.Doc.File)
	})
	slices.SortFunc(s.Actions, func(a, b *plan.Action) int { return strings.Compare(a.ID, b.ID) })
	r.readCatalog()
	s.Mode = inferMode(s, orchPhase)
}

func (r *reader) readCatalog() {
	s := r.skill
	if m := r.docs["specs/action-catalog.md"]; m != nil {
		s.Catalog = readCatalog(m, 1, m.numLines())
	}
	if s.Catalog == nil && s.Orchestrator != nil {
		m := r.docs[s.Orchestrator.Doc.File]
		if sec := m.section(plan.SecActionCatalog); sec != nil {
			s.Catalog = readCatalog(m, sec.Pos.Line, sec.EndLine)
		}
	}
}

func inferMode(s *plan.Skill, orchPhase *plan.Phase) plan.Mode {
	numbered := len(s.Phases)
	if orchPhase != nil {
		numbered--
	}
	loop := s.Orchestrator != nil || len(s.Actions) > 0
	switch {
	case numbered > 0 && loop:
		return plan.ModeHybrid
	case numbered > 0:
		return plan.ModeSequential
	case loop:
		return plan.ModeAutonomous
	case s.Entry != "":
		return plan.ModeAgent
	}
	return plan.ModeUnknown
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// readStateSchema reads state-schema.md: a typescript block (or a json
// block that is a JSON Schema) and the Initial State json block.
func readStateSchema(m *md) *plan.StateSchema {
	ss := &plan.StateSchema{File: m.doc.File, Doc: m.doc}
	init := m.section(plan.SecInitialState)
	inInit := func(c *plan.CodeBlock) bool {
		return init != nil && c.Pos.Line > init.Pos.Line && c.Pos.Line <= init.EndLine
	}
	for _, c := range m.doc.Code {
		switch {
		case (c.Lang == "typescript" || c.Lang == "ts") && ss.Source != "typescript":
			schema, root, notes, ok := convertTS(c)
			m.diags = append(m.diags, notes...)
			if ok {
				ss.Source, ss.Code, ss.Schema, ss.Root = "typescript", c, schema, root
			}
		case c.Lang == "json" && inInit(c) && ss.Initial == nil:
			ss.InitialPos = c.Pos
			if err := json.Unmarshal([]byte(c.Text), &ss.Initial); err != nil {
				m.diag(c.Body, plan.SevError, "state-initial-json", "Initial State block is not valid JSON: "+err.Error())
				ss.Initial = nil
			}
		case c.Lang == "json" && !inInit(c) && ss.Source == "":
			var v map[string]any
			if json.Unmarshal([]byte(c.Text), &v) == nil && (v["$schema"] != nil || v["properties"] != nil) {
				ss.Source, ss.Code, ss.Schema = "json", c, v
			}
		}
	}
	return ss
}
