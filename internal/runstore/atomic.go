package runstore

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// TempMark is part of every temporary file name WriteFile uses, so that
// leftovers of a killed process can be recognised and removed.
const TempMark = ".tmp-"

// IsTemp reports whether name is a temporary copy WriteFile makes: a
// hidden name with the temporary mark.
func IsTemp(name string) bool {
	return strings.HasPrefix(name, ".") && strings.Contains(name, TempMark)
}

// WriteFile replaces path with data so that a reader (or a process killed
// half-way) sees either the old content or the new one, never a mix: the
// data goes to a temporary file in the same folder, which is renamed over
// path. With durable set the temporary file is fsynced before the rename and
// the folder after it, so the new content also survives a power loss.
func WriteFile(files Files, path string, data []byte, durable bool) error {
	return WriteFileFrom(files, path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	}, durable)
}

// WriteFileFrom is WriteFile with the content written by write as it
// goes, not held whole first.
func WriteFileFrom(files Files, path string, write func(io.Writer) error, durable bool) error {
	if err := replace(files, path, write, durable); err != nil {
		return &WriteError{Err: err}
	}
	return nil
}

func replace(files Files, path string, write func(io.Writer) error, durable bool) error {
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
	if err := write(f); err != nil {
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
		if err := SyncDir(dir); err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
	}
	return nil
}

// SyncDir makes a rename or a new file in dir durable.
func SyncDir(dir string) error {
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

// RemoveTemps deletes the temporary files a killed writer left behind in
// dir for the given base names, or for any name when none is given. Only
// names WriteFile makes are touched: the run directory is also the skill's
// work dir and holds the skill's own files.
func RemoveTemps(dir string, bases ...string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		if !IsTemp(name) {
			continue
		}
		if len(bases) == 0 || slices.ContainsFunc(bases, func(b string) bool { return strings.HasPrefix(name, "."+b+TempMark) }) {
			os.Remove(filepath.Join(dir, name))
		}
	}
}
