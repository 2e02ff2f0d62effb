package orchestrator_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/skillkit/skillkit/internal/faultfs"
	lifecycle "github.com/skillkit/skillkit/internal/run"
	"github.com/skillkit/skillkit/internal/runstore"
	"github.com/skillkit/skillkit/internal/runstore/fsstore"
)

// A loop whose disk fails, a sync of its log (EIO, met by the action or
// the barrier after the pipelined completion) or every write from some
// point (a disk that stays full), stops interrupted: the error is the
// run's (RunError, which the command turns into the resume command),
// says the failure once, naming the file, and matches ErrWrite (exit 3); a resume on a
// sound disk finishes the loop without running a completed action again.
func TestLoopStopsResumableWhenTheDiskFails(t *testing.T) {
	const n = 30
	for _, c := range []struct {
		name, says string
		cause      error
		fail       func(files *faultfs.Files)
	}{
		{"sync", "syncing ", syscall.EIO, func(files *faultfs.Files) {
			var syncs atomic.Int32
			files.SyncFault = func(path string) error {
				if filepath.Base(path) == fsstore.EventsFile && syncs.Add(1) >= 4 {
					return syscall.EIO
				}
				return nil
			}
		}},
		{"full", "appending to ", syscall.ENOSPC, func(files *faultfs.Files) {
			var writes atomic.Int32
			files.Fault = func(path string) error {
				if filepath.Base(path) != fsstore.ClaimFile && writes.Add(1) > 40 {
					return syscall.ENOSPC
				}
				return nil
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := noopOptions(t, n, true)
			files := faultfs.Wrap(nil)
			c.fail(files)
			o.Store = fsstore.New(fsstore.Options{Base: o.ProjectDir, Files: files})
			res, err := lifecycle.Run(context.Background(), o)
			var re *lifecycle.RunError
			if !errors.As(err, &re) || re.State != runstore.RunInterrupted || !errors.Is(err, runstore.ErrWrite) || !errors.Is(err, c.cause) {
				t.Fatalf("the run on a failing disk: %v, want a RunError, interrupted, a write error of %v", err, c.cause)
			}
			if got := strings.Count(err.Error(), c.says); got != 1 {
				t.Errorf("the error says %q %d times, want once: %v", c.says, got, err)
			}
			// The failure names the file, where the disk is.
			if log := filepath.Join(res.Dir, fsstore.EventsFile); !strings.Contains(err.Error(), c.says+log+": ") {
				t.Errorf("the error does not say %q: %v", c.says+log, err)
			}
			files.Fault, files.SyncFault = nil, nil
			o.Resume = res.Dir
			res, err = lifecycle.Run(context.Background(), o)
			if err != nil {
				t.Fatalf("resuming on a sound disk: %v", err)
			}
			if got := len(completed(state(t, res.Dir))); got != n {
				t.Errorf("%d actions completed after the resume, want %d", got, n)
			}
		})
	}
}
