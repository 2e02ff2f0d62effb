package cassette

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/skillkit/skillkit/internal/runstore"
	"github.com/skillkit/skillkit/internal/skillfs"
)

// WorkFiles hashes the files a run's work dir holds apart from the run's
// record (runstore/fs.RecordFile), by slash-separated path: what steps
// and the agent left. A missing dir holds none.
func WorkFiles(dir string) (map[string]string, error) {
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) && path == dir {
				return filepath.SkipAll
			}
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if rel == "." {
			return nil
		}
		if runstore.RecordPath(filepath.ToSlash(rel)) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		out[filepath.ToSlash(rel)] = HashBytes(data)
		return nil
	})
	return out, err
}

// SkillFiles hashes the files of the skill in dir by slash-separated
// path, as a cassette's header keeps them: its tests/ (the cassettes
// themselves) and hidden folders (a run's .skillkit) left out.
func SkillFiles(dir string) (map[string]string, error) {
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() && path != dir && (rel == "tests" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		out[rel] = HashBytes(data)
		return nil
	})
	return out, err
}

// ChangedFiles names the files that differ between two SkillFiles, in
// path order: "changed", "added" or "gone".
func ChangedFiles(then, now map[string]string) []string {
	var out []string
	for _, p := range slices.Sorted(maps.Keys(now)) {
		switch h, ok := then[p]; {
		case !ok:
			out = append(out, p+" added")
		case h != now[p]:
			out = append(out, p+" changed")
		}
	}
	for _, p := range slices.Sorted(maps.Keys(then)) {
		if _, ok := now[p]; !ok {
			out = append(out, p+" gone")
		}
	}
	return out
}

// HashBytes is the hash of a file's content, as tests expect it:
// "sha256:<hex>".
func HashBytes(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// changes are the files that differ between two WorkFiles of dir, read
// from dir as they are now, in path order.
func changes(dir string, before, after map[string]string) ([]File, error) {
	var out []File
	for path, h := range after {
		if before[path] == h {
			continue
		}
		full := filepath.Join(dir, filepath.FromSlash(path))
		data, err := os.ReadFile(full)
		if err != nil {
			return nil, err
		}
		info, err := os.Stat(full)
		if err != nil {
			return nil, err
		}
		f := File{Path: path, Mode: info.Mode().Perm()}
		if utf8.Valid(data) {
			f.Text = string(data)
		} else {
			f.Base64 = data
		}
		out = append(out, f)
	}
	for path := range before {
		if _, ok := after[path]; !ok {
			out = append(out, File{Path: path, Removed: true})
		}
	}
	slices.SortFunc(out, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	return out, nil
}

// apply leaves the recorded files in dir, through a root on it: a path
// or a link that leaves dir is refused, and so is one of the run's record
// (a cassette must not write outside the case's work dir, nor forge the
// run's own files).
func apply(dir string, files []File, p placeholders) error {
	root, err := skillfs.Open(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	for _, f := range files {
		top, _, _ := strings.Cut(f.Path, "/")
		if !filepath.IsLocal(filepath.FromSlash(f.Path)) || runstore.RecordFile(top) {
			return fmt.Errorf("the cassette writes %q, outside the work the agent may leave", f.Path)
		}
		if f.Removed {
			if err := root.Remove(f.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			continue
		}
		data := f.Base64
		if data == nil {
			data = []byte(p.show(f.Text))
		}
		mode := f.Mode
		if mode == 0 {
			mode = 0o644
		}
		if err := root.WriteFile(f.Path, data, mode); err != nil {
			return err
		}
	}
	return nil
}
