//go:build !linux

package skillfs

import (
	iofs "io/fs"
	"os"
)

// openBeneath is nothing where openat2 is not: files are opened through
// the root.
func openBeneath(*os.Root) *os.File { return nil }

// readBeneath leaves every read to the root's open.
func (f *FS) readBeneath(string) ([]byte, bool, error) { return nil, false, nil }

// readDirBeneath leaves every listing to the root.
func (f *FS) readDirBeneath(string) ([]iofs.DirEntry, bool, error) { return nil, false, nil }
