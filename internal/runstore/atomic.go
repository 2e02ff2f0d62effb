package runstore

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// tmpMark is part of every temporary file name WriteFile uses, so that
// leftovers of a killed process can be recognised and removed.
const tmpMark = ".tmp-"

// WriteFile replaces path with data so that a reader (or a process killed
// half-way) sees either the old content or the new one, never a mix: the
// data goes to a temporary file in the same folder, which is renamed over
// path. With durable set the temporary file is fsynced before the rename and
// the folder after it, so the new content also survives a power loss.
func WriteFile(path string, data []byte, durable bool) error {
	if err := writeFile(path, data, durable); err != nil {
		return &writeError{err}
	}
	return nil
}

// ErrWrite is matched (errors.Is) by every failure to write a file of the
// run directory: a full disk, a read-only or failing device. The run is
// not at fault and stays resumable.
var ErrWrite = errors.New("writing the run directory failed")

// writeError reads as the failure it wraps and also matches ErrWrite.
type writeError struct{ err error }

func (e *writeError) Error() string   { return e.err.Error() }
func (e *writeError) Unwrap() []error { return []error{e.err, ErrWrite} }

func writeFile(path string, data []byte, durable bool) error {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+tmpMark+"*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	tmp := f.Name()
	fail := func(err error) error {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := fault(path); err != nil {
		f.Write(data[:len(data)/2])
		return fail(err)
	}
	if _, err := f.Write(data); err != nil {
		return fail(err)
	}
	if durable {
		if err := f.Sync(); err != nil {
			return fail(err)
		}
	}
	if err := f.Chmod(0o644); err != nil {
		return fail(err)
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

// syncDir makes a rename in dir durable.
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
// names WriteFile makes are touched: the run directory is also the skill's
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
