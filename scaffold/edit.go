package scaffold

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// edits collects changes to the files of one skill and writes them only
// when every change has been worked out, so that a failed add leaves the
// skill as it was.
type edits struct {
	dir   string
	files map[string]*fileEdit
	order []string
	// created are new files, which must not exist yet.
	created map[string]bool
}

// fileEdit is one file's lines and the changes to make to them.
type fileEdit struct {
	lines []string
	crlf  bool
	ops   []lineOp
}

// lineOp replaces del lines from line (1-based) with insert; line may be
// one past the end to append.
type lineOp struct {
	line   int
	del    int
	insert []string
}

func newEdits(dir string) *edits {
	return &edits{dir: dir, files: map[string]*fileEdit{}, created: map[string]bool{}}
}

// file loads rel (slash-separated, relative to the skill) once.
func (e *edits) file(rel string) (*fileEdit, error) {
	if f, ok := e.files[rel]; ok {
		return f, nil
	}
	data, err := os.ReadFile(filepath.Join(e.dir, filepath.FromSlash(rel)))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", rel, err)
	}
	s := string(data)
	f := &fileEdit{crlf: strings.Contains(s, "\r\n")}
	f.lines = strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	e.files[rel] = f
	e.order = append(e.order, rel)
	return f, nil
}

// create adds a new file; it is an error for it to exist already.
func (e *edits) create(rel, content string) error {
	p := filepath.Join(e.dir, filepath.FromSlash(rel))
	if _, err := os.Lstat(p); err == nil {
		return fmt.Errorf("creating %s: %w", rel, ErrExists)
	}
	e.files[rel] = &fileEdit{lines: strings.Split(content, "\n")}
	e.order = append(e.order, rel)
	e.created[rel] = true
	return nil
}

// change records an edit of rel.
func (e *edits) change(rel string, op lineOp) error {
	f, err := e.file(rel)
	if err != nil {
		return err
	}
	f.ops = append(f.ops, op)
	return nil
}

// write applies the edits and writes every file, each through a temporary
// file and a rename so that no file is ever half written. It returns the
// paths written.
func (e *edits) write() ([]string, error) {
	var out []string
	for _, rel := range e.order {
		f := e.files[rel]
		lines := f.lines
		// Bottom-up, so that earlier line numbers stay valid.
		ops := slices.Clone(f.ops)
		slices.SortStableFunc(ops, func(a, b lineOp) int { return b.line - a.line })
		for _, op := range ops {
			at := min(max(op.line-1, 0), len(lines))
			end := min(at+op.del, len(lines))
			lines = slices.Concat(lines[:at], op.insert, lines[end:])
		}
		s := strings.Join(lines, "\n")
		if f.crlf {
			s = strings.ReplaceAll(s, "\n", "\r\n")
		}
		p := filepath.Join(e.dir, filepath.FromSlash(rel))
		if err := writeAtomic(p, s, e.created[rel]); err != nil {
			return out, fmt.Errorf("writing %s: %w", rel, err)
		}
		out = append(out, p)
	}
	return out, nil
}

func writeAtomic(p, content string, fresh bool) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	mode := os.FileMode(0o644)
	if !fresh {
		if info, err := os.Stat(p); err == nil {
			mode = info.Mode().Perm()
		}
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".skillkit-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(content); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if fresh {
		// Link, not rename: a file that appeared meanwhile is not replaced.
		return os.Link(tmp.Name(), p)
	}
	return os.Rename(tmp.Name(), p)
}
