package engine

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillkit/skillkit/internal/agent"
	"github.com/skillkit/skillkit/internal/runstore"
	"github.com/skillkit/skillkit/internal/runstore/fsstore"
	"github.com/skillkit/skillkit/internal/script"
	"github.com/skillkit/skillkit/plan"
)

func TestBackoff(t *testing.T) {
	tests := []struct {
		given, fallback time.Duration
		n               int
		want            time.Duration
	}{
		{2 * time.Second, 0, 1, 2 * time.Second},
		{2 * time.Second, 0, 3, 8 * time.Second},
		{0, 0, 2, 2 * DefaultBackoff},
		{0, time.Millisecond, 1, time.Millisecond},
		{10 * time.Second, 0, 10, plan.MaxBackoff},
	}
	for _, tt := range tests {
		if got := backoff(tt.given, tt.fallback, tt.n); got != tt.want {
			t.Errorf("backoff(%v, %v, %d) = %v, want %v", tt.given, tt.fallback, tt.n, got, tt.want)
		}
	}
}

func TestLoadHooksFromFrontMatter(t *testing.T) {
	pos := plan.Pos{File: "SKILL.md", Line: 4, Col: 3}
	meta := func(v any) *plan.Skill {
		return &plan.Skill{Dir: t.TempDir(), FrontMatter: &plan.FrontMatter{Fields: []*plan.Field{{Key: "metadata", Value: v, ValuePos: pos}}}}
	}
	h, err := LoadHooks(meta(map[string]any{"hooks": map[string]any{"post_phase": "a", "on_error": []any{"b", "c"}}}), &plan.Worker{})
	if err != nil {
		t.Fatal(err)
	}
	if len(h[HookPostPhase]) != 1 || len(h[HookOnError]) != 2 || h[HookOnError][1].Command != "c" || h[HookOnError][1].Pos != pos {
		t.Errorf("hooks = %+v", h)
	}
	for _, bad := range []any{
		map[string]any{"hooks": "echo"},
		map[string]any{"hooks": map[string]any{"before_all": "x"}},
		map[string]any{"hooks": map[string]any{"post_run": 3}},
	} {
		if _, err := LoadHooks(meta(bad), &plan.Worker{}); err == nil || !strings.HasPrefix(err.Error(), "SKILL.md:4:3: ") {
			t.Errorf("LoadHooks(%v) err = %v, want one at SKILL.md:4:3", bad, err)
		}
	}
}

func newRunner(t testing.TB) *Runner {
	t.Helper()
	dir := t.TempDir()
	run, err := fsstore.New(fsstore.Options{Base: dir, NoSync: true}).Create(runstore.NewRun{Start: runstore.Start{RunID: "r", Skill: "s"}, WorkDir: dir}, runstore.ClaimOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { run.Close() })
	host, err := script.NewHost(script.Options{WorkDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	return New(Options{Run: run, Skill: &plan.Skill{Name: "s"}, Script: host, Backoff: time.Millisecond})
}

// A unit with retries runs Execute and Verify again after an error, logs
// each error, and fails for good when they run out.
func TestRunUnitRetries(t *testing.T) {
	tests := []struct {
		name      string
		retries   int
		failTimes int
		wantErr   bool
		wantRuns  int
	}{
		{"passes first time", 2, 0, false, 1},
		{"passes on the last retry", 2, 2, false, 3},
		{"retries run out", 1, 5, true, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRunner(t)
			runs := 0
			err := r.RunUnit(context.Background(), UnitSpec{
				Kind: runstore.KindAction, ID: "action-x", Retries: tt.retries,
				Execute: func(context.Context) error { runs++; return nil },
				Verify: func(context.Context) error {
					if runs <= tt.failTimes {
						return errors.New("bad update")
					}
					return nil
				},
			})
			if (err != nil) != tt.wantErr || runs != tt.wantRuns {
				t.Fatalf("err %v, runs %d", err, runs)
			}
			if n, _ := r.State()["error_count"].(float64); int(n) != min(tt.failTimes, tt.wantRuns) {
				t.Errorf("error_count = %v", r.State()["error_count"])
			}
			events, _ := fsstore.New(fsstore.Options{}).Events(r.Record().WorkDir())
			last := events[len(events)-1]
			want := UnitCompleted
			if tt.wantErr {
				want = UnitFailed
			}
			if last.Action != "action-x" || last.To != runstore.State(want) {
				t.Errorf("last event %+v, want action-x → %s", last, want)
			}
			// idle is the From of the first loading, on no line of its own;
			// a retry loads again from retrying.
			var loads []string
			for _, e := range events {
				if e.Action == "action-x" && e.To == runstore.State(UnitLoading) {
					loads = append(loads, string(e.From))
				}
				if e.To == runstore.Idle {
					t.Errorf("an event of its own for idle: %+v", e)
				}
			}
			if len(loads) != tt.wantRuns || loads[0] != string(UnitIdle) || (len(loads) > 1 && loads[1] != string(UnitRetrying)) {
				t.Errorf("loading from %v, want idle then retrying", loads)
			}
		})
	}
}

// Ctrl-C during a unit is no error of the unit: no error hooks, no failed
// transition, nothing in errors[].
func TestRunUnitInterrupted(t *testing.T) {
	r := newRunner(t)
	ctx, cancel := context.WithCancel(context.Background())
	err := r.RunUnit(ctx, UnitSpec{Kind: runstore.KindPhase, ID: "01-x", Retries: 3,
		Execute: func(context.Context) error { cancel(); return context.Canceled }})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if r.State()["errors"] != nil {
		t.Errorf("an interruption was logged as an error: %v", r.State()["errors"])
	}
	events, _ := fsstore.New(fsstore.Options{}).Events(r.Record().WorkDir())
	for _, e := range events {
		if s := UnitState(e.To); s == UnitFailed || s == UnitError || s == UnitRetrying {
			t.Errorf("event %s → %s after an interruption", e.From, e.To)
		}
	}
}

// The state has one owner, the run's record: what the runner reads, what
// the record holds, what the log replays to and what state.json says
// agree after every kind of change (a set, an update, an error a unit
// logs), so that no second copy can drift.
func TestStateHasOneOwner(t *testing.T) {
	r := newRunner(t)
	ctx := context.Background()
	check := func(when string) {
		t.Helper()
		if err := r.Record().Flush(); err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(r.State())
		for what, got := range map[string]any{"record": r.Record().State(), "state.json": readStateJSON(t, r.Record().WorkDir())} {
			if data, _ := json.Marshal(got); string(data) != string(want) {
				t.Errorf("%s: the %s says %s, the runner %s", when, what, data, want)
			}
		}
		events, err := fsstore.New(fsstore.Options{}).Events(r.Record().WorkDir())
		if err != nil {
			t.Fatal(err)
		}
		rep, err := runstore.Replay(r.Record().Where(), events, 0)
		if err != nil {
			t.Fatal(err)
		}
		if data, _ := json.Marshal(rep.State); string(data) != string(want) {
			t.Errorf("%s: the log replays to %s, the runner says %s", when, data, want)
		}
	}
	r.SetState(map[string]any{"n": 1.0})
	r.Commit(runstore.Event{To: "running"})
	check("after SetState")
	if err := r.Update(map[string]any{"a.b": "c"}); err != nil {
		t.Fatal(err)
	}
	r.Commit(runstore.Event{From: "running", To: "running"})
	check("after Update")
	r.RunUnit(ctx, UnitSpec{Kind: runstore.KindAction, ID: "action-x",
		Execute: func(context.Context) error { return errors.New("bad") }})
	check("after a unit failed")
	if r.State()["error_count"] != 1.0 {
		t.Errorf("error_count = %v", r.State()["error_count"])
	}
}

func readStateJSON(t *testing.T, dir string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, runstore.StateFile))
	if err != nil {
		t.Fatal(err)
	}
	var st map[string]any
	if err := json.Unmarshal(data, &st); err != nil {
		t.Fatal(err)
	}
	return st
}

// An action writes its loading line and its outcome; its passing states
// reach the observer only, unless an agent call was made in one, whose
// count is written at once.
func TestActionPassingStates(t *testing.T) {
	r := newRunner(t)
	var seen []string
	r.o.Observe = func(e runstore.Event) { seen = append(seen, string(e.To)) }
	for _, call := range []bool{false, true} {
		err := r.RunUnit(context.Background(), UnitSpec{Kind: runstore.KindAction, ID: "action-a", Title: "A", Position: 1,
			Execute: func(context.Context) error {
				if call {
					r.AgentCalled(agent.Call{N: 1, Begun: 1, Thread: "t1"})
				}
				return nil
			}})
		if err != nil {
			t.Fatal(err)
		}
	}
	events, err := fsstore.New(fsstore.Options{}).Events(r.Record().WorkDir())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range events[1:] {
		line := string(e.From) + " > " + string(e.To)
		if e.Agent != nil {
			line += " (agent " + e.Agent.Thread + ")"
		}
		got = append(got, line)
	}
	want := "idle > loading, loading > completed, idle > loading, loading > verifying (agent t1), verifying > completed"
	if strings.Join(got, ", ") != want {
		t.Errorf("log: %s\nwant: %s", strings.Join(got, ", "), want)
	}
	all := "loading planning executing verifying post_hook completed"
	if strings.Join(seen, " ") != all+" "+all {
		t.Errorf("observed: %s", strings.Join(seen, " "))
	}
}

// BenchmarkRecordAction is what recording a loop's no-op action costs the
// engine and the record, without the disk's sync and without JS: its
// loading line, its state change (the list of completed actions grown in
// place, as the loop grows it), its checkpoint, metric and completion,
// pipelined. One op is one action.
func BenchmarkRecordAction(b *testing.B) {
	r := newRunner(b)
	ctx := context.Background()
	var done []any
	noop := any("action-noop")
	b.ReportAllocs()
	for i := range b.N {
		err := r.RunUnit(ctx, UnitSpec{Kind: runstore.KindAction, ID: "action-noop", Title: "No-op", Position: i + 1, Execute: func(context.Context) error {
			st := map[string]any{"current_action": nil}
			for k, v := range r.State() {
				if k != "current_action" {
					st[k] = v
				}
			}
			done = append(done, noop)
			st["completed_actions"] = done
			r.SetState(st)
			return nil
		}})
		if err != nil {
			b.Fatal(err)
		}
	}
}
