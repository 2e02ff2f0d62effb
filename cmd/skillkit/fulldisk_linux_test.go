//go:build linux

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/skillkit/skillkit/internal/runstore"
	"github.com/skillkit/skillkit/internal/runstore/fsstore"
	"github.com/skillkit/skillkit/internal/runstore/sqlstore"
	"github.com/skillkit/skillkit/internal/testfs"
)

// The tests of this file fill a real filesystem: a small tmpfs, which
// only root may mount. internal/faultfs makes a write fail where a test
// says; these let the kernel say ENOSPC wherever the disk runs out (a
// line of the log, a snapshot's temporary file, the claim, a step's
// log), and run the command as a user does.

// mountTmpfs mounts a tmpfs of size (mount's notation: 256k) on a fresh
// folder and unmounts it when the test ends, lazily if something still
// holds it. It skips the test where mounting is not allowed.
func mountTmpfs(t *testing.T, size string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("a real full disk needs a tmpfs, which only root may mount")
	}
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+size); err != nil {
		t.Skipf("cannot mount a tmpfs on %s (%v): a real full disk needs it", dir, err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, 0); err != nil {
			syscall.Unmount(dir, syscall.MNT_DETACH)
		}
	})
	return dir
}

// growTmpfs gives the tmpfs at dir room again, as a user frees space.
func growTmpfs(t *testing.T, dir, size string) {
	t.Helper()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", syscall.MS_REMOUNT, "size="+size); err != nil {
		t.Fatalf("growing the tmpfs: %v", err)
	}
}

// runCommand runs skillkit with args in dir and returns its exit code
// and stderr; stdout is dropped (a line per event).
func runCommand(t *testing.T, dir string, args ...string) (int, string) {
	t.Helper()
	cmd := skillkitCmd(t, args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		t.Fatalf("running skillkit %v: %v", args, err)
	}
	out := stderr.String()
	if strings.Contains(out, "panic:") || strings.Contains(out, "goroutine ") {
		t.Fatalf("skillkit %v panicked:\n%s", args, out)
	}
	return cmd.ProcessState.ExitCode(), out
}

// resumeLine is how the command says to continue a stopped run.
var resumeLine = regexp.MustCompile(`continue it with: skillkit (run \S+ --resume (\S+)[^\n]*)`)

// stopsOnFullDisk runs skillkit run SKILL in dir, where the disk fills,
// and checks what docs/runtime.md's failures table promises: exit 3, the
// run interrupted and named, the resume command printed, the file that
// failed named. It returns the resume command's arguments and the run's
// summary as it stopped.
func stopsOnFullDisk(t *testing.T, dir string, args ...string) ([]string, *runstore.Summary) {
	t.Helper()
	code, stderr := runCommand(t, dir, args...)
	if code != ExitInternal {
		t.Fatalf("exit %d, want %d (a disk error):\n%s", code, ExitInternal, stderr)
	}
	m := resumeLine.FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("no resume command:\n%s", stderr)
	}
	id := m[2]
	if !strings.Contains(stderr, "run "+id+" stopped") {
		t.Errorf("the message does not name the run %s:\n%s", id, stderr)
	}
	if !strings.Contains(stderr, "no space left on device") {
		t.Errorf("the message does not say the disk is full:\n%s", stderr)
	}
	runDir := filepath.Join(dir, ".skillkit", "runs", filepath.Base(args[1]), id)
	if !regexp.MustCompile(regexp.QuoteMeta(runDir) + `/\S+: `).MatchString(stderr) {
		t.Errorf("the message names no file of the run %s:\n%s", runDir, stderr)
	}
	sum, err := fsstore.New(fsstore.Options{}).Status(runDir)
	if err != nil {
		t.Fatal(err)
	}
	if sum.State != runstore.RunInterrupted {
		t.Fatalf("the run is %s, want interrupted:\n%s", sum.State, stderr)
	}
	t.Logf("stopped after %d steps:\n%s", sum.StepsDone, stderr)
	return strings.Fields(m[1]), sum
}

// resumes grows the disk, runs the printed resume command and checks
// that the run completed; it returns the run's summary.
func resumes(t *testing.T, dir string, resume []string) *runstore.Summary {
	t.Helper()
	growTmpfs(t, dir, "16m")
	code, stderr := runCommand(t, dir, resume...)
	if code != ExitOK {
		t.Fatalf("the resume exited %d:\n%s", code, stderr)
	}
	runDir := filepath.Join(dir, ".skillkit", "runs", resume[1], resumed(resume))
	sum, err := fsstore.New(fsstore.Options{}).Status(runDir)
	if err != nil {
		t.Fatal(err)
	}
	if sum.State != runstore.RunCompleted {
		t.Fatalf("the resumed run is %s, want completed", sum.State)
	}
	return sum
}

// effects reads the lines the skill's steps appended outside the disk
// that filled, one per step or action run, and fails the test when one
// ran twice that is not inFlight (the step the disk filled in, which
// the failures table says runs again).
func effects(t *testing.T, file, inFlight string) []string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Fields(string(data))
	seen := map[string]int{}
	for _, l := range lines {
		seen[l]++
		if seen[l] == 2 && l != inFlight {
			t.Errorf("%s ran twice, and it was not the one in flight when the disk filled (%s)", l, inFlight)
		}
	}
	unique := make([]string, 0, len(seen))
	for _, l := range lines {
		if seen[l] > 0 {
			unique = append(unique, l)
			seen[l] = 0
		}
	}
	return unique
}

// A loop whose record fills the disk stops interrupted, exit 3, with
// the resume command; on a larger disk the resume finishes it, no
// completed action run again and no update lost.
//
// Each size fills at another point of the loop, so that the write the
// kernel refuses first differs: a line, a snapshot, a checkpoint.
func TestFullDiskStopsTheLoopResumable(t *testing.T) {
	for _, size := range []string{"64k", "96k", "128k", "160k", "192k", "224k"} {
		t.Run(size, func(t *testing.T) { loopFillsTheDisk(t, size) })
	}
}

func loopFillsTheDisk(t *testing.T, size string) {
	const n = 150 // past --max-iterations' default: the resume must repeat the flag
	dir := mountTmpfs(t, size)
	effectsFile := filepath.Join(t.TempDir(), "effects")
	writeFillSkill(t, dir, effectsFile, n, 0)
	resume, stopped := stopsOnFullDisk(t, dir, "run", "fill", "--max-iterations", "1000")
	if !strings.HasSuffix(strings.Join(resume, " "), "--max-iterations 1000") {
		t.Errorf("the resume command %q does not repeat --max-iterations 1000", resume)
	}
	if stopped.StepsDone == 0 || stopped.StepsDone >= n {
		t.Fatalf("the disk filled after %d of %d actions: the test's sizes no longer fill it mid-loop", stopped.StepsDone, n)
	}
	sum := resumes(t, dir, resume)
	if sum.StepsDone != n {
		t.Errorf("%d actions done, want %d", sum.StepsDone, n)
	}
	if got := sum.LastState["n"]; got != float64(n) {
		t.Errorf("state.n = %v, want %d: an update was lost", got, n)
	}
	if got := sum.LastState["completed_actions"].([]any); len(got) != n {
		t.Errorf("%d completed_actions, want %d", len(got), n)
	}
	ran := effects(t, effectsFile, fmt.Sprint(stopped.StepsDone))
	if len(ran) != n {
		t.Errorf("%d distinct actions ran, want %d: %v", len(ran), n, ran)
	}
	checkSnapshot(t, filepath.Join(dir, ".skillkit", "runs", "fill", resumed(resume), "state.json"), "n", float64(n))
}

// A sequential skill whose steps' output fills the disk (their logs and
// the record) stops interrupted, exit 3, with the resume command; on a
// larger disk the resume finishes it, each step run once but the one in
// flight, and every phase's state update kept.
func TestFullDiskStopsASequentialRunResumable(t *testing.T) {
	for _, size := range []string{"96k", "160k", "224k", "256k", "288k"} {
		t.Run(size, func(t *testing.T) { stepsFillTheDisk(t, size) })
	}
}

func stepsFillTheDisk(t *testing.T, size string) {
	dir := mountTmpfs(t, size)
	effectsFile := filepath.Join(t.TempDir(), "effects")
	const phases, steps = 4, 10
	writePrintSkill(t, dir, effectsFile, phases, steps)
	resume, stopped := stopsOnFullDisk(t, dir, "run", "print")
	total := phases * (steps + 1)
	if stopped.StepsDone == 0 || stopped.StepsDone >= total {
		t.Fatalf("the disk filled after %d of %d steps: the test's sizes no longer fill it mid-run", stopped.StepsDone, total)
	}
	// The step after the last done is the one the disk filled in.
	next := stopped.StepsDone + 1
	inFlight := fmt.Sprintf("%d-%d", (next-1)/(steps+1)+1, (next-1)%(steps+1)+1)
	sum := resumes(t, dir, resume)
	if sum.StepsDone != total {
		t.Errorf("%d steps done, want %d", sum.StepsDone, total)
	}
	ran := effects(t, effectsFile, inFlight)
	if len(ran) != phases*steps {
		t.Errorf("%d distinct bash steps ran, want %d: %v", len(ran), phases*steps, ran)
	}
	ctx, _ := sum.LastState["context"].(map[string]any)
	for p := 1; p <= phases; p++ {
		if ctx[fmt.Sprintf("p%d", p)] != true {
			t.Errorf("state.context.p%d lost: %v", p, sum.LastState)
		}
	}
}

// checkSnapshot reads a JSON snapshot the run left and checks one field.
func checkSnapshot(t *testing.T, file, field string, want any) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	if v[field] != want {
		t.Errorf("%s: %s = %v, want %v", file, field, v[field], want)
	}
}

// writePrintSkill writes the skill print in dir: phases of steps that
// each note themselves in effectsFile (p-s) and print 8 KB, which goes to
// the step's log in the run folder, and a last JS step per phase that
// sets state.context.pN.
func writePrintSkill(t *testing.T, dir, effectsFile string, phases, steps int) {
	t.Helper()
	files := map[string]string{"print/SKILL.md": "---\nname: print\ndescription: Steps that print 8 KB each and note themselves outside the disk.\n---\n# Print\n"}
	for p := 1; p <= phases; p++ {
		var b strings.Builder
		fmt.Fprintf(&b, "# Phase %d: Print\n\n## Execution Steps\n\n", p)
		for s := 1; s <= steps; s++ {
			fmt.Fprintf(&b, "### Step %d: Print\n\n```bash\necho %d-%d >> %s\nhead -c 8000 /dev/zero | tr '\\0' x\n```\n\n", s, p, s, effectsFile)
		}
		fmt.Fprintf(&b, "### Step %d: Note\n\n```javascript\nreturn { stateUpdates: { 'context.p%d': true } };\n```\n", steps+1, p)
		files[fmt.Sprintf("print/phases/%02d-print.md", p)] = b.String()
	}
	testfs.WriteTree(t, dir, files)
}

// A disk full as the run starts, for every amount of room from none to
// a few pages: the run folder cannot be made, or its claim, state.json or
// first lines cannot be written. The command exits 3 and names the file;
// it leaves no temporary file; a run that exists is named with its resume
// command, which finishes it once there is room, and where none exists a
// later run in the same folder starts and completes. `skillkit runs`
// reads what is left.
func TestFullDiskAtTheStart(t *testing.T) {
	skills := []struct {
		name string
		// most is the most room tried, in KB: past it the run fits.
		most  int
		write func(t *testing.T, dir, effectsFile string)
	}{
		{"print", 32, func(t *testing.T, dir, effectsFile string) { writePrintSkill(t, dir, effectsFile, 1, 2) }},
		// A first line of 10 KB, which a full disk cuts at a page.
		{"fill", 64, func(t *testing.T, dir, effectsFile string) { writeFillSkill(t, dir, effectsFile, 5, 10000) }},
	}
	for _, skill := range skills {
		for _, workdir := range []bool{false, true} {
			for free := 0; free <= skill.most; free += 4 {
				t.Run(fmt.Sprintf("%s/workdir=%v/free=%dk", skill.name, workdir, free), func(t *testing.T) {
					startsOnAFullDisk(t, skill.name, skill.write, workdir, free)
				})
			}
		}
	}
}

// startsOnAFullDisk runs a new run of the skill write makes on a tmpfs
// with free KB of room, and checks what TestFullDiskAtTheStart says.
func startsOnAFullDisk(t *testing.T, name string, write func(t *testing.T, dir, effectsFile string), workdir bool, free int) {
	dir := mountTmpfs(t, "256k")
	write(t, dir, filepath.Join(t.TempDir(), "effects"))
	filler := fillTo(t, dir, free)
	args := []string{"run", name}
	if workdir {
		args = append(args, "--workdir", "w")
	}
	code, stderr := runCommand(t, dir, args...)
	if code == ExitOK {
		t.Skipf("the run fit in %d KB", free)
	}
	if code != ExitInternal {
		t.Fatalf("exit %d, want %d (a disk error):\n%s", code, ExitInternal, stderr)
	}
	if !strings.Contains(stderr, "no space left on device") || !strings.Contains(stderr, dir+"/") {
		t.Errorf("the message does not name the file the full disk refused:\n%s", stderr)
	}
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && runstore.IsTemp(d.Name()) {
			t.Errorf("a temporary file is left: %s", path)
		}
		return nil
	})
	if code, out := runCommand(t, dir, "runs"); code != ExitOK {
		t.Errorf("skillkit runs exited %d after the failed start:\n%s", code, out)
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	m := resumeLine.FindStringSubmatch(stderr)
	if m != nil {
		// No path here needs quotes but for '=' (free=…).
		args = strings.Fields(strings.ReplaceAll(m[1], "'", ""))
	} else if runs := runsIn(t, dir); len(runs) > 0 {
		t.Errorf("the start left the run %v and did not say how to resume it:\n%s", runs, stderr)
	}
	if code, out := runCommand(t, dir, args...); code != ExitOK {
		t.Errorf("after the failed start, skillkit %v exited %d:\n%s\nthe start said:\n%s", args, code, out, stderr)
	}
}

// fillTo fills the tmpfs at dir with a file until free KB are left, and
// returns the file.
func fillTo(t *testing.T, dir string, free int) string {
	t.Helper()
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	filler := filepath.Join(dir, "filler")
	size := int64(st.Bavail)*st.Bsize - int64(free)*1024
	if err := os.WriteFile(filler, make([]byte, max(size, 0)), 0o644); err != nil {
		t.Fatal(err)
	}
	return filler
}

// runsIn lists the run folders under dir that hold a run a resume reads:
// those of .skillkit/runs and the work dir w.
func runsIn(t *testing.T, dir string) []string {
	t.Helper()
	folders, _ := filepath.Glob(filepath.Join(dir, ".skillkit", "runs", "*", "*"))
	var runs []string
	for _, f := range append(folders, filepath.Join(dir, "w")) {
		if _, err := fsstore.New(fsstore.Options{}).Status(f); err == nil {
			runs = append(runs, f)
		}
	}
	return runs
}

// writeFillSkill writes the skill fill in dir: a loop of n actions, each
// noting state.n in effectsFile and adding 3 KB to the state; its
// initial state holds a string of pad bytes, which the run's first line
// carries whole.
func writeFillSkill(t *testing.T, dir, effectsFile string, n, pad int) {
	t.Helper()
	testfs.WriteTree(t, dir, map[string]string{
		"fill/SKILL.md":               "---\nname: fill\ndescription: A loop whose every action adds a 3 KB field to the state and notes itself outside the disk.\n---\n# Fill\n",
		"fill/phases/orchestrator.md": fmt.Sprintf("# Orchestrator\n\n## Decision Logic\n\n```javascript\nfunction selectNextAction(state) {\n  return state.n < %d ? 'action-add' : null;\n}\n```\n", n),
		"fill/phases/actions/action-add.md": fmt.Sprintf("# Action: Add\n\n## Execution\n\n```javascript\nfunction execute(state) {\n"+
			"  Bash('echo ' + state.n + ' >> %s');\n"+
			"  return { stateUpdates: { n: state.n + 1, ['pad' + (state.n %% 4)]: 'x'.repeat(3000) + state.n } };\n}\n```\n", effectsFile),
		"fill/phases/state-schema.md": "# State Schema\n\n```typescript\ninterface FillState {\n  status: 'pending' | 'running' | 'completed' | 'failed';\n  current_action: string | null;\n  completed_actions: string[];\n  errors: Array<{ action: string; message: string; timestamp: string }>;\n  error_count: number;\n  n: number;\n  pad: string;\n}\n```\n\n## Initial State\n\n```json\n{\n  \"status\": \"running\",\n  \"current_action\": null,\n  \"completed_actions\": [],\n  \"errors\": [],\n  \"error_count\": 0,\n  \"n\": 0,\n  \"pad\": \"" + strings.Repeat("x", pad) + "\"\n}\n```\n",
	})
}

// resumed is the run a resume command's arguments name.
func resumed(args []string) string {
	for i, a := range args[:len(args)-1] {
		if a == "--resume" {
			return args[i+1]
		}
	}
	return ""
}

// TestWorkerOnAFullDisk: a worker whose SQLite database fills the disk
// in the middle of a run rides it out for --outage, then stops, as it
// does for any database away longer than that: it exits 3, saying the
// disk is full, and leaves the task working for recover, with its run
// resumable. It went on polling for ever instead, the task left in error
// with the disk's message for the conductor. Once the disk has room, the
// conductor's recover and the next worker finish the task, each step run
// once but the one in flight.
func TestWorkerOnAFullDisk(t *testing.T) {
	disk := mountTmpfs(t, "1m")
	dir := t.TempDir()
	marks := filepath.Join(dir, "marks")
	testfs.WriteTree(t, dir, map[string]string{
		"big/SKILL.md": "---\nname: big\ndescription: Writes much.\n---\n# Big\n",
		"big/phases/01-a.md": "# Phase 1: A\n## Execution Steps\n### Step 1: Small\n```bash\necho 1 >> " + marks + "\n```\n" +
			"### Step 2: Large\n```bash\necho 2 >> " + marks + "\nhead -c 400000 /dev/zero | tr '\\0' x\n```\n" +
			"### Step 3: Small\n```bash\necho 3 >> " + marks + "\n```\n",
	})
	db := "sqlite:" + filepath.Join(disk, "tasks.db")
	if code, stderr := runCommand(t, dir, "task", "add", filepath.Join(dir, "big"), "--db", db); code != ExitOK {
		t.Fatalf("task add: exit %d: %s", code, stderr)
	}
	var st syscall.Statfs_t
	if err := syscall.Statfs(disk, &st); err != nil {
		t.Fatal(err)
	}
	free := int(st.Bavail) * int(st.Bsize)
	testfs.WriteFile(t, filepath.Join(disk, "filler"), strings.Repeat("f", max(free-250<<10, 0)))

	cmd := skillkitCmd(t, "worker", "--db", db, "--outage", "2s", "--poll", "100ms", "--name", "w1")
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("the worker did not stop within 30 s of a full disk (--outage 2s):\n%s", &out)
	}
	if code := cmd.ProcessState.ExitCode(); code != ExitInternal || !strings.Contains(out.String(), "database or disk is full") {
		t.Fatalf("exit %d, want %d saying the disk is full:\n%s", code, ExitInternal, &out)
	}
	k := taskOf(t, db)
	if k.State != sqlstore.Working || k.RunID == "" {
		t.Fatalf("the task is %s (%s), want working for recover:\n%s", k.State, k.Message, &out)
	}

	growTmpfs(t, disk, "16m")
	if code, stderr := runCommand(t, dir, "recover", "--db", db, "--stale-after", "0s"); code != ExitOK {
		t.Fatalf("recover: exit %d: %s", code, stderr)
	}
	if code, stderr := runCommand(t, dir, "worker", "--db", db, "--until-idle", "--poll", "100ms"); code != ExitOK {
		t.Fatalf("the next worker: exit %d: %s", code, stderr)
	}
	if k := taskOf(t, db); k.State != sqlstore.Complete {
		t.Fatalf("the task is %s (%s), want complete", k.State, k.Message)
	}
	if got := effects(t, marks, "2"); strings.Join(got, " ") != "1 2 3" {
		t.Errorf("steps ran %v", got)
	}
}

// TestSQLiteOnAReadOnlyDisk: a database of tasks whose file system was
// made read-only: the commands that open it exit 3 and say why, naming
// the folder, rather than SQLite's "unable to open database file".
func TestSQLiteOnAReadOnlyDisk(t *testing.T) {
	disk := mountTmpfs(t, "4m")
	dir := t.TempDir()
	testfs.WriteTree(t, dir, map[string]string{
		"s/SKILL.md":       "---\nname: s\ndescription: S.\n---\n# S\n",
		"s/phases/01-a.md": "# Phase 1: A\n## Execution Steps\n### Step 1: A\n```bash\necho hi\n```\n",
	})
	db := "sqlite:" + filepath.Join(disk, "tasks.db")
	if code, stderr := runCommand(t, dir, "task", "add", filepath.Join(dir, "s"), "--db", db); code != ExitOK {
		t.Fatalf("task add: exit %d: %s", code, stderr)
	}
	if err := syscall.Mount("tmpfs", disk, "tmpfs", syscall.MS_REMOUNT|syscall.MS_RDONLY, ""); err != nil {
		t.Fatalf("making the tmpfs read-only: %v", err)
	}
	for _, args := range [][]string{{"tasks"}, {"worker", "--until-idle"}, {"task", "add", filepath.Join(dir, "s")}} {
		code, stderr := runCommand(t, dir, append(args, "--db", db)...)
		if code != ExitInternal || !strings.Contains(stderr, disk+" is not writable") || !strings.Contains(stderr, "read-only file system") {
			t.Errorf("%v: exit %d, want %d saying the folder is read-only:\n%s", args, code, ExitInternal, stderr)
		}
	}
}

// TestRecordTestOnAFullDisk: --record-test into a skill whose disk fills
// while the cassette is written. The cassette's own error ("no space
// left") was lost behind the test file's, and an empty test file and a
// cut cassette were left, a test case that says nothing; now the command
// exits 3 naming the cassette, and leaves neither file, with the disk
// full or once the test file itself does not fit.
func TestRecordTestOnAFullDisk(t *testing.T) {
	for _, room := range []int{0, 4 << 10, 12 << 10, 20 << 10, 24 << 10, 32 << 10} {
		t.Run(fmt.Sprint(room), func(t *testing.T) {
			disk := mountTmpfs(t, "96k")
			skill := filepath.Join(disk, "agent-driven")
			must(t, os.CopyFS(skill, os.DirFS(filepath.Join(repoRoot(t), "examples", "agent-driven"))))
			must(t, os.RemoveAll(filepath.Join(skill, "tests")))
			var st syscall.Statfs_t
			must(t, syscall.Statfs(disk, &st))
			free := int(st.Bavail) * int(st.Bsize)
			testfs.WriteFile(t, filepath.Join(disk, "filler"), strings.Repeat("f", max(free-room, 0)))
			dir := t.TempDir()
			code, stderr := runCommand(t, dir, "run", skill, "--agent", filepath.Join(skill, "fake-agent.sh"), "--record-test", "full", "--workdir", filepath.Join(dir, "work"))
			if code == ExitOK {
				// The disk had room enough: the test must replay.
				if code, stderr := runCommand(t, dir, "test", skill); code != ExitOK {
					t.Errorf("the recorded test: exit %d: %s", code, stderr)
				}
				return
			}
			t.Logf("exit %d:\n%s", code, stderr)
			if code != ExitInternal || !strings.Contains(stderr, "no space left on device") || !strings.Contains(stderr, "tests/full.") {
				t.Errorf("exit %d, want %d naming the file and the full disk:\n%s", code, ExitInternal, stderr)
			}
			for _, f := range []string{"full.yaml", "full.cassette.jsonl"} {
				if _, err := os.Stat(filepath.Join(skill, "tests", f)); err == nil {
					t.Errorf("a failed recording left tests/%s:\n%s", f, stderr)
				}
			}
		})
	}
}

// TestUpdateOnAFullDiskKeepsTheCassette: skillkit test --update on a
// disk with no room for the new cassette: the case fails saying so, and
// the cassette it had stays as it was. It was truncated in place, and
// the case's recording was lost.
func TestUpdateOnAFullDiskKeepsTheCassette(t *testing.T) {
	disk := mountTmpfs(t, "128k")
	skill := filepath.Join(disk, "agent-driven")
	must(t, os.CopyFS(skill, os.DirFS(filepath.Join(repoRoot(t), "examples", "agent-driven"))))
	cassette := filepath.Join(skill, "tests", "basic.cassette.jsonl")
	before, err := os.ReadFile(cassette)
	must(t, err)
	// The agent now says more: the new cassette is larger than the old
	// one and the room left together.
	agentCmd := filepath.Join(skill, "fake-agent.sh")
	script, err := os.ReadFile(agentCmd)
	must(t, err)
	must(t, os.WriteFile(agentCmd, []byte(strings.Replace(string(script), `echo "Three sections will do."`, `echo "Three sections will do."; head -c 40000 /dev/zero | tr '\0' y; echo`, 1)), 0o755))
	var st syscall.Statfs_t
	must(t, syscall.Statfs(disk, &st))
	testfs.WriteFile(t, filepath.Join(disk, "filler"), strings.Repeat("f", max(int(st.Bavail)*int(st.Bsize)-4<<10, 0)))
	code, out, stderr := run("test", skill, "--update", "--agent", agentCmd)
	if code == ExitOK || !strings.Contains(out+stderr, "no space left on device") {
		t.Errorf("--update on a full disk: exit %d, want a failure saying the disk is full:\n%s%s", code, out, stderr)
	}
	if after, err := os.ReadFile(cassette); err != nil || !bytes.Equal(after, before) {
		t.Errorf("the cassette changed (%d bytes, was %d): %v", len(after), len(before), err)
	}
	entries, _ := os.ReadDir(filepath.Join(skill, "tests"))
	if len(entries) != 2 {
		t.Errorf("tests/ holds %d files after the failed update, want its 2", len(entries))
	}
}
