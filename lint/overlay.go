package lint

import (
	"bytes"
	"io/fs"
	"os"
	"path"
	"time"
)

// overlay is a skill folder with some files' contents replaced: fixes not
// yet written, or an editor's unsaved buffers. Paths are skill-relative
// with forward slashes. Only existing files are replaced; an overlay adds
// no file.
type overlay struct {
	base  fs.FS
	files map[string][]byte
}

func newOverlay(dir string, files map[string][]byte) *overlay {
	if files == nil {
		files = map[string][]byte{}
	}
	return &overlay{base: os.DirFS(dir), files: files}
}

// Open opens a file of the overlay or, for one it does not replace, of
// the folder.
func (o *overlay) Open(name string) (fs.File, error) {
	data, ok := o.files[name]
	if !ok {
		return o.base.Open(name)
	}
	info, err := o.Stat(name)
	if err != nil {
		return nil, err
	}
	return &memFile{Reader: bytes.NewReader(data), info: info}, nil
}

// ReadFile reads a file, replaced or not.
func (o *overlay) ReadFile(name string) ([]byte, error) {
	if data, ok := o.files[name]; ok {
		return data, nil
	}
	return fs.ReadFile(o.base, name)
}

// Stat describes a file; a replaced one has its new size.
func (o *overlay) Stat(name string) (fs.FileInfo, error) {
	info, err := fs.Stat(o.base, name)
	if data, ok := o.files[name]; ok {
		return memInfo{name: name, size: int64(len(data)), base: info}, nil
	}
	return info, err
}

// ReadDir lists a folder of the skill: the overlay adds no file.
func (o *overlay) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(o.base, name) }

// memFile is a replaced file, opened.
type memFile struct {
	*bytes.Reader
	info fs.FileInfo
}

func (f *memFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *memFile) Close() error               { return nil }

// memInfo describes a replaced file: the folder's file, if there is one,
// with the new size.
type memInfo struct {
	name string
	size int64
	base fs.FileInfo
}

func (i memInfo) Name() string { return path.Base(i.name) }
func (i memInfo) Size() int64  { return i.size }
func (i memInfo) Mode() fs.FileMode {
	if i.base != nil {
		return i.base.Mode()
	}
	return 0o644
}
func (i memInfo) ModTime() time.Time {
	if i.base != nil {
		return i.base.ModTime()
	}
	return time.Time{}
}
func (i memInfo) IsDir() bool { return false }
func (i memInfo) Sys() any    { return nil }
