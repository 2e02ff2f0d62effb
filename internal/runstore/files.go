package runstore

import (
	"cmp"
	"os"
	"path/filepath"
)

// Files is how the store touches the disk: every write of a record goes
// through it, so that a test can wrap it and make the disk fill up or fail
// at any write (package faultfs), and nothing else in the store has to know.
type Files interface {
	// OpenAppend opens path for appending, creating it.
	OpenAppend(path string) (AppendFile, error)
	// CreateTemp makes a new temporary file beside target, to be renamed
	// over it.
	CreateTemp(target string) (TempFile, error)
}

// AppendFile is an open log file.
type AppendFile interface {
	Write(p []byte) (int, error)
	Sync() error
	Close() error
	// Size is the file's length, for finding a torn last line.
	Size() (int64, error)
	ReadAt(p []byte, off int64) (int, error)
}

// TempFile is a temporary file being written, to be renamed into place.
type TempFile interface {
	Name() string
	Write(p []byte) (int, error)
	Sync() error
	Close() error
}

// OS is the Files of the operating system.
type OS struct{}

// OpenAppend implements Files.
func (OS) OpenAppend(path string) (AppendFile, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	return osFile{f}, nil
}

// CreateTemp implements Files.
func (OS) CreateTemp(target string) (TempFile, error) {
	dir, base := filepath.Split(target)
	f, err := os.CreateTemp(cmp.Or(dir, "."), "."+base+TempMark+"*")
	if err != nil {
		return nil, err
	}
	// CreateTemp makes 0600 files; the record is as readable as the
	// files a step writes.
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return f, nil
}

type osFile struct{ *os.File }

func (f osFile) Size() (int64, error) {
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}
