package runstore

import "sync"

// writeFault, when set, decides the fate of every write the store makes;
// SetWriteFault sets it.
var (
	faultMu    sync.Mutex
	writeFault func(path string) error
)

// SetWriteFault makes the store's writes fail as a full disk or a failing
// device would: before each write of a file in a run directory (state.json,
// skill-state.yaml, checkpoints, claim.json, the .jsonl logs) fn is called
// with the file's path, and an error it returns is the write's error, after
// half of the data was written (a full disk accepts part of a write). It
// returns a function that removes fn. It exists for tests of what a run
// does when its disk fills up; nothing else calls it.
func SetWriteFault(fn func(path string) error) (restore func()) {
	faultMu.Lock()
	defer faultMu.Unlock()
	prev := writeFault
	writeFault = fn
	return func() {
		faultMu.Lock()
		defer faultMu.Unlock()
		writeFault = prev
	}
}

// fault returns the injected error for a write to path, if any.
func fault(path string) error {
	faultMu.Lock()
	fn := writeFault
	faultMu.Unlock()
	if fn == nil {
		return nil
	}
	return fn(path)
}
