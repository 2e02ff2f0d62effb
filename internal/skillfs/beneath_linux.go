package skillfs

import (
	"io"
	iofs "io/fs"
	"os"
	"path"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// openBeneath opens the root's own folder, the handle readBeneath
// resolves paths from; nil when it cannot be opened (reads then go through
// the root alone).
func openBeneath(r *os.Root) *os.File {
	d, err := r.Open(".")
	if err != nil {
		return nil
	}
	return d
}

// readBeneath reads a regular file in one path resolution. os.Root opens
// each folder on the way with its own syscalls (three more for a file in
// phases/, most of a lint's syscalls); openat2 with RESOLVE_BENEATH
// resolves the whole path in the kernel under the rules the root keeps:
// no absolute link, no ".." or link leading out, no /proc magic link. ok is
// false when this way cannot answer — a path io/fs rejects, a kernel before 5.6, a seccomp
// filter, a path it refuses, a folder or a special file — and the root's
// open decides then, with the error it gives.
func (f *FS) readBeneath(name string) (data []byte, ok bool, err error) {
	if f.beneath == nil || !iofs.ValidPath(name) {
		return nil, false, nil
	}
	fd, err := unix.Openat2(f.fd, name, &unix.OpenHow{
		Flags:   unix.O_RDONLY | unix.O_CLOEXEC | unix.O_NONBLOCK,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS,
	})
	if err != nil {
		return nil, false, nil
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, false, nil
	}
	if st.Size > f.max {
		return nil, true, f.tooLarge(name, st.Size)
	}
	data, err = readAll(io.LimitReader(fdReader(fd), f.max+1), st.Size)
	if err != nil {
		return nil, true, &iofs.PathError{Op: "read", Path: name, Err: err}
	}
	if int64(len(data)) > f.max {
		return nil, true, f.tooLarge(name, int64(len(data)))
	}
	return data, true, nil
}

// readDirBeneath lists a folder found in one path resolution, as
// readBeneath reads a file. A folder opened through the root also stats
// each of its entries (the root cannot trust a lazy look-up by path);
// these entries' types come with the listing and their Info goes through
// the root. ok is false where readBeneath's is.
func (f *FS) readDirBeneath(name string) (entries []iofs.DirEntry, ok bool, err error) {
	if f.beneath == nil || !iofs.ValidPath(name) {
		return nil, false, nil
	}
	fd, err := unix.Openat2(f.fd, name, &unix.OpenHow{
		Flags:   unix.O_RDONLY | unix.O_CLOEXEC | unix.O_DIRECTORY,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS,
	})
	if err != nil {
		return nil, false, nil
	}
	d := os.NewFile(uintptr(fd), name)
	defer d.Close()
	list, err := d.ReadDir(-1)
	if err != nil {
		return nil, false, nil
	}
	entries = make([]iofs.DirEntry, len(list))
	for i, e := range list {
		entries[i] = entry{DirEntry: e, f: f, path: path.Join(name, e.Name())}
	}
	slices.SortFunc(entries, func(a, b iofs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, true, nil
}

// entry is a folder entry listed in one resolution: its Info is looked
// up through the root, as the root's own listing's is, not by a path
// from the working directory.
type entry struct {
	iofs.DirEntry
	f    *FS
	path string
}

func (e entry) Info() (iofs.FileInfo, error) { return e.f.root.Lstat(e.path) }

// fdReader reads a descriptor without an os.File: wrapping one costs two
// fcntl calls and a refused epoll registration per regular file.
type fdReader int

func (r fdReader) Read(p []byte) (int, error) {
	for {
		n, err := unix.Read(int(r), p)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return 0, err
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}
