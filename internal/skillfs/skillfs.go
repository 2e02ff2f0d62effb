// Package skillfs is the one reader of a skill's files: parse, lint, plan,
// skillkit test and schema references read through it, so the rules of
// what a skill may hand skillkit hold in one place. Every file is opened
// beneath the skill's folder through an os.Root (a symlink that leads out
// is refused, whenever it is swapped in), only regular files and folders
// are opened (a device, FIFO or socket is refused without blocking), and a
// file over the size cap is refused before it is read.
package skillfs

import (
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"os"
	"strconv"
	"sync"
)

// DefaultMaxFileSize is the cap on one file of a skill: far over any real
// skill's file, far under what would exhaust a machine's memory.
const DefaultMaxFileSize = 64 << 20

// MaxFileSizeEnv names the environment variable that sets the cap, in
// bytes, for a skill with a larger file.
const MaxFileSizeEnv = "SKILLKIT_MAX_FILE_SIZE"

// ErrSpecial marks a file that is not a regular file or a folder.
var ErrSpecial = errors.New("not a regular file (a device, FIFO or socket): refused")

// ErrTooLarge marks a file over the size cap.
var ErrTooLarge = errors.New("file over the size cap")

var maxSize = sync.OnceValue(func() int64 {
	if v, err := strconv.ParseInt(os.Getenv(MaxFileSizeEnv), 10, 64); err == nil && v > 0 {
		return v
	}
	return DefaultMaxFileSize
})

// MaxFileSize is the cap on one file: DefaultMaxFileSize, or
// SKILLKIT_MAX_FILE_SIZE when that is a positive number of bytes.
func MaxFileSize() int64 { return maxSize() }

// FS is a skill folder (or a test's, or a fixture's) opened for reading
// and, where a command writes goldens or recordings, for writing. It is an
// io/fs file system, so fs.WalkDir and fs.ReadFile work on it.
type FS struct {
	dir  string
	root *os.Root
	// beneath is the root's folder opened for readBeneath, and fd its
	// descriptor (taken once: each Fd call is a syscall); nil where files
	// are opened through root alone.
	beneath *os.File
	fd      int
	max     int64
}

var (
	_ iofs.ReadFileFS = (*FS)(nil)
	_ iofs.StatFS     = (*FS)(nil)
	_ iofs.ReadDirFS  = (*FS)(nil)
)

// Open opens the folder dir as a root. Close it when done.
func Open(dir string) (*FS, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	f := &FS{dir: dir, root: r, max: MaxFileSize()}
	if f.beneath = openBeneath(r); f.beneath != nil {
		f.fd = int(f.beneath.Fd())
	}
	return f, nil
}

// Dir is the folder the FS was opened on.
func (f *FS) Dir() string { return f.dir }

// Close releases the folder.
func (f *FS) Close() error {
	if f.beneath != nil {
		f.beneath.Close()
	}
	return f.root.Close()
}

// Open opens a file or folder beneath the root, by its slash-separated
// path. A special file is refused without blocking: it is opened
// non-blocking (a FIFO with no writer does not hang the open) and checked
// on its open handle (it cannot be swapped after the check).
func (f *FS) Open(name string) (iofs.File, error) {
	file, _, err := f.open(name)
	if err != nil {
		return nil, err
	}
	return file, nil
}

// open is Open returning the handle's FileInfo too: ReadFile sizes its
// buffer and checks the cap with the one stat the special-file check
// made (a second was a tenth of the syscalls of a lint).
func (f *FS) open(name string) (*os.File, iofs.FileInfo, error) {
	if !iofs.ValidPath(name) {
		return nil, nil, &iofs.PathError{Op: "open", Path: name, Err: iofs.ErrInvalid}
	}
	file, err := f.root.OpenFile(name, os.O_RDONLY|nonBlock, 0)
	if err != nil {
		return nil, nil, err
	}
	info, err := file.Stat()
	if err != nil {
		file.Close()
		return nil, nil, err
	}
	if !info.IsDir() && !info.Mode().IsRegular() {
		file.Close()
		return nil, nil, &iofs.PathError{Op: "open", Path: name, Err: ErrSpecial}
	}
	return file, info, nil
}

// ReadFile reads a regular file beneath the root, refusing one over the
// size cap (its size is checked first, and the read stops past the cap in
// case it grows).
func (f *FS) ReadFile(name string) ([]byte, error) {
	if data, ok, err := f.readBeneath(name); ok {
		return data, err
	}
	file, info, err := f.open(name)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	if info.IsDir() {
		return nil, &iofs.PathError{Op: "read", Path: name, Err: errors.New("is a folder")}
	}
	if info.Size() > f.max {
		return nil, f.tooLarge(name, info.Size())
	}
	data, err := readAll(io.LimitReader(file, f.max+1), info.Size())
	if err != nil {
		return nil, &iofs.PathError{Op: "read", Path: name, Err: err}
	}
	if int64(len(data)) > f.max {
		return nil, f.tooLarge(name, int64(len(data)))
	}
	return data, nil
}

// readAll is io.ReadAll into a buffer of the size the file had when
// opened (and one byte more, to see the end): io.ReadAll starts at 512
// bytes and grows, which was most of the cost of reading a skill's
// files. A file that grew is still read to its end.
func readAll(r io.Reader, size int64) ([]byte, error) {
	buf := make([]byte, 0, size+1)
	for {
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
	}
}

func (f *FS) tooLarge(name string, size int64) error {
	return &iofs.PathError{Op: "read", Path: name, Err: fmt.Errorf("%w: %d bytes, over %d (set %s to raise it)", ErrTooLarge, size, f.max, MaxFileSizeEnv)}
}

// Stat describes a file beneath the root, following links that stay
// beneath it.
func (f *FS) Stat(name string) (iofs.FileInfo, error) {
	if !iofs.ValidPath(name) {
		return nil, &iofs.PathError{Op: "stat", Path: name, Err: iofs.ErrInvalid}
	}
	return f.root.Stat(name)
}

// ReadDir lists a folder beneath the root, sorted by name.
func (f *FS) ReadDir(name string) ([]iofs.DirEntry, error) {
	if entries, ok, err := f.readDirBeneath(name); ok {
		return entries, err
	}
	return iofs.ReadDir(f.root.FS(), name)
}

// WriteFile writes a file beneath the root, making its folders: a golden
// file or a recording lands inside the skill, whatever link is on the way.
// An existing special file is refused rather than written into.
func (f *FS) WriteFile(name string, data []byte, perm os.FileMode) error {
	if !iofs.ValidPath(name) {
		return &iofs.PathError{Op: "write", Path: name, Err: iofs.ErrInvalid}
	}
	if d := dirOf(name); d != "." {
		if err := f.root.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	if info, err := f.root.Stat(name); err == nil && !info.Mode().IsRegular() {
		return &iofs.PathError{Op: "write", Path: name, Err: ErrSpecial}
	}
	file, err := f.root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|nonBlock, perm)
	if err != nil {
		return err
	}
	if _, err := file.Write(data); err != nil {
		file.Close()
		return err
	}
	return file.Close()
}

// Remove removes a file beneath the root (a link itself, not its target).
func (f *FS) Remove(name string) error {
	if !iofs.ValidPath(name) {
		return &iofs.PathError{Op: "remove", Path: name, Err: iofs.ErrInvalid}
	}
	return f.root.Remove(name)
}

func dirOf(name string) string {
	for i := len(name) - 1; i >= 0; i-- {
		if name[i] == '/' {
			return name[:i]
		}
	}
	return "."
}

// ReadFile reads one file of the folder dir by its slash-separated path,
// with the rules of FS: for a caller that reads a single file.
func ReadFile(dir, name string) ([]byte, error) {
	f, err := Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadFile(name)
}

// Stat describes one file of the folder dir by its slash-separated path,
// with the rules of FS.
func Stat(dir, name string) (iofs.FileInfo, error) {
	f, err := Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Stat(name)
}

// WriteFile writes one file of the folder dir by its slash-separated path,
// with the rules of FS.WriteFile.
func WriteFile(dir, name string, data []byte, perm os.FileMode) error {
	f, err := Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.WriteFile(name, data, perm)
}
