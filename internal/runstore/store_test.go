package runstore

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

func newRun(t *testing.T) *Run {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	r, err := Create(dir, Progress{RunID: "r1", Skill: "demo", RunState: RunRunning, StartedAt: time.Now()}, map[string]any{"status": "running"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func TestWriteFileReplacesAndLeavesNoTemp(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.json")
	for _, content := range []string{"one", "two"} {
		if err := WriteFile(path, []byte(content), true); err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(path)
		if string(got) != content {
			t.Fatalf("content = %q, want %q", got, content)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("folder holds %d entries, want only f.json", len(entries))
	}
}

func TestOpenRemovesTempsOfKilledWriter(t *testing.T) {
	r := newRun(t)
	stray := filepath.Join(r.Dir, "."+StateFile+tmpMark+"123")
	own := filepath.Join(r.Dir, ".notes"+tmpMark+"1")
	os.WriteFile(stray, []byte("{"), 0o644)
	os.WriteFile(own, []byte("skill file"), 0o644)
	if _, err := Open(r.Dir, Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stray); err == nil {
		t.Error("temporary state file was left behind")
	}
	if _, err := os.Stat(own); err != nil {
		t.Error("a file that is not the store's was removed")
	}
}

// The field names of skill-state.yaml are a contract (DESIGN §3.2).
func TestProgressFieldNames(t *testing.T) {
	r := newRun(t)
	now := time.Now()
	err := r.Update(func(p *Progress) {
		p.CompletedSteps = append(p.CompletedSteps, StepRecord{Step: "01-a#1", Status: StepCompleted, Timestamp: now})
		p.Error = &RunError{Step: "01-a#2", Message: "boom", Diagnostics: []string{"x"}}
		p.CompletedAt = &now
	})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(r.Dir, ProgressFile))
	var m map[string]any
	if err := yaml.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"skillVersion", "startedAt", "currentPhase", "currentStep", "totalSteps", "completedSteps", "lastAction", "error", "completedAt", "runState", "skillHash"} {
		if _, ok := m[k]; !ok {
			t.Errorf("skill-state.yaml lacks %s:\n%s", k, data)
		}
	}
	step := m["completedSteps"].([]any)[0].(map[string]any)
	for _, k := range []string{"step", "status", "evidenceCaptured", "timestamp"} {
		if _, ok := step[k]; !ok {
			t.Errorf("completedSteps entry lacks %s", k)
		}
	}
	e := m["error"].(map[string]any)
	for _, k := range []string{"step", "message", "diagnostics"} {
		if _, ok := e[k]; !ok {
			t.Errorf("error lacks %s", k)
		}
	}
	back, err := ReadProgress(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if !back.StepDone("01-a#1") || back.StepDone("01-a#2") {
		t.Errorf("StepDone after reading back is wrong: %+v", back.CompletedSteps)
	}
}

func TestCreateRefusesExistingRun(t *testing.T) {
	r := newRun(t)
	_, err := Create(r.Dir, Progress{}, nil, Options{})
	if err == nil || !strings.Contains(err.Error(), "--resume") {
		t.Fatalf("Create over a run: err = %v, want a hint to resume", err)
	}
}

func TestStateRoundTrip(t *testing.T) {
	r := newRun(t)
	if err := r.SaveState(map[string]any{"status": "completed", "n": 3}); err != nil {
		t.Fatal(err)
	}
	s, err := r.State()
	if err != nil {
		t.Fatal(err)
	}
	if s["status"] != "completed" || s["n"] != 3.0 {
		t.Fatalf("state = %v", s)
	}
}

func TestEventsSkipTornLastLine(t *testing.T) {
	r := newRun(t)
	r.Event(Event{Phase: "01-a", From: "loading", To: "planning"})
	r.Event(Event{Phase: "01-a", From: "planning", To: "executing"})
	f, _ := os.OpenFile(filepath.Join(r.Dir, EventsFile), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"time":"2026-01-0`)
	f.Close()
	ev, err := ReadEvents(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ev) != 2 || ev[1].To != "executing" || ev[0].Run != "r1" || ev[0].Time.IsZero() {
		t.Fatalf("events = %+v", ev)
	}
}

func TestEventsReportDamage(t *testing.T) {
	r := newRun(t)
	os.WriteFile(filepath.Join(r.Dir, EventsFile), []byte("garbage\n{}\n"), 0o644)
	if _, err := ReadEvents(r.Dir); err == nil || !strings.Contains(err.Error(), "events.jsonl:1") {
		t.Fatalf("err = %v, want one naming events.jsonl:1", err)
	}
}

func TestCheckpointsNumberOnAcrossOpens(t *testing.T) {
	r := newRun(t)
	for range 2 {
		if _, err := r.Checkpoint(Checkpoint{Hook: "auto_checkpoint", Worker: Worker{ID: "01-a"}}); err != nil {
			t.Fatal(err)
		}
	}
	r2, err := Open(r.Dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	path, err := r2.Checkpoint(Checkpoint{Hook: "checkpoint_error_state", State: map[string]any{"a": 1}})
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(path) != "3.json" {
		t.Fatalf("third checkpoint is %s, want 3.json", path)
	}
	var c map[string]any
	data, _ := os.ReadFile(path)
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	w := c["worker"].(map[string]any)
	for _, k := range []string{"id", "skill", "state", "started_at", "completed_at", "error"} {
		if _, ok := w[k]; !ok {
			t.Errorf("checkpoint worker lacks %s", k)
		}
	}
}

func TestClaimSecondRefusedNamingHolder(t *testing.T) {
	r := newRun(t)
	c, err := Acquire(r.Dir, ClaimOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Acquire(r.Dir, ClaimOptions{})
	var ce *ClaimedError
	if !errors.As(err, &ce) {
		t.Fatalf("second claim: err = %v, want *ClaimedError", err)
	}
	host, _ := os.Hostname()
	want := strings.Join([]string{strconv.Itoa(os.Getpid()), host}, "@")
	if !strings.Contains(err.Error(), want) {
		t.Errorf("refusal %q does not name %s", err, want)
	}
	if err := c.Release(); err != nil {
		t.Fatal(err)
	}
	c2, err := Acquire(r.Dir, ClaimOptions{})
	if err != nil {
		t.Fatalf("claim after release: %v", err)
	}
	c2.Release()
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
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRun(t)
			data, _ := json.Marshal(tt.claim)
			os.WriteFile(filepath.Join(r.Dir, ClaimFile), data, 0o644)
			c, err := Acquire(r.Dir, ClaimOptions{})
			if tt.taken != (err == nil) {
				t.Fatalf("Acquire err = %v, want taken = %v", err, tt.taken)
			}
			if c != nil {
				got, _ := ReadClaim(r.Dir)
				if got.PID != os.Getpid() {
					t.Errorf("claim.json holds pid %d after takeover", got.PID)
				}
				c.Release()
			}
		})
	}
}

func TestClaimHeartbeatAndLoss(t *testing.T) {
	r := newRun(t)
	c, err := Acquire(r.Dir, ClaimOptions{Heartbeat: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	first, _ := ReadClaim(r.Dir)
	deadline := time.Now().Add(5 * time.Second)
	for {
		cur, err := ReadClaim(r.Dir)
		if err == nil && cur.Heartbeat.After(first.Heartbeat) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("heartbeat was never refreshed")
		}
		time.Sleep(time.Millisecond)
	}
	// Another process took the run over: the holder must notice.
	other := *first
	other.Token = "someone-else"
	data, _ := json.Marshal(other)
	WriteFile(filepath.Join(r.Dir, ClaimFile), data, false)
	select {
	case <-c.Lost():
	case <-time.After(5 * time.Second):
		t.Fatal("lost claim not reported")
	}
	c.Release()
	if cur, err := ReadClaim(r.Dir); err != nil || cur.Token != "someone-else" {
		t.Fatalf("Release removed a claim it no longer held: %v %v", cur, err)
	}
}

func TestResumeRefusals(t *testing.T) {
	tests := []struct {
		name    string
		state   string
		hash    string
		force   bool
		wantErr error
	}{
		{"running, same hash", RunRunning, "h1", false, nil},
		{"interrupted", RunInterrupted, "h1", false, nil},
		{"completed", RunCompleted, "h1", false, ErrTerminal},
		{"failed", RunFailed, "h1", false, ErrTerminal},
		{"aborted", RunAborted, "h1", false, ErrTerminal},
		{"changed skill", RunRunning, "h2", false, ErrSkillChanged},
		{"changed skill, forced", RunRunning, "h2", true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRun(t)
			r.Update(func(p *Progress) { p.RunState = tt.state; p.SkillHash = "h1" })
			got, c, err := Resume(r.Dir, ResumeOptions{Hash: tt.hash, Force: tt.force})
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Fatalf("Resume err = %v, want %v", err, tt.wantErr)
			}
			if err != nil {
				if _, cerr := ReadClaim(r.Dir); cerr == nil {
					t.Error("a refused resume left its claim behind")
				}
				return
			}
			defer got.Close()
			defer c.Release()
		})
	}
}

func TestListAndLocate(t *testing.T) {
	base := t.TempDir()
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var ids []string
	for i, skill := range []string{"a", "b", "a"} {
		id := NewID(start.Add(time.Duration(i) * time.Minute))
		ids = append(ids, id)
		r, err := Create(DefaultDir(base, skill, id), Progress{RunID: id, Skill: skill, RunState: RunCompleted, StartedAt: start.Add(time.Duration(i) * time.Minute)}, nil, Options{NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		r.Close()
	}
	runs, err := List(RunsRoot(base))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range runs {
		got = append(got, s.ID)
	}
	want := []string{ids[2], ids[1], ids[0]}
	if !slices.Equal(got, want) {
		t.Fatalf("List = %v, want newest first %v", got, want)
	}
	dir, err := Locate(base, ids[1])
	if err != nil || dir != DefaultDir(base, "b", ids[1]) {
		t.Fatalf("Locate(id) = %s, %v", dir, err)
	}
	if dir, err := Locate(base, ""); err != nil || filepath.Base(dir) != ids[2] {
		t.Fatalf("Locate(\"\") = %s, %v, want the newest", dir, err)
	}
	if _, err := Locate(base, "nope"); !errors.Is(err, ErrNoRun) {
		t.Fatalf("Locate(nope) err = %v", err)
	}
}

func TestStatusShowsInterrupted(t *testing.T) {
	r := newRun(t)
	s, err := Status(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if s.State != RunInterrupted {
		t.Fatalf("unclaimed running run shows as %s", s.State)
	}
	c, _ := Acquire(r.Dir, ClaimOptions{})
	defer c.Release()
	s, _ = Status(r.Dir)
	if s.State != RunRunning || s.Holder == "" {
		t.Fatalf("claimed run shows as %s, holder %q", s.State, s.Holder)
	}
	var b strings.Builder
	if err := WriteStatus(&b, s); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "claimed by "+s.Holder) {
		t.Errorf("status does not name the holder:\n%s", b.String())
	}
}

// skill-state.yaml is written by hand: whatever the strings hold, it must
// read back as written.
func TestProgressEncodingRoundTrip(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 123456789, time.UTC)
	nasty := []string{"", "plain", "yes", "null", "- dash", "a: b", "#hash", "'q'", `"dq"`, "line\nbreak\ttab", "中文 ✓", "\u2028", "\x01", "{[", "trailing "}
	for _, s := range nasty {
		p := Progress{
			SkillVersion: s, StartedAt: now, CurrentPhase: s, CurrentStep: s, TotalSteps: 3,
			CompletedSteps: []StepRecord{{Step: s, Status: StepCompleted, EvidenceCaptured: true, Timestamp: now}},
			LastAction:     s, Error: &RunError{Step: s, Message: s, Diagnostics: []string{s, "x"}}, CompletedAt: &now,
			RunState: RunFailed, SkillHash: s, RunID: s, Skill: s, SkillDir: s, Mode: s,
			Inputs: map[string]string{s + "k": s, "z": s}, CompletedPhases: []string{s},
			Loop: &Loop{Iteration: 4, MaxIterations: 100, CurrentAction: s, LastAction: s, Completed: 3, ErrorCount: 1},
		}
		var back Progress
		if err := yaml.Unmarshal(encodeProgress(&p), &back); err != nil {
			t.Fatalf("%q: %v\n%s", s, err, encodeProgress(&p))
		}
		want, _ := json.Marshal(p)
		got, _ := json.Marshal(back)
		if string(want) != string(got) {
			t.Errorf("%q did not round-trip:\n%s\nwant %s\ngot  %s", s, encodeProgress(&p), want, got)
		}
	}
	var empty Progress
	if err := yaml.Unmarshal(encodeProgress(&empty), &empty); err != nil {
		t.Fatalf("zero progress: %v", err)
	}
}
