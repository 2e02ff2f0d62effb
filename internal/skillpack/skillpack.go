// Package skillpack writes and checks .skill archives: a zip with the
// skill's folder at its top, the layout of Anthropic's skill-creator
// (package_skill), which Claude's apps install. skillkit's archives are
// reproducible (entries sorted, times fixed, so that the same skill gives
// the same bytes) and carry the skill's hash in the zip comment, the hash
// a run records, so that an archive can be traced to the skill it holds.
package skillpack

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/skillkit/skillkit/parse"
	"github.com/skillkit/skillkit/plan"
)

// Ext is the extension of a skill archive.
const Ext = ".skill"

// commentPrefix starts the zip comment; the skill's hash follows.
const commentPrefix = "skillkit skill-hash "

// modTime is every entry's time: zip's epoch, so that the bytes depend on
// the files alone.
var modTime = time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)

// Pack writes the archive of skill s (parsed with its hash) to w: the
// files of the skill, as the parser walked them, under a folder named
// after the skill. A symlink is packed as the file it points to, and
// refused when that file is outside the skill's folder.
func Pack(w io.Writer, s *plan.Skill) error {
	if s.Hash == "" {
		return errors.New("packing: the skill was parsed without its hash")
	}
	root, err := filepath.EvalSymlinks(s.Dir)
	if err != nil {
		return fmt.Errorf("packing: %w", err)
	}
	files := slices.Clone(s.Files)
	slices.Sort(files)
	zw := zip.NewWriter(w)
	for _, f := range files {
		if !fs.ValidPath(f) {
			return fmt.Errorf("packing %s: not a path inside the skill", f)
		}
		src := filepath.Join(s.Dir, filepath.FromSlash(f))
		real, err := filepath.EvalSymlinks(src)
		if err != nil {
			return fmt.Errorf("packing %s: %w", f, err)
		}
		if rel, err := filepath.Rel(root, real); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return fmt.Errorf("packing %s: it is a link to %s, outside the skill", f, real)
		}
		info, err := os.Stat(real)
		if err != nil {
			return fmt.Errorf("packing %s: %w", f, err)
		}
		data, err := os.ReadFile(real)
		if err != nil {
			return fmt.Errorf("packing %s: %w", f, err)
		}
		h := &zip.FileHeader{Name: s.Name + "/" + f, Method: zip.Deflate, Modified: modTime}
		// Scripts keep their execute bit; nothing else of the mode is
		// the skill's.
		mode := fs.FileMode(0o644)
		if info.Mode()&0o111 != 0 {
			mode = 0o755
		}
		h.SetMode(mode)
		ew, err := zw.CreateHeader(h)
		if err != nil {
			return err
		}
		if _, err := ew.Write(data); err != nil {
			return err
		}
	}
	if err := zw.SetComment(commentPrefix + s.Hash); err != nil {
		return err
	}
	return zw.Close()
}

// Info is what Check found in an archive.
type Info struct {
	// Name is the skill's folder, the archive's top.
	Name string
	// Hash is the skill's hash, as the comment says and the files agree.
	Hash  string
	Files int
}

// MaxSize bounds what Check reads of an archive, whole and unpacked: a
// skill is text and a few scripts, and a zip bomb must not exhaust memory.
const MaxSize = 64 << 20

// Check validates the archive in r, of size bytes: one folder at the top
// with SKILL.md in it, no entry that escapes it (absolute, "..", a
// backslash), no symlink, no entry twice (also by case, as macOS and
// Windows unpack), and files whose hash is the one the comment carries.
func Check(r io.ReaderAt, size int64) (*Info, error) {
	zr, err := zip.NewReader(r, size)
	// An insecure path is reported below, by name and why.
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		return nil, fmt.Errorf("not a zip archive: %w", err)
	}
	info := &Info{}
	seen := map[string]string{}
	var unpacked int64
	for _, f := range zr.File {
		name := f.Name
		switch {
		case strings.Contains(name, `\`):
			return nil, fmt.Errorf("%s: a backslash in the path: Windows would unpack it elsewhere", name)
		case strings.HasPrefix(name, "/") || !fs.ValidPath(strings.TrimSuffix(name, "/")):
			return nil, fmt.Errorf("%s: the path leaves the archive's folder", name)
		case f.Mode()&fs.ModeSymlink != 0:
			return nil, fmt.Errorf("%s: a symlink; an archive holds files", name)
		case !f.Mode().IsRegular() && !f.Mode().IsDir():
			return nil, fmt.Errorf("%s: not a file (%s)", name, f.Mode().Type())
		}
		top, _, _ := strings.Cut(name, "/")
		if info.Name == "" {
			info.Name = top
		}
		if top != info.Name || !strings.Contains(name, "/") {
			return nil, fmt.Errorf("%s: outside the skill's folder %s/ (the archive holds one skill)", name, info.Name)
		}
		key := strings.ToLower(strings.TrimSuffix(name, "/"))
		if prev, ok := seen[key]; ok {
			return nil, fmt.Errorf("%s: in the archive twice (as %s)", name, prev)
		}
		seen[key] = name
		if !f.Mode().IsDir() {
			info.Files++
			unpacked += int64(f.UncompressedSize64)
			if f.UncompressedSize64 > MaxSize || unpacked > MaxSize {
				return nil, fmt.Errorf("%s: the archive unpacks to more than %d MiB", name, MaxSize>>20)
			}
		}
	}
	if info.Name == "" {
		return nil, errors.New("the archive is empty")
	}
	if _, ok := seen[strings.ToLower(info.Name+"/SKILL.md")]; !ok {
		return nil, fmt.Errorf("no %s/SKILL.md in the archive", info.Name)
	}
	want, ok := strings.CutPrefix(zr.Comment, commentPrefix)
	if !ok {
		return nil, errors.New("the archive carries no skill hash (its zip comment); skillkit pack writes one")
	}
	sub, err := fs.Sub(limited{zr}, info.Name)
	if err != nil {
		return nil, err
	}
	// The parser hashes the skill as a run does; "." only names it, the
	// files are the archive's.
	s, err := parse.DirWith(".", parse.Options{FS: sub})
	if err != nil {
		return nil, err
	}
	if s.Hash != want {
		return nil, fmt.Errorf("the files' hash %s is not the one the archive carries, %s: changed after packing", s.Hash, want)
	}
	info.Hash = want
	return info, nil
}

// limited reads the archive's files with what their headers promise as
// a bound: a header that understates its size cannot make a read grow.
type limited struct{ *zip.Reader }

func (l limited) Open(name string) (fs.File, error) {
	f, err := l.Reader.Open(name)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil || st.IsDir() {
		return f, err
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxSize+1))
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &memFile{Reader: bytes.NewReader(data), info: st}, nil
}

type memFile struct {
	*bytes.Reader
	info fs.FileInfo
}

func (m *memFile) Stat() (fs.FileInfo, error) { return m.info, nil }
func (m *memFile) Close() error               { return nil }
