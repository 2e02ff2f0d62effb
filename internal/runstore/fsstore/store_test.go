package fsstore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/skillkit/skillkit/internal/proc"
	"github.com/skillkit/skillkit/internal/runstore"
)

// counting counts the syncs of events.jsonl and can make writes fail.
type counting struct {
	runstore.OS
	syncs atomic.Int32
	fault func(path string) error
}

func (c *counting) OpenAppend(path string) (runstore.AppendFile, error) {
	f, err := c.OS.OpenAppend(path)
	if err != nil {
		return nil, err
	}
	return &countingFile{AppendFile: f, c: c, path: path}, nil
}

type countingFile struct {
	runstore.AppendFile
	c    *counting
	path string
}

func (f *countingFile) Write(p []byte) (int, error) {
	if f.c.fault != nil {
		if err := f.c.fault(f.path); err != nil {
			n, _ := f.AppendFile.Write(p[:len(p)/2])
			return n, err
		}
	}
	return f.AppendFile.Write(p)
}

func (f *countingFile) Sync() error {
	if filepath.Base(f.path) == EventsFile {
		f.c.syncs.Add(1)
	}
	return f.AppendFile.Sync()
}

func newStore(t *testing.T, files runstore.Files) runstore.Store {
	t.Helper()
	return New(Options{Base: t.TempDir(), Files: files})
}

func newRun(t *testing.T, s runstore.Store, id string) runstore.Run {
	t.Helper()
	r, err := s.Create(runstore.NewRun{Start: runstore.Start{RunID: id, Skill: "demo", StartedAt: time.Now().UTC()}, State: map[string]any{"n": 0.0}}, runstore.ClaimOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func step(r runstore.Run, id string, n float64) error {
	if err := r.Append(runstore.Event{Phase: "01-a", Step: id, To: "pending"}); err != nil {
		return err
	}
	r.SetState(map[string]any{"n": n})
	return r.Commit(runstore.Event{Phase: "01-a", Step: id, From: "executing", To: "completed", Record: &runstore.StepRecord{ID: id, Status: runstore.StatusPass, Result: runstore.StepCompleted}})
}

// A resume rebuilds from the log exactly what the run had: progress and
// state, and the snapshots with them.
func TestResumeRebuildsFromTheLog(t *testing.T) {
	s := newStore(t, nil)
	r := newRun(t, s, "r1")
	for i := 1; i <= 3; i++ {
		if err := step(r, "01-a#"+strconv.Itoa(i), float64(i)); err != nil {
			t.Fatal(err)
		}
	}
	want := r.Progress()
	dir := r.Where()
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, StateFile))
	os.WriteFile(filepath.Join(dir, ProgressFile), []byte("garbage: ["), 0o644)

	back, err := s.Resume("r1", runstore.ResumeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer back.Close()
	got := back.Progress()
	wj, _ := json.Marshal(want)
	gj, _ := json.Marshal(got)
	if string(wj) != string(gj) {
		t.Errorf("progress after resume:\n%s\nwant\n%s", gj, wj)
	}
	if back.State()["n"] != 3.0 {
		t.Errorf("state after resume = %v", back.State())
	}
	var st map[string]any
	data, err := os.ReadFile(filepath.Join(dir, StateFile))
	if err != nil || json.Unmarshal(data, &st) != nil || st["n"] != 3.0 {
		t.Errorf("state.json not rebuilt: %s %v", data, err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, ProgressFile)); !strings.Contains(string(data), `id: "01-a#3"`) {
		t.Errorf("skill-state.yaml not rebuilt:\n%s", data)
	}
}

// One sync per commit, none for the events inside a group.
func TestOneSyncPerCommit(t *testing.T) {
	files := &counting{}
	s := New(Options{Base: t.TempDir(), Files: files})
	r := newRun(t, s, "r1")
	defer r.Close()
	before := files.syncs.Load()
	for i := 1; i <= 50; i++ {
		if err := step(r, "01-a#"+strconv.Itoa(i), float64(i)); err != nil {
			t.Fatal(err)
		}
	}
	if n := files.syncs.Load() - before; n != 50 {
		t.Errorf("50 steps of 2 events made %d syncs of the log, want 50", n)
	}
}

// A torn last line is a killed writer's: ignored, with a note. Damage
// further up is reported with its position, and nothing is reset.
func TestTornAndDamagedLog(t *testing.T) {
	s := newStore(t, nil)
	r := newRun(t, s, "r1")
	step(r, "01-a#1", 1)
	dir := r.Where()
	r.Close()
	log := filepath.Join(dir, EventsFile)
	good, _ := os.ReadFile(log)

	os.WriteFile(log, append(slices.Clone(good), `{"time":"2026-01-02T03:04:05Z","ph`...), 0o644)
	back, err := s.Resume("r1", runstore.ResumeOptions{})
	if err != nil {
		t.Fatalf("resume over a torn last line: %v", err)
	}
	if notes := back.Notes(); len(notes) != 1 || !strings.Contains(notes[0], "events.jsonl:4: the last line was cut short") {
		t.Errorf("notes = %q", notes)
	}
	if !back.Progress().StepDone("01-a#1") {
		t.Error("a completed step was lost")
	}
	// The next event starts on a line of its own.
	step(back, "01-a#2", 2)
	back.Close()
	sum, err := s.Status("r1")
	if err != nil || sum.Progress.CompletedSteps.Len() != 2 {
		t.Fatalf("after writing past a torn line: %v, %+v", err, sum)
	}

	lines := strings.SplitAfter(string(good), "\n")
	lines[1] = `{"time": nonsense}` + "\n"
	os.WriteFile(log, []byte(strings.Join(lines, "")), 0o644)
	_, err = s.Resume("r1", runstore.ResumeOptions{})
	if !errors.Is(err, runstore.ErrCorrupt) || !strings.Contains(err.Error(), "events.jsonl:2:11: ") {
		t.Fatalf("resume over a damaged line: %v, want its position", err)
	}
	if _, err := os.Stat(filepath.Join(dir, ClaimFile)); err == nil {
		t.Error("a refused resume left its claim behind")
	}
}

// A full disk fails the write, and leaves the record readable: the cut
// line is skipped, the lines before it stand.
func TestDiskFullLeavesRecordReadable(t *testing.T) {
	files := &counting{}
	s := New(Options{Base: t.TempDir(), Files: files, NoSync: true})
	r := newRun(t, s, "r1")
	step(r, "01-a#1", 1)
	files.fault = func(string) error { return syscall.ENOSPC }
	err := step(r, "01-a#2", 2)
	if !errors.Is(err, syscall.ENOSPC) || !errors.Is(err, runstore.ErrWrite) {
		t.Fatalf("step on a full disk: %v", err)
	}
	if r.Progress().StepDone("01-a#2") {
		t.Error("an event that could not be written changed the progress")
	}
	files.fault = nil
	if err := step(r, "01-a#3", 3); err != nil {
		t.Fatal(err)
	}
	r.Close()
	sum, err := s.Status("r1")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rec := range sum.Progress.CompletedSteps.All() {
		got = append(got, rec.ID)
	}
	if strings.Join(got, " ") != "01-a#1 01-a#3" || sum.LastState["n"] != 3.0 {
		t.Errorf("after a full disk: steps %v, state %v", got, sum.LastState)
	}
}

// Checkpoints ride on the next event and are written as threads/<n>.json
// with the snapshots; their numbers go on across a resume.
func TestCheckpointsFromTheLog(t *testing.T) {
	s := newStore(t, nil)
	r := newRun(t, s, "r1")
	r.Checkpoint("auto_checkpoint", runstore.Worker{ID: "01-a", Skill: "demo", State: "completed"})
	step(r, "01-a#1", 1)
	dir := r.Where()
	r.Close()
	os.RemoveAll(filepath.Join(dir, ThreadsDir))
	back, err := s.Resume("r1", runstore.ResumeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	back.Checkpoint("checkpoint_error_state", runstore.Worker{ID: "01-b", Skill: "demo", State: "error"})
	step(back, "01-b#1", 2)
	back.Close()
	// Each holds the state as it was when its hook took it.
	for n, want := range map[int]string{1: `"hook":"auto_checkpoint","state":{"n":0}`, 2: `"hook":"checkpoint_error_state","state":{"n":1}`} {
		data, err := os.ReadFile(filepath.Join(dir, ThreadsDir, strconv.Itoa(n)+".json"))
		if err != nil || !strings.Contains(string(data), want) || !strings.HasPrefix(string(data), `{"n":`+strconv.Itoa(n)+",") {
			t.Errorf("threads/%d.json = %s, %v; want %s", n, data, err, want)
		}
	}
}

func TestCreateRefusesExistingRun(t *testing.T) {
	s := newStore(t, nil)
	r := newRun(t, s, "r1")
	dir := r.Where()
	r.Close()
	_, err := s.Create(runstore.NewRun{Start: runstore.Start{RunID: "r2", Skill: "demo"}, WorkDir: dir}, runstore.ClaimOptions{})
	if !errors.Is(err, runstore.ErrExists) || !strings.Contains(err.Error(), "--resume") {
		t.Fatalf("Create over a run: err = %v, want a hint to resume", err)
	}
}

func TestResumeRefusesFinishedRun(t *testing.T) {
	s := newStore(t, nil)
	r := newRun(t, s, "r1")
	r.Commit(runstore.Event{From: "running", To: "completed"})
	r.Close()
	if _, err := s.Resume("r1", runstore.ResumeOptions{}); !errors.Is(err, runstore.ErrTerminal) {
		t.Fatalf("resume of a completed run: %v", err)
	}
}

func TestClaimSecondRefusedNamingHolder(t *testing.T) {
	s := newStore(t, nil)
	r := newRun(t, s, "r1")
	_, err := s.Resume("r1", runstore.ResumeOptions{})
	var ce *runstore.ClaimedError
	if !errors.As(err, &ce) {
		t.Fatalf("second claim: err = %v, want *ClaimedError", err)
	}
	host, _ := os.Hostname()
	if want := strconv.Itoa(os.Getpid()) + "@" + host; !strings.Contains(err.Error(), want) {
		t.Errorf("refusal %q does not name %s", err, want)
	}
	r.Close()
	again, err := s.Resume("r1", runstore.ResumeOptions{})
	if err != nil {
		t.Fatalf("claim after release: %v", err)
	}
	again.Close()
}

func TestClaimTakeover(t *testing.T) {
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skip("no true command:", err)
	}
	host, _ := os.Hostname()
	tests := []struct {
		name  string
		claim ClaimInfo
		taken bool
	}{
		{"dead process on this host", ClaimInfo{PID: dead.Process.Pid, Host: host, Heartbeat: time.Now(), TimeoutMS: 60000}, true},
		{"old heartbeat on another host", ClaimInfo{PID: 1, Host: "elsewhere", Heartbeat: time.Now().Add(-time.Hour), TimeoutMS: 1000}, true},
		{"fresh heartbeat on another host", ClaimInfo{PID: 1, Host: "elsewhere", Heartbeat: time.Now(), TimeoutMS: 60000}, false},
		{"live process on this host", ClaimInfo{PID: os.Getpid(), Host: host, Heartbeat: time.Now(), TimeoutMS: 60000}, false},
		// A heartbeat from the future is clock skew: the pid decides on
		// this host; elsewhere the resume watches the heartbeat stand
		// still for a lease (one second here), and takes the run over.
		{"future heartbeat, live process on this host", ClaimInfo{PID: os.Getpid(), Host: host, Heartbeat: time.Now().Add(time.Hour), TimeoutMS: 1000}, false},
		{"future heartbeat, dead process on this host", ClaimInfo{PID: dead.Process.Pid, Host: host, Heartbeat: time.Now().Add(time.Hour), TimeoutMS: 60000}, true},
		{"future heartbeat, old file on another host", ClaimInfo{PID: 1, Host: "elsewhere", Heartbeat: time.Now().Add(time.Hour), TimeoutMS: 1000}, true},
		{"released", ClaimInfo{PID: os.Getpid(), Host: host, Heartbeat: time.Now(), TimeoutMS: 60000, Released: true}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStore(t, nil)
			r := newRun(t, s, "r1")
			dir := r.Where()
			r.Close()
			data, _ := json.Marshal(tt.claim)
			os.WriteFile(filepath.Join(dir, ClaimFile), data, 0o644)
			back, err := s.Resume("r1", runstore.ResumeOptions{})
			if tt.taken != (err == nil) {
				t.Fatalf("Resume err = %v, want taken = %v", err, tt.taken)
			}
			if back != nil {
				got, _ := readClaim(dir)
				if got.PID != os.Getpid() {
					t.Errorf("claim.json holds pid %d after takeover", got.PID)
				}
				back.Close()
			}
		})
	}
}

func TestClaimHeartbeatAndLoss(t *testing.T) {
	s := newStore(t, nil)
	r, err := s.Create(runstore.NewRun{Start: runstore.Start{RunID: "r1", Skill: "demo"}}, runstore.ClaimOptions{Heartbeat: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	dir := r.Where()
	first, _ := readClaim(dir)
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		cur, err := readClaim(dir)
		if err == nil && cur.Heartbeat.After(first.Heartbeat) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("heartbeat was never refreshed")
		}
	}
	// Another process took the run over: the holder must notice. The
	// other writer takes the claim lock, as a real takeover does: without
	// it the holder's heartbeat, between its read and its write, wrote
	// this claim over under CPU load (the flaky failure of issue 27).
	other := *first
	other.Token = "someone-else"
	data, _ := json.Marshal(other)
	unlock, ok := lockClaim(dir)
	for deadline := time.Now().Add(5 * time.Second); !ok && time.Now().Before(deadline); {
		unlock, ok = lockClaim(dir)
	}
	if !ok {
		t.Fatal("the claim lock was never free")
	}
	runstore.WriteFile(runstore.OS{}, filepath.Join(dir, ClaimFile), data, false)
	unlock()
	select {
	case <-r.Lost():
	case <-time.After(5 * time.Second):
		t.Fatal("lost claim not reported")
	}
	r.Close()
	if cur, err := readClaim(dir); err != nil || cur.Token != "someone-else" {
		t.Fatalf("Close removed a claim it no longer held: %v %v", cur, err)
	}
}

// The claim is verified before every write of the record: a holder whose
// claim another process replaced stops with ErrClaimLost and writes
// nothing; one whose claim.json was deleted puts it back and goes on.
func TestWriteVerifiesClaim(t *testing.T) {
	s := newStore(t, nil)
	r := newRun(t, s, "r1")
	defer r.Close()
	dir := r.Where()
	claimPath := filepath.Join(dir, ClaimFile)
	if err := os.Remove(claimPath); err != nil {
		t.Fatal(err)
	}
	if err := r.Commit(runstore.Event{From: "ready", To: "running"}); err != nil {
		t.Fatalf("commit after claim.json was deleted: %v", err)
	}
	if c, err := readClaim(dir); err != nil || c.PID != os.Getpid() {
		t.Fatalf("claim.json not put back: %v %v", c, err)
	}
	other, _ := readClaim(dir)
	other.Token = "someone-else"
	data, _ := json.Marshal(other)
	os.WriteFile(claimPath, data, 0o644)
	before, _ := os.ReadFile(filepath.Join(dir, EventsFile))
	err := r.Commit(runstore.Event{Step: "01-a#1", From: "pending", To: "executing"})
	if !errors.Is(err, runstore.ErrClaimLost) || !errors.Is(err, runstore.ErrWrite) {
		t.Fatalf("commit under another's claim: err = %v, want ErrClaimLost", err)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, EventsFile)); !bytes.Equal(before, after) {
		t.Errorf("the log was written under another's claim")
	}
	select {
	case <-r.Lost():
	default:
		t.Error("a lost claim is not reported on Lost")
	}
}

// verify reads claim.json again unless it is the very file it read last,
// unchanged in size and time: a claim linked in by a takeover is another
// file whatever its time and size, and a file within the clock's tick of
// its writing is read again, since an in-place rewrite could keep both.
func TestVerifySeesEveryReplacedClaim(t *testing.T) {
	foreign := func(t *testing.T, dir string) []byte {
		data, err := os.ReadFile(filepath.Join(dir, ClaimFile))
		if err != nil {
			t.Fatal(err)
		}
		c, _ := readClaim(dir)
		// The same length: only the file's identity or time can tell.
		return bytes.Replace(data, []byte(c.Token), bytes.Repeat([]byte("x"), len(c.Token)), 1)
	}
	commitLost := func(t *testing.T, r runstore.Run) {
		t.Helper()
		err := r.Commit(runstore.Event{Step: "01-a#1", From: "pending", To: "executing"})
		if !errors.Is(err, runstore.ErrClaimLost) {
			t.Fatalf("commit under another's claim: err = %v, want ErrClaimLost", err)
		}
	}
	t.Run("replaced by a takeover", func(t *testing.T) {
		s := newStore(t, nil)
		r := newRun(t, s, "r1")
		defer r.Close()
		path := filepath.Join(r.Where(), ClaimFile)
		old := time.Now().Add(-time.Hour)
		if err := os.Chtimes(path, old, old); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if err := r.Commit(runstore.Event{From: "ready", To: "running"}); err != nil {
				t.Fatal(err)
			}
		}
		tmp := path + ".new"
		if err := os.WriteFile(tmp, foreign(t, r.Where()), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(tmp, old, old); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, path); err != nil {
			t.Fatal(err)
		}
		commitLost(t, r)
	})
	t.Run("rewritten in place within a tick", func(t *testing.T) {
		s := newStore(t, nil)
		r := newRun(t, s, "r1")
		defer r.Close()
		path := filepath.Join(r.Where(), ClaimFile)
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Commit(runstore.Event{From: "ready", To: "running"}); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, foreign(t, r.Where()), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
			t.Fatal(err)
		}
		commitLost(t, r)
	})
}

// A log longer than the holder left it was written by another process
// that took the run over (and may have released it since): the holder
// stops.
func TestWriteRefusedAfterAnotherWrote(t *testing.T) {
	s := newStore(t, nil)
	r := newRun(t, s, "r1")
	defer r.Close()
	f, err := os.OpenFile(filepath.Join(r.Where(), EventsFile), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"run":"r1","from":"running","to":"completed"}` + "\n")
	f.Close()
	if err := r.Commit(runstore.Event{From: "ready", To: "running"}); !errors.Is(err, runstore.ErrClaimLost) {
		t.Fatalf("commit after another process wrote: err = %v, want ErrClaimLost", err)
	}
}

func TestListLocateAndStatus(t *testing.T) {
	base := t.TempDir()
	s := New(Options{Base: base})
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var ids []string
	for i, skill := range []string{"a", "b", "a"} {
		id := runstore.NewID(start.Add(time.Duration(i) * time.Minute))
		ids = append(ids, id)
		r, err := s.Create(runstore.NewRun{Start: runstore.Start{RunID: id, Skill: skill, StartedAt: start.Add(time.Duration(i) * time.Minute)}}, runstore.ClaimOptions{})
		if err != nil {
			t.Fatal(err)
		}
		r.Commit(runstore.Event{From: "ready", To: "running"})
		r.Close()
	}
	runs, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range runs {
		got = append(got, r.ID)
	}
	if want := []string{ids[2], ids[1], ids[0]}; !slices.Equal(got, want) {
		t.Fatalf("List = %v, want newest first %v", got, want)
	}
	b := NewBackend(Options{Base: base})
	ctx := context.Background()
	if dir, err := b.Locate(ctx, ids[1]); err != nil || dir != filepath.Join(b.Root(), "b", ids[1]) {
		t.Fatalf("Locate(id) = %s, %v", dir, err)
	}
	if sum, err := s.Status(""); err != nil || filepath.Base(sum.Dir) != ids[2] {
		t.Fatalf("Status(\"\") = %v, %v, want the newest", sum, err)
	}
	if _, err := b.Locate(ctx, "nope"); !errors.Is(err, runstore.ErrNoRun) {
		t.Fatalf("Locate(nope) err = %v", err)
	}
	// A running run that nobody holds shows as interrupted; a held one as
	// running, naming its holder.
	sum, _ := s.Status(ids[0])
	if sum.State != runstore.RunInterrupted {
		t.Errorf("unclaimed running run shows as %s", sum.State)
	}
	held, err := s.Resume(ids[0], runstore.ResumeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	sum, _ = s.Status(ids[0])
	var out strings.Builder
	runstore.WriteStatus(&out, sum)
	if sum.State != runstore.RunRunning || !strings.Contains(out.String(), "claimed by "+sum.Holder) {
		t.Errorf("claimed run shows as %s:\n%s", sum.State, out.String())
	}
}

func TestOpenRemovesTempsOfKilledWriter(t *testing.T) {
	s := newStore(t, nil)
	r := newRun(t, s, "r1")
	dir := r.Where()
	r.Close()
	stray := filepath.Join(dir, "."+StateFile+runstore.TempMark+"123")
	own := filepath.Join(dir, ".notes"+runstore.TempMark+"1")
	os.WriteFile(stray, []byte("{"), 0o644)
	os.WriteFile(own, []byte("skill file"), 0o644)
	back, err := s.Resume("r1", runstore.ResumeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	back.Close()
	if _, err := os.Stat(stray); err == nil {
		t.Error("temporary state file was left behind")
	}
	if _, err := os.Stat(own); err != nil {
		t.Error("a file that is not the store's was removed")
	}
}

// A finished run is never resumed, so its snapshots are written before the
// record says it finished: a kill right after that leaves them current.
func TestSnapshotsCurrentWhenRunFinishes(t *testing.T) {
	s := New(Options{Base: t.TempDir()})
	r := newRun(t, s, "r1")
	step(r, "01-a#1", 1)
	r.SetState(map[string]any{"n": 9.0, "status": "completed"})
	if err := r.Commit(runstore.Event{From: "running", To: "completed"}); err != nil {
		t.Fatal(err)
	}
	// No Close yet: as if the process were gone.
	defer r.Close()
	dir := r.Where()
	var st map[string]any
	data, err := os.ReadFile(filepath.Join(dir, StateFile))
	if err != nil || json.Unmarshal(data, &st) != nil || st["n"] != 9.0 {
		t.Errorf("state.json after the final commit = %s, %v", data, err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, ProgressFile)); !strings.Contains(string(data), `runState: "completed"`) {
		t.Errorf("skill-state.yaml after the final commit:\n%s", data)
	}
}

// A takeover kills the process groups .claim.groups lists as running:
// those started and not ended, and not a number on a line a failing disk
// cut short.
func TestKillGroups(t *testing.T) {
	dir := t.TempDir()
	start := func() *exec.Cmd {
		cmd := exec.Command("sleep", "1000")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		return cmd
	}
	running, ended := start(), start()
	list := fmt.Sprintf("+%d\n+%d\n-%d\n+1", running.Process.Pid, ended.Process.Pid, ended.Process.Pid)
	os.WriteFile(filepath.Join(dir, GroupsFile), []byte(list), 0o644)
	killGroups(dir)
	if err := running.Wait(); err == nil {
		t.Error("the running group was not killed")
	}
	if !proc.Alive(ended.Process.Pid) {
		t.Error("a group listed as ended was killed")
	}
	if data, _ := os.ReadFile(filepath.Join(dir, GroupsFile)); len(data) != 0 {
		t.Errorf(".claim.groups after the kill: %q", data)
	}
}

// A claim whose heartbeat lies in the future (a clock ahead on another
// host) is judged by whether its heartbeat moves within one lease:
// refused while it moves, taken once it has stood still for a lease (F13:
// it was refused for good).
func TestClaimFromTheFutureFrozen(t *testing.T) {
	future := time.Now().Add(time.Hour)
	c := ClaimInfo{PID: 1, Host: "elsewhere", Heartbeat: future, TimeoutMS: 1000, Token: "future-" + t.Name()}
	now := time.Now()
	if c.Stale(now) {
		t.Fatal("a claim from the future is stale at first sight")
	}
	if c.Stale(now.Add(500 * time.Millisecond)) {
		t.Fatal("stale within its lease")
	}
	moved := c
	moved.Heartbeat = future.Add(time.Second)
	if moved.Stale(now.Add(1500 * time.Millisecond)) {
		t.Fatal("stale although its heartbeat moved")
	}
	if !moved.Stale(now.Add(3 * time.Second)) {
		t.Fatal("a heartbeat that stood still for a lease is not stale: refused for good")
	}
}

// A run that asks for the workspace layout (a skill with a worker.yaml)
// keeps its checkpoints in workspace/threads/ and its metrics in
// workspace/metrics/metrics.jsonl, none at the top; a resume and the
// readers find them there, and a run without it keeps the old layout.
func TestWorkspaceLayout(t *testing.T) {
	s := newStore(t, nil)
	r, err := s.Create(runstore.NewRun{Start: runstore.Start{RunID: "w1", Skill: "demo", StartedAt: time.Now().UTC()}, State: map[string]any{"n": 0.0}, Workspace: true}, runstore.ClaimOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dir := r.Where()
	r.Checkpoint("auto_checkpoint", runstore.Worker{ID: "01-a", Skill: "demo", State: "completed"})
	r.Metric(runstore.Metric{Kind: runstore.KindPhase, Phase: "01-a", Outcome: "completed"})
	step(r, "01-a#1", 1)
	r.Close()
	back, err := s.Resume("w1", runstore.ResumeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	back.Checkpoint("checkpoint_error_state", runstore.Worker{ID: "01-b", Skill: "demo", State: "error"})
	back.Metric(runstore.Metric{Kind: runstore.KindPhase, Phase: "01-b", Outcome: "error"})
	step(back, "01-b#1", 2)
	back.Close()
	for _, f := range []string{"workspace/threads/1.json", "workspace/threads/2.json", "workspace/metrics/metrics.jsonl"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	for _, f := range []string{ThreadsDir, MetricsFile} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("%s at the top of a workspace run", f)
		}
	}
	if m, err := s.Metrics("w1"); err != nil || len(m) != 2 || m[1].Phase != "01-b" {
		t.Errorf("metrics = %+v, %v", m, err)
	}
	plain := newRun(t, s, "p1")
	plain.Checkpoint("auto_checkpoint", runstore.Worker{ID: "01-a", Skill: "demo", State: "completed"})
	step(plain, "01-a#1", 1)
	plain.Close()
	if _, err := os.Stat(filepath.Join(plain.Where(), ThreadsDir, "1.json")); err != nil {
		t.Errorf("a run without a worker.yaml: %v", err)
	}
	if _, err := os.Stat(filepath.Join(plain.Where(), "workspace")); err == nil {
		t.Error("a run without a worker.yaml has a workspace/")
	}
}

// A loop's action checkpoints are all in the log, and threads/ gets the
// newest of them at each snapshot, with the state it took; a phase's
// checkpoint is always written. A resume that finds threads/ gone writes
// the same from the log.
func TestActionCheckpointsPaced(t *testing.T) {
	s := newStore(t, nil)
	r := newRun(t, s, "r1")
	r.Checkpoint("auto_checkpoint", runstore.Worker{ID: "w", Skill: "demo", Unit: "01-a", State: "completed"})
	if err := r.Commit(runstore.Event{Phase: "01-a", From: "post_hook", To: "completed"}); err != nil {
		t.Fatal(err)
	}
	for n := 1; n <= 5; n++ {
		id := "action-" + strconv.Itoa(n)
		r.SetState(map[string]any{"n": float64(n)})
		r.Checkpoint("auto_checkpoint", runstore.Worker{ID: "w", Skill: "demo", Unit: id, State: "completed"})
		if err := r.Commit(runstore.Event{Action: id, From: "post_hook", To: "completed", Record: &runstore.StepRecord{ID: id, Status: runstore.StatusPass, Result: runstore.StepCompleted}}); err != nil {
			t.Fatal(err)
		}
	}
	dir := r.Where()
	r.Close()
	check := func(when string, exact bool) {
		t.Helper()
		entries, _ := os.ReadDir(filepath.Join(dir, ThreadsDir))
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		// During the run a snapshot 200 ms after the last may write the
		// then newest action's too: on a loaded machine, one between.
		if got := strings.Join(names, " "); exact && got != "1.json 6.json" ||
			!strings.HasPrefix(got, "1.json ") || !strings.HasSuffix(got, " 6.json") {
			t.Errorf("%s: threads/ holds %v, want the phase's (1) and the newest action's (6)", when, names)
		}
		data, _ := os.ReadFile(filepath.Join(dir, ThreadsDir, "6.json"))
		if !strings.Contains(string(data), `"state":{"n":5}`) || !strings.Contains(string(data), `"worker":{"id":"w","skill":"demo","unit":"action-5","state":"completed"`) ||
			!strings.Contains(string(data), `"hook":"auto_checkpoint"`) {
			t.Errorf("%s: threads/6.json = %s", when, data)
		}
	}
	check("at the end", false)
	events, err := s.Events("r1")
	if err != nil {
		t.Fatal(err)
	}
	marks := 0
	for _, e := range events {
		if e.Checkpoint != nil {
			marks++
		}
	}
	if marks != 6 {
		t.Errorf("the log holds %d checkpoints, want 6", marks)
	}
	// After a mark of the worker, an action's is written implied: its
	// times only, the rest is the event's and the mark's before.
	raw, _ := os.ReadFile(filepath.Join(dir, EventsFile))
	if n := strings.Count(string(raw), `"hook":`); n != 1 {
		t.Errorf("%d marks written whole, want 1 (the phase's):\n%s", n, raw)
	}
	os.RemoveAll(filepath.Join(dir, ThreadsDir))
	back, err := s.Resume("r1", runstore.ResumeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	back.Close()
	check("rebuilt by a resume", true)
}

// TestRemovedRunFolder: a run whose folder is removed while it runs (a
// step's rm -rf of its work dir), or removed and made again, is told so
// by its next commit, naming the folder, and its heartbeat puts no claim
// in the folder made again, nor does its close write there: before, the
// commit said that another process held the run, and the heartbeat
// claimed the empty folder. (The snapshot's case is the command's:
// run_folder_removed.txtar.)
func TestRemovedRunFolder(t *testing.T) {
	for _, remade := range []bool{false, true} {
		t.Run(fmt.Sprintf("remade=%v", remade), func(t *testing.T) {
			s := newStore(t, nil)
			r, err := s.Create(runstore.NewRun{Start: runstore.Start{RunID: "r1", Skill: "demo"}}, runstore.ClaimOptions{Heartbeat: 5 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			dir := r.Where()
			if err := os.RemoveAll(dir); err != nil {
				t.Fatal(err)
			}
			if remade {
				if err := os.Mkdir(dir, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			// Heartbeats come and go meanwhile.
			time.Sleep(50 * time.Millisecond)
			if _, err := os.Stat(filepath.Join(dir, ClaimFile)); err == nil {
				t.Error("a heartbeat put a claim in the folder made again")
			}
			err = r.Commit(runstore.Event{Step: "01-a#1", From: "executing", To: "completed"})
			if !errors.Is(err, runstore.ErrRunRemoved) || !strings.Contains(err.Error(), dir) {
				t.Errorf("commit: %v, want ErrRunRemoved naming %s", err, dir)
			}
			r.Close()
			if remade {
				if left, _ := os.ReadDir(dir); len(left) != 0 {
					t.Errorf("the folder made again holds %v", left)
				}
			}
		})
	}
}
