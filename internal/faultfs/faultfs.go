// Package faultfs wraps the filesystem store's Files so that tests can make
// the disk fill up or fail at any write or sync, count the syncs a run
// makes and see how much of a log a power loss would keep (Durable):
// before each write of a run's record, a function decides its fate, and an
// error it returns is the write's, after half of the data was written (as
// a full disk accepts part of a write). Only tests import it.
package faultfs

import (
	"github.com/skillkit/skillkit/internal/runstore"
	"path/filepath"
	"sync"
)

// Files is a runstore.Files whose writes Fault may fail.
type Files struct {
	Inner runstore.Files
	// Fault is called with the file's path before each write; nil lets
	// every write through.
	Fault func(path string) error
	// SyncFault is called with an appended file's path before each of
	// its syncs; an error it returns is the sync's, and the file is not
	// synced. Nil lets every sync through.
	SyncFault func(path string) error

	mu    sync.Mutex
	syncs map[string]int
	// durable is, by file name, the size an appended file had when the
	// last sync of it that succeeded started.
	durable map[string]int64
	// faultMu serialises the calls of Fault.
	faultMu sync.Mutex
}

// Syncs is how many times files named name were synced.
func (w *Files) Syncs(name string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.syncs[name]
}

func (w *Files) synced(path string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.syncs == nil {
		w.syncs = map[string]int{}
	}
	w.syncs[filepath.Base(path)]++
}

// Durable is how many bytes of the appended file named name its syncs
// made durable: its size when the last one that succeeded started. A
// power loss may take what was written after.
func (w *Files) Durable(name string) int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.durable[name]
}

func (w *Files) covered(path string, size int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.durable == nil {
		w.durable = map[string]int64{}
	}
	w.durable[filepath.Base(path)] = max(w.durable[filepath.Base(path)], size)
}

// fault calls Fault one write at a time: a store writes some files from
// a goroutine of their own (fsstore's threads/).
func (w *Files) fault(path string) error { return w.call(w.Fault, path) }

// call calls fault, when set, one call at a time, as fault says.
func (w *Files) call(fault func(string) error, path string) error {
	if fault == nil {
		return nil
	}
	w.faultMu.Lock()
	defer w.faultMu.Unlock()
	return fault(path)
}

// Wrap returns Files over the operating system's.
func Wrap(fault func(path string) error) *Files { return &Files{Inner: runstore.OS{}, Fault: fault} }

// OpenAppend implements runstore.Files.
func (w *Files) OpenAppend(path string) (runstore.AppendFile, error) {
	f, err := w.Inner.OpenAppend(path)
	if err != nil {
		return nil, err
	}
	return &appendFile{AppendFile: f, path: path, w: w}, nil
}

// CreateTemp implements runstore.Files: the fault is judged by the path of the
// file the temporary one replaces.
func (w *Files) CreateTemp(target string) (runstore.TempFile, error) {
	f, err := w.Inner.CreateTemp(target)
	if err != nil {
		return nil, err
	}
	return &tempFile{TempFile: f, target: target, w: w}, nil
}

type appendFile struct {
	runstore.AppendFile
	path string
	w    *Files
}

func (f *appendFile) Sync() error {
	f.w.synced(f.path)
	if err := f.w.call(f.w.SyncFault, f.path); err != nil {
		return err
	}
	size, err := f.Size()
	if err != nil {
		return err
	}
	if err := f.AppendFile.Sync(); err != nil {
		return err
	}
	f.w.covered(f.path, size)
	return nil
}

func (f *appendFile) Write(p []byte) (int, error) {
	if err := f.w.fault(f.path); err != nil {
		n, _ := f.AppendFile.Write(p[:len(p)/2])
		return n, err
	}
	return f.AppendFile.Write(p)
}

type tempFile struct {
	runstore.TempFile
	target string
	w      *Files
}

func (f *tempFile) Sync() error {
	f.w.synced(f.target)
	return f.TempFile.Sync()
}

func (f *tempFile) Write(p []byte) (int, error) {
	if err := f.w.fault(f.target); err != nil {
		n, _ := f.TempFile.Write(p[:len(p)/2])
		return n, err
	}
	return f.TempFile.Write(p)
}
