package runstore

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// diskFull makes writes to files named name fail with ENOSPC for the rest
// of the test.
func diskFull(t *testing.T, names ...string) {
	t.Helper()
	restore := SetWriteFault(func(path string) error {
		for _, n := range names {
			if filepath.Base(path) == n {
				return syscall.ENOSPC
			}
		}
		return nil
	})
	t.Cleanup(restore)
}

func TestDiskFullKeepsLastState(t *testing.T) {
	r := newRun(t)
	if err := r.SaveState(map[string]any{"n": 1.0}); err != nil {
		t.Fatal(err)
	}
	diskFull(t, StateFile, ProgressFile)
	err := r.SaveState(map[string]any{"n": 2.0})
	if !errors.Is(err, syscall.ENOSPC) || !errors.Is(err, ErrWrite) {
		t.Fatalf("SaveState on a full disk: err = %v, want ENOSPC and ErrWrite", err)
	}
	if err := r.Update(func(p *Progress) { p.CurrentStep = "x" }); !errors.Is(err, ErrWrite) {
		t.Fatalf("Update on a full disk: err = %v", err)
	}
	if r.Progress().CurrentStep == "x" {
		t.Error("a progress change that could not be written stayed in memory")
	}
	st, err := ReadState(r.Dir)
	if err != nil || st["n"] != 1.0 {
		t.Fatalf("state.json after the failed write = %v, %v; want the last written state", st, err)
	}
	entries, _ := os.ReadDir(r.Dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), tmpMark) {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

// A full disk can cut a log line short; the lines after it must still be
// whole lines, and readers skip the cut one.
func TestDiskFullTearsOneLogLine(t *testing.T) {
	r := newRun(t)
	if err := r.Event(Event{Phase: "01-a", To: "loading"}); err != nil {
		t.Fatal(err)
	}
	restore := SetWriteFault(func(path string) error {
		if filepath.Base(path) == EventsFile {
			return syscall.ENOSPC
		}
		return nil
	})
	if err := r.Event(Event{Phase: "01-a", From: "loading", To: "planning"}); !errors.Is(err, ErrWrite) {
		t.Fatalf("Event on a full disk: err = %v", err)
	}
	restore()
	if err := r.Event(Event{Phase: "01-a", From: "loading", To: "executing"}); err != nil {
		t.Fatal(err)
	}
	ev, err := ReadEvents(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ev) != 2 || ev[0].To != "loading" || ev[1].To != "executing" {
		t.Fatalf("events = %+v, want the line before and the line after the full disk", ev)
	}
}

// A process that reopens a log whose last line is cut starts a new line.
func TestReopenedLogEndsTornLine(t *testing.T) {
	r := newRun(t)
	os.WriteFile(filepath.Join(r.Dir, EventsFile), []byte(`{"to":"loading"}`+"\n"+`{"to":"plan`), 0o644)
	r2, err := Open(r.Dir, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	if err := r2.Event(Event{To: "executing"}); err != nil {
		t.Fatal(err)
	}
	ev, err := ReadEvents(r.Dir)
	if err != nil || len(ev) != 2 || ev[1].To != "executing" {
		t.Fatalf("events = %+v, %v", ev, err)
	}
}

func TestDamagedRunFilesNamePosition(t *testing.T) {
	tests := []struct {
		name, file, content, want string
	}{
		{"state not JSON", StateFile, "{\n  \"a\": 1,\n  oops\n}\n", "state.json:3:3: run file is damaged"},
		{"state truncated mid-write", StateFile, "{\n  \"status\": \"running\",\n  \"items\": [1, 2", "state.json:3:16: run file is damaged"},
		{"state empty", StateFile, "", "the file is empty"},
		{"state an array", StateFile, "[1]", "state.json:1:1: run file is damaged"},
		{"progress not YAML", ProgressFile, "runId: r1\n\tskill: demo\n", "skill-state.yaml:2: run file is damaged"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRun(t)
			os.WriteFile(filepath.Join(r.Dir, tt.file), []byte(tt.content), 0o644)
			var err error
			if tt.file == StateFile {
				_, err = ReadState(r.Dir)
			} else {
				_, err = ReadProgress(r.Dir)
			}
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want ErrCorrupt and %q", err, tt.want)
			}
		})
	}
}

// state.json deleted before a resume comes back from the newest checkpoint
// when no step completed after it, and is refused otherwise.
func TestResumeRestoresDeletedState(t *testing.T) {
	t0 := time.Now().Add(-time.Minute)
	tests := []struct {
		name       string
		stepAt     time.Time
		checkpoint bool
		restored   bool
	}{
		{"checkpoint after the last step", t0, true, true},
		{"a step after the checkpoint", time.Now().Add(time.Minute), true, false},
		{"no checkpoint", t0, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRun(t)
			r.Update(func(p *Progress) {
				p.CompletedSteps = append(p.CompletedSteps, StepRecord{Step: "01-a#1", Status: StepCompleted, Timestamp: tt.stepAt})
			})
			if tt.checkpoint {
				if _, err := r.Checkpoint(Checkpoint{Hook: "auto_checkpoint", State: map[string]any{"status": "running", "n": 7.0}}); err != nil {
					t.Fatal(err)
				}
			}
			r.Close()
			os.Remove(filepath.Join(r.Dir, StateFile))
			r2, c, err := Resume(r.Dir, ResumeOptions{Store: Options{NoSync: true}})
			if !tt.restored {
				if !errors.Is(err, ErrStateLost) {
					t.Fatalf("err = %v, want ErrStateLost", err)
				}
				if _, serr := os.Stat(filepath.Join(r.Dir, ClaimFile)); serr == nil {
					t.Error("a refused resume left its claim")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer c.Release()
			defer r2.Close()
			st, err := r2.State()
			if err != nil || st["n"] != 7.0 || !strings.HasSuffix(r2.Restored, "1.json") {
				t.Fatalf("state %v (%v), restored from %q", st, err, r2.Restored)
			}
		})
	}
}
