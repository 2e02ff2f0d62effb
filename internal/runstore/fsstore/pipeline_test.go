package fsstore

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/skillkit/skillkit/internal/faultfs"
	"github.com/skillkit/skillkit/internal/runstore"
)

// A pipelined commit's sync that fails fails the first write that waits
// after it (Settle here, the barrier before an effect), and every later
// one: a sync tried again could report pages a failed one dropped as
// durable. The completion's line was written, so the record a resume
// reads has it, as after a failed Commit.
func TestPipelinedSyncFailure(t *testing.T) {
	var failing atomic.Bool
	files := faultfs.Wrap(nil)
	files.SyncFault = func(string) error {
		if failing.Load() {
			return syscall.EIO
		}
		return nil
	}
	base := t.TempDir()
	s := New(Options{Base: base, Files: files})
	r := newRun(t, s, "r1")
	complete := func(id string, n int) error { return completePipelined(r, id, n) }
	if err := complete("a1", 1); err != nil {
		t.Fatal(err)
	}
	if err := r.Settle(); err != nil {
		t.Fatalf("settling a sync that succeeded: %v", err)
	}
	failing.Store(true)
	if err := complete("a2", 2); err != nil {
		t.Fatalf("a pipelined commit returned its sync's error before anything waited for it: %v", err)
	}
	err := r.Settle()
	log := filepath.Join(base, ".skillkit", "runs", "demo", "r1", EventsFile)
	if !errors.Is(err, runstore.ErrWrite) || !strings.Contains(err.Error(), "syncing "+log+": ") {
		t.Fatalf("Settle after a failed sync: %v, want a write error syncing %s", err, log)
	}
	failing.Store(false)
	for name, write := range map[string]func() error{
		"Settle": r.Settle, "Flush": r.Flush,
		"Commit": func() error { return r.Commit(runstore.Event{Action: "a3", To: "failed"}) },
	} {
		if err := write(); !errors.Is(err, runstore.ErrWrite) {
			t.Errorf("%s after a failed sync: %v, want the write error again", name, err)
		}
	}
	r.Close()
	sum, err := New(Options{Base: base}).Status("r1")
	if err != nil {
		t.Fatal(err)
	}
	if sum.StepsDone != 2 {
		t.Errorf("%d actions recorded, want 2: the second's line was written before its sync failed", sum.StepsDone)
	}
}

// A pipelined commit written while the sync of the one before is under
// way does not wait for it: the sync after it covers it, and every other
// commit written meanwhile (a group commit). Settle, the barrier before
// an effect, waits for both, and the log is then durable to its end.
func TestPipelinedCommitsShareASync(t *testing.T) {
	hold, held := make(chan struct{}), make(chan struct{})
	var first atomic.Bool
	files := faultfs.Wrap(nil)
	files.SyncFault = func(string) error {
		if first.CompareAndSwap(true, false) {
			close(held)
			<-hold
		}
		return nil
	}
	base := t.TempDir()
	s := New(Options{Base: base, Files: files})
	r := newRun(t, s, "r1")
	defer r.Close()
	complete := func(id string, n int) error { return completePipelined(r, id, n) }
	if err := complete("a1", 1); err != nil {
		t.Fatal(err)
	}
	if err := r.Settle(); err != nil {
		t.Fatal(err)
	}
	syncs := files.Syncs(EventsFile)
	first.Store(true)
	if err := complete("a2", 2); err != nil {
		t.Fatal(err)
	}
	<-held
	// a2's sync is held: a3 and a4 are written without waiting for it.
	for i, id := range []string{"a3", "a4"} {
		if err := complete(id, i+3); err != nil {
			t.Fatal(err)
		}
	}
	log := filepath.Join(base, ".skillkit", "runs", "demo", "r1", EventsFile)
	info, err := os.Stat(log)
	if err != nil {
		t.Fatal(err)
	}
	if d := files.Durable(EventsFile); d >= info.Size() {
		t.Fatalf("the log is durable to %d of %d bytes while a sync is held", d, info.Size())
	}
	close(hold)
	if err := r.Settle(); err != nil {
		t.Fatal(err)
	}
	if d := files.Durable(EventsFile); d != info.Size() {
		t.Errorf("after Settle the log is durable to %d of %d bytes", d, info.Size())
	}
	if got := files.Syncs(EventsFile) - syncs; got != 2 {
		t.Errorf("%d syncs for three commits, the last two written during the first's sync: want 2", got)
	}
}

// Pipelined commits on a disk whose syncs take a varying time and whose
// mth sync fails, with a Settle now and then: every Settle that succeeds
// leaves the log durable to its end; from the first error on, every call
// fails with it and no sync is made after the one that failed (a sync
// tried again could say lost pages durable); the sync goroutine is gone
// once the run is closed.
func TestPipelinedSyncsUnderFaults(t *testing.T) {
	before := runtime.NumGoroutine()
	for _, m := range []int{2, 5, 9, 17, 1000} {
		var syncs atomic.Int32
		var failedAt atomic.Int32
		files := faultfs.Wrap(nil)
		files.SyncFault = func(string) error {
			n := syncs.Add(1)
			time.Sleep(time.Duration(n%4) * 100 * time.Microsecond)
			if int(n) == m {
				failedAt.Store(n)
				return syscall.EIO
			}
			return nil
		}
		base := t.TempDir()
		r := newRun(t, New(Options{Base: base, Files: files}), "r1")
		log := filepath.Join(base, ".skillkit", "runs", "demo", "r1", EventsFile)
		var first error
		for i := 1; i <= 60; i++ {
			id := "a" + strconv.Itoa(i)
			err := r.Append(runstore.Event{Action: id, To: "loading", Position: i})
			if err == nil {
				rec := runstore.NewStepRecord(i, id, id, runstore.StepCompleted, false, time.Now())
				err = r.CommitPipelined(runstore.Event{Action: id, From: "post_hook", To: "completed", Record: &rec})
			}
			if err == nil && i%7 == 0 {
				if err = r.Settle(); err == nil {
					info, serr := os.Stat(log)
					if serr != nil {
						t.Fatal(serr)
					}
					if d := files.Durable(EventsFile); d != info.Size() {
						t.Fatalf("sync %d fails: Settle succeeded with the log durable to %d of %d bytes", m, d, info.Size())
					}
				}
			}
			switch {
			case first == nil && err != nil:
				if !errors.Is(err, runstore.ErrWrite) || !errors.Is(err, syscall.EIO) {
					t.Fatalf("sync %d fails: commit %d: %v, want the sync's write error", m, i, err)
				}
				first = err
			case first != nil && err == nil:
				t.Fatalf("sync %d fails: commit %d was taken after the log failed with %v", m, i, first)
			}
		}
		if err := r.Close(); first == nil && err != nil {
			if failedAt.Load() == 0 {
				t.Fatalf("sync %d fails: closing: %v", m, err)
			}
			// The last sync failed, and the release said so.
			first = err
		}
		if failedAt.Load() > 0 && first == nil {
			t.Errorf("sync %d failed and no call said so", m)
		}
		if n := failedAt.Load(); n > 0 && syncs.Load() != n {
			t.Errorf("%d syncs made after sync %d failed", syncs.Load()-n, n)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines after the runs closed, %d before", runtime.NumGoroutine(), before)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// completePipelined records loop action id, at position n, started and
// completed, its completion a Pipelined commit as the loop makes it.
func completePipelined(r runstore.Run, id string, n int) error {
	if err := r.Append(runstore.Event{Action: id, To: "loading", Position: n}); err != nil {
		return err
	}
	rec := runstore.NewStepRecord(n, id, id, runstore.StepCompleted, false, time.Now())
	return r.CommitPipelined(runstore.Event{Action: id, From: "post_hook", To: "completed", Record: &rec})
}
