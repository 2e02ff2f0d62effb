package orchestrator_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/skillkit/skillkit/internal/faultfs"
	lifecycle "github.com/skillkit/skillkit/internal/run"
	"github.com/skillkit/skillkit/internal/runstore"
	"github.com/skillkit/skillkit/internal/runstore/fsstore"
)

// A power loss while several of a loop's completions share a sync not yet
// made (fsstore's group commit: the disk is slow, each sync takes a
// millisecond more, and the loop's pure actions run on) loses them all;
// the resume runs them again, and nothing else. Every fourth action has
// an effect (Bash appends its position to effects.log), which waits for
// the completions before it to be durable: so of the effects made before
// the cut, only the last one's action may run again (the action in
// flight, as after a kill), and no effect is ever made twice but that
// one. The cut is at the kth sync of the log, for several k: the log
// keeps what the syncs before it made durable, and that sync fails, so
// the process makes nothing more outside the record.
func TestPowerLossLosesOnlyPureCompletions(t *testing.T) {
	const n = 40
	lost := 0
	for _, k := range []int{3, 6, 10, 15} {
		t.Run("sync"+strconv.Itoa(k), func(t *testing.T) {
			lost = max(lost, powerLossAt(t, n, k))
		})
	}
	if lost < 2 {
		t.Errorf("no cut lost more than %d completions: the test did not cut while several shared a sync", lost)
	}
}

// powerLossAt runs a loop of n actions, cuts the power at the kth sync of
// its log, resumes what the power loss left, and returns how many
// completions the cut lost.
func powerLossAt(t *testing.T, n, k int) int {
	o := noopOptions(t, n, true)
	dir := o.Skill.Dir
	if err := os.WriteFile(filepath.Join(dir, "phases", "orchestrator.md"), []byte("# Orchestrator\n\n## Decision Logic\n\n```javascript\n"+
		"function selectNextAction(state) {\n  const i = state.completed_actions.length;\n  if (i >= state.limit) return null;\n  return i % 4 === 3 ? 'action-effect' : 'action-noop';\n}\n```\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "phases", "actions", "action-effect.md"), []byte("# Action: Effect\n\n## Execution\n\n```javascript\n"+
		"async function execute(state) {\n  await Bash('echo ' + state.completed_actions.length + ' >> effects.log');\n  return {};\n}\n```\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o.Skill = load(t, dir)
	base := o.ProjectDir
	image := filepath.Join(t.TempDir(), "image")
	var (
		mu              sync.Mutex
		syncs           int
		durable, losses int
	)
	files := faultfs.Wrap(nil)
	files.SyncFault = func(path string) error {
		if filepath.Base(path) != fsstore.EventsFile {
			return nil
		}
		mu.Lock()
		defer mu.Unlock()
		syncs++
		if syncs < k {
			time.Sleep(time.Millisecond)
			return nil
		}
		if syncs > k {
			return syscall.EIO
		}
		// The loop writes on during this sync, then the power goes: the
		// log keeps what the syncs before made durable.
		time.Sleep(3 * time.Millisecond)
		durable, losses = cutPower(t, path, files.Durable(fsstore.EventsFile), image)
		return syscall.EIO
	}
	o.Store = fsstore.New(fsstore.Options{Base: base, Files: files})
	res, err := lifecycle.Run(context.Background(), o)
	if !errors.Is(err, runstore.ErrWrite) {
		t.Fatalf("the run whose sync %d failed: %v, want a write error", k, err)
	}
	work := res.Dir
	before := effects(t, work)
	t.Logf("cut at sync %d: %d completions durable, %d more written, effects %v", k, durable, losses, before)
	for _, i := range before {
		// The effect of the action at position i waited for the i
		// completions before it.
		if i > durable {
			t.Errorf("the effect of action %d was made with %d completions durable", i, durable)
		}
	}

	// The resume reads the log as the power loss left it; it works in the
	// work dir the record names, the first run's.
	o.Resume = image
	o.Claim.Heartbeat = 10 * time.Millisecond
	o.Store = fsstore.New(fsstore.Options{Base: filepath.Dir(image)})
	res, err = lifecycle.Run(context.Background(), o)
	if err != nil {
		t.Fatalf("resuming after the power cut: %v", err)
	}
	if got := progress(t, res.Dir).StepsDone(); got != n {
		t.Fatalf("%d actions completed after the resume, want %d", got, n)
	}
	all := effects(t, work)
	want := []int{}
	for i := 3; i < n; i += 4 {
		want = append(want, i)
	}
	got := slices.Clone(all)
	if i := slices.Index(got, durable); i >= 0 && i+1 < len(got) && got[i+1] == durable {
		// The action in flight at the cut, the first the record lacks,
		// runs again, and may make its effect again.
		got = slices.Delete(got, i, i+1)
	}
	if !slices.Equal(got, want) {
		t.Errorf("effects after the resume %v (before the cut %v), want each of %v once (the action in flight at the cut may make its effect twice)", all, before, want)
	}
	return losses
}

// cutPower copies the log at path, cut to its durable prefix, into image
// as a power cut now would leave the run folder (its snapshots, written
// without syncs, lost; the log is the record), and returns how many
// completions it keeps and how many the cut took.
func cutPower(t *testing.T, path string, durable int64, image string) (kept, lost int) {
	data, err := os.ReadFile(path)
	if err == nil {
		err = os.MkdirAll(image, 0o755)
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(image, fsstore.EventsFile), data[:durable], 0o644)
	}
	if err != nil {
		t.Errorf("cutting the power: %v", err)
		return 0, 0
	}
	return completions(data[:durable]), completions(data[durable:])
}

// completions counts the actions' completion lines of a log.
func completions(log []byte) int {
	n := 0
	sc := bufio.NewScanner(bytes.NewReader(log))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e struct{ Action, To string }
		if json.Unmarshal(sc.Bytes(), &e) == nil && e.Action != "" && e.To == "completed" {
			n++
		}
	}
	return n
}

// effects are the positions effects.log in dir lists, in order.
func effects(t *testing.T, dir string) []int {
	data, err := os.ReadFile(filepath.Join(dir, "effects.log"))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, f := range strings.Fields(string(data)) {
		i, err := strconv.Atoi(f)
		if err != nil {
			t.Fatal(fmt.Errorf("effects.log: %w", err))
		}
		out = append(out, i)
	}
	return out
}
