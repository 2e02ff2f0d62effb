//go:build unix

package sequential_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/skillkit/skillkit/internal/crashtest"
	"github.com/skillkit/skillkit/internal/proc"
	"github.com/skillkit/skillkit/internal/runstore"
	"github.com/skillkit/skillkit/internal/runstore/fsstore"
)

// orphanStep is shell text that leaves a background child behind and
// notes its pid in bg.pids.
const orphanStep = "sleep 1000 & echo $! >> bg.pids;"

// alivePIDs returns the pids of bg.pids in dir whose process still runs.
func alivePIDs(t *testing.T, dir string) (alive, all int) {
	t.Helper()
	data, _ := os.ReadFile(filepath.Join(dir, "bg.pids"))
	for _, f := range strings.Fields(string(data)) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("bg.pids: %q", f)
		}
		all++
		if proc.Alive(pid) {
			alive++
		}
	}
	return alive, all
}

// waitOrphans waits until no background child of the run in dir runs, and
// returns how many still ran after a few seconds.
func waitOrphans(t *testing.T, dir string) int {
	t.Helper()
	for range 100 {
		if n, _ := alivePIDs(t, dir); n == 0 {
			return 0
		}
		time.Sleep(20 * time.Millisecond)
	}
	n, _ := alivePIDs(t, dir)
	return n
}

// Every step leaves `sleep 1000 &` behind. The step's end kills it; a
// runner killed with SIGKILL mid-step leaves its step's group, which the
// resume kills before it runs anything: after the resume nothing the run
// started runs.
//
// A `setsid` child leaves the step's group and session: the step's cgroup
// holds it, which the resume ends (F6, N14; skipped without a writable
// cgroup v2).
func TestKilledRunnerLeavesNoOrphans(t *testing.T) {
	if testing.Short() {
		t.Skip("kills child processes")
	}
	crashtest.Each(t, func(t *testing.T, b crashtest.Backend) {
		t.Run("group", func(t *testing.T) { killedRunner(t, b, orphanStep) })
		t.Run("setsid", func(t *testing.T) {
			if !cgroupsWritable() {
				t.Skip("cgroup v2 is not writable here")
			}
			killedRunner(t, b, "setsid "+orphanStep)
		})
	})
}

// cgroupsWritable reports whether this process may make cgroups, as the
// runner would.
func cgroupsWritable() bool {
	data, err := os.ReadFile("/proc/self/cgroup")
	if err != nil || !strings.Contains(string(data), "0::") {
		return false
	}
	for _, mount := range []string{"/sys/fs/cgroup/unified", "/sys/fs/cgroup"} {
		if _, err := os.Stat(filepath.Join(mount, "cgroup.procs")); err == nil {
			return syscall.Access(mount, 2) == nil
		}
	}
	return false
}

func killedRunner(t *testing.T, b crashtest.Backend, orphanStep string) {
	k := crashtest.NewKiller(t)
	skillDir := t.TempDir()
	const kills = 8
	orphaned, left := 0, 0
	for i := range kills {
		dir := filepath.Join(t.TempDir(), "run")
		after := k.Kill(t, helper(t, skillDir, "0.05", append(b.Env, "HELPER_WORKDIR="+dir, "HELPER_EXTRA="+orphanStep)...), 50*time.Millisecond, 300*time.Millisecond)
		what := "kill " + strconv.Itoa(i) + " after " + after.String()
		if n, _ := alivePIDs(t, dir); n > 0 {
			orphaned++
		}
		crashtest.Finish(t, what, dir, b.Store,
			func() *exec.Cmd {
				return helper(t, skillDir, "0.05", append(b.Env, "HELPER_RESUME="+dir, "HELPER_EXTRA="+orphanStep)...)
			},
			func() *exec.Cmd {
				return helper(t, skillDir, "0.05", append(b.Env, "HELPER_WORKDIR="+dir, "HELPER_EXTRA="+orphanStep)...)
			})
		if n := waitOrphans(t, dir); n > 0 {
			left += n
			t.Errorf("%s: %d background children outlived the run", what, n)
		}
		if _, all := alivePIDs(t, dir); all < 10 {
			t.Errorf("%s: %d background children started, want one per step at least", what, all)
		}
	}
	t.Logf("%d of %d kills left a step's background child running until the resume; %d outlived it", orphaned, kills, left)
}

// Deleting claim.json under a live run does not let a second process run
// steps beside it: the holder puts its claim back, or, when the second
// process claimed the run first, the holder gives the run up and kills
// its step before the second runs anything. Each step completes once.
func TestClaimDeletedUnderLiveRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs child processes")
	}
	skillDir := t.TempDir()
	for i, wait := range []time.Duration{0, 150 * time.Millisecond} {
		dir := filepath.Join(t.TempDir(), "run")
		beat := "HELPER_HEARTBEAT_MS=100"
		first := helper(t, skillDir, "0.1", "HELPER_WORKDIR="+dir, beat)
		var out1, out2 bytes.Buffer
		first.Stderr = &out1
		if err := first.Start(); err != nil {
			t.Fatal(err)
		}
		waitFor(t, filepath.Join(dir, "steps.log"))
		if err := os.Remove(filepath.Join(dir, fsstore.ClaimFile)); err != nil {
			t.Fatal(err)
		}
		// Right away, before the holder noticed, or after it did.
		time.Sleep(wait)
		second := helper(t, skillDir, "0.1", "HELPER_RESUME="+dir, beat)
		second.Stderr = &out2
		err2 := second.Run()
		err1 := first.Wait()
		t.Logf("case %d: holder: %v %s; second: %v %s", i, err1, &out1, err2, &out2)
		if p := progress(t, dir); p.RunState != runstore.RunCompleted {
			crashtest.Finish(t, "after the claim was deleted", dir, store("."),
				func() *exec.Cmd { return helper(t, skillDir, "0.1", "HELPER_RESUME="+dir) }, nil)
		}
		final := progress(t, dir)
		var ids []string
		for s := range final.CompletedSteps.All() {
			ids = append(ids, s.ID)
		}
		if final.RunState != runstore.RunCompleted || len(ids) != 10 {
			t.Fatalf("case %d: run ended %s with %d steps", i, final.RunState, len(ids))
		}
		crashtest.CountRuns(t, "claim deleted", filepath.Join(dir, "steps.log"), ids, func(string) bool { return false })
	}
}

// A holder frozen (SIGSTOP) past its claim timeout is taken over; once
// thawed, it finds its claim gone before its next write and stops without
// writing: the record the new holder finished is left as it was.
func TestFrozenHolderStopsBeforeWriting(t *testing.T) {
	if testing.Short() {
		t.Skip("runs child processes")
	}
	skillDir := t.TempDir()
	dir := filepath.Join(t.TempDir(), "run")
	claim := []string{"HELPER_HEARTBEAT_MS=50", "HELPER_TIMEOUT_MS=300"}
	first := helper(t, skillDir, "0.1", append(claim, "HELPER_WORKDIR="+dir)...)
	var out1 bytes.Buffer
	first.Stderr = &out1
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, filepath.Join(dir, "steps.log"))
	if err := first.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	time.Sleep(600 * time.Millisecond)
	if out, err := helper(t, skillDir, "0.05", append(claim, "HELPER_RESUME="+dir)...).CombinedOutput(); err != nil {
		t.Fatalf("taking over from a frozen holder: %v\n%s", err, out)
	}
	log := filepath.Join(dir, fsstore.EventsFile)
	before, _ := os.ReadFile(log)
	first.Process.Signal(syscall.SIGCONT)
	if err := first.Wait(); err == nil {
		t.Errorf("the thawed holder ended well; want it to stop on its lost claim")
	}
	if !strings.Contains(out1.String(), "another process") {
		t.Errorf("the thawed holder said %q, want that another process holds the run", &out1)
	}
	if after, _ := os.ReadFile(log); !bytes.Equal(before, after) {
		t.Errorf("the thawed holder wrote to the record:\n%s", after[len(before):])
	}
	final := progress(t, dir)
	var ids []string
	for s := range final.CompletedSteps.All() {
		ids = append(ids, s.ID)
	}
	if final.RunState != runstore.RunCompleted || len(ids) != 10 {
		t.Fatalf("run ended %s with %d steps", final.RunState, len(ids))
	}
	crashtest.CountRuns(t, "frozen holder", filepath.Join(dir, "steps.log"), ids, func(string) bool { return false })
}

// waitFor waits until the file path exists.
func waitFor(t *testing.T, path string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil {
			return
		}
	}
	t.Fatalf("%s never appeared", path)
}
