package run_test

import (
	"context"
	"errors"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/skillkit/skillkit/internal/faultfs"
	"github.com/skillkit/skillkit/internal/run"
	"github.com/skillkit/skillkit/internal/runstore"
	"github.com/skillkit/skillkit/internal/runstore/fsstore"
	"github.com/skillkit/skillkit/internal/testfs"
	"github.com/skillkit/skillkit/parse"
)

// TestFullDiskAtEveryWriteNamesTheRun fills the disk at each write of a
// short run in turn, from its first on (the disk stays full). Wherever
// it fills, a run that exists (its start was written) comes back as its
// RunError, interrupted, with its result: the command names it and
// prints its resume command. The start's snapshots and the end's (written
// before the end's line) returned a bare error, so the command said
// neither. A run that does not exist is nothing a reader finds.
func TestFullDiskAtEveryWriteNamesTheRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "two")
	testfs.WriteTree(t, dir, map[string]string{
		"SKILL.md":         "---\nname: two\ndescription: Two steps.\n---\n# Two\n",
		"phases/01-one.md": "# Phase 1: One\n\n## Execution Steps\n\n### Step 1: Echo\n\n```bash\necho one\n```\n\n### Step 2: Note\n\n```javascript\nreturn { stateUpdates: { 'context.one': true } };\n```\n",
	})
	s, err := parse.Dir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for n := int32(0); ; n++ {
		work := filepath.Join(t.TempDir(), "run")
		var writes atomic.Int32
		files := faultfs.Wrap(func(string) error {
			if writes.Add(1) > n {
				return syscall.ENOSPC
			}
			return nil
		})
		store := fsstore.New(fsstore.Options{NoSync: true, Files: files})
		res, err := run.Run(context.Background(), run.Options{Skill: s, Store: store, WorkDir: work, ProjectDir: work})
		if err == nil {
			if n == 0 {
				t.Fatal("the run wrote nothing through the store's files")
			}
			return
		}
		if !errors.Is(err, syscall.ENOSPC) {
			t.Fatalf("disk full from write %d: %v, want ENOSPC", n+1, err)
		}
		files.Fault = nil
		sum, serr := store.Status(work)
		if serr != nil {
			if res != nil {
				t.Errorf("disk full from write %d: no run, but a result %+v", n+1, res)
			}
			continue
		}
		var re *run.RunError
		if !errors.As(err, &re) || re.State != runstore.RunInterrupted || re.ID != sum.ID || res == nil || res.ID != sum.ID {
			t.Errorf("disk full from write %d: the run %s exists (%s), but the run returned %v (result %+v), not its RunError, interrupted", n+1, sum.ID, sum.State, err, res)
		}
		if sum.State.Terminal() {
			t.Errorf("disk full from write %d: the run is %s, want it resumable", n+1, sum.State)
		}
	}
}
