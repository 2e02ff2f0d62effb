package fs

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/skillkit/skillkit/internal/runstore"
)

// tmpMark is part of every temporary file name writeFile uses, so that
// leftovers of a killed process can be recognised and removed.
const tmpMark = ".tmp-"

// writeFile replaces path with data so that a reader (or a process killed
// half-way) sees either the old content or the new one, never a mix: the
// data goes to a temporary file in the same folder, which is renamed over
// path. With durable set the temporary file is fsynced before the rename and
// the folder after it, so the new content also survives a power loss.
func writeFile(files Files, path string, data []byte, durable bool) error {
	if err := replace(files, path, data, durable); err != nil {
		return &runstore.WriteError{Err: err}
	}
	return nil
}

func replace(files Files, path string, data []byte, durable bool) error {
	dir := filepath.Dir(path)
	f, err := files.CreateTemp(path)
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	tmp := f.Name()
	fail := func(err error) error {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if _, err := f.Write(data); err != nil {
		return fail(err)
	}
	if durable {
		if err := f.Sync(); err != nil {
			return fail(err)
		}
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if durable {
		if err := syncDir(dir); err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
	}
	return nil
}

// syncDir makes a rename or a new file in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("syncing folder %s: %w", dir, err)
	}
	return nil
}

// removeTemps deletes the temporary files a killed writer left behind in
// dir for the given base names, or for any name when none is given. Only
// names writeFile makes are touched: the run directory is also the skill's
// work dir and holds the skill's own files.
func removeTemps(dir string, bases ...string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, ".") || !strings.Contains(name, tmpMark) {
			continue
		}
		if len(bases) == 0 || slices.ContainsFunc(bases, func(b string) bool { return strings.HasPrefix(name, "."+b+tmpMark) }) {
			os.Remove(filepath.Join(dir, name))
		}
	}
}
