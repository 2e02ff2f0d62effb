package fsstore

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/skillkit/skillkit/internal/runstore"
)

// agentStep records an agent step as the engine does: its start, the
// snapshots brought up to date before anything of the skill runs
// (Flush), the call's record as it begins, then the step's end.
func agentStep(r runstore.Run, id string, call int) error {
	if err := r.Append(runstore.Event{Phase: "01-a", Step: id, From: "pending", To: "executing"}); err != nil {
		return err
	}
	if err := r.Flush(); err != nil {
		return err
	}
	if err := r.AgentCall(runstore.Conversation{Calls: call}); err != nil {
		return err
	}
	return r.Commit(runstore.Event{Phase: "01-a", Step: id, From: "executing", To: "completed",
		Record: &runstore.StepRecord{ID: id, Status: runstore.StatusPass, Result: runstore.StepCompleted}})
}

// An agent call's record costs one sync of the log, which also makes
// durable the events of its step before it; the step's end pays its own.
// A step without an agent call pays none for it.
func TestOneSyncPerAgentCall(t *testing.T) {
	files := &counting{}
	s := New(Options{Base: t.TempDir(), Files: files})
	r := newRun(t, s, "r1")
	defer r.Close()
	before := files.syncs.Load()
	for i := 1; i <= 20; i++ {
		if err := agentStep(r, "01-a#"+strconv.Itoa(i), i); err != nil {
			t.Fatal(err)
		}
	}
	if n := files.syncs.Load() - before; n != 40 {
		t.Errorf("20 agent steps made %d syncs of the log, want 40: one for each call, one for each step's end", n)
	}
	if c := r.Progress().Agent; c == nil || c.Calls != 20 {
		t.Errorf("the record counts %+v agent calls, want 20", c)
	}
}

// BenchmarkAgentCall is the cost of recording an agent call as it
// begins: one line written and, "durable", synced. It is paid once per
// agent call (whose own command takes from a second to minutes), never
// by a step or action that calls no agent.
func BenchmarkAgentCall(b *testing.B) {
	for _, c := range []struct {
		name   string
		noSync bool
	}{{"durable", false}, {"nosync", true}} {
		b.Run(c.name, func(b *testing.B) {
			files := &counting{}
			s := New(Options{Base: b.TempDir(), Files: files, NoSync: c.noSync})
			r, err := s.Create(runstore.NewRun{Start: runstore.Start{RunID: "r1", Skill: "demo", StartedAt: time.Now().UTC()}}, runstore.ClaimOptions{})
			if err != nil {
				b.Fatal(err)
			}
			defer r.Close()
			before, n := files.syncs.Load(), 0
			for b.Loop() {
				n++
				if err := r.AgentCall(runstore.Conversation{Calls: n, Thread: "5a1e0000-0000-4000-8000-000000000001"}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(files.syncs.Load()-before)/float64(n), "syncs/op")
		})
	}
}

// The agent call's line is as docs/runtime.md shows it (events.jsonl),
// its time and thread elided there.
func TestAgentCallLineAsDocumented(t *testing.T) {
	s := newStore(t, nil)
	r := newRun(t, s, "r1")
	if err := r.Commit(runstore.Event{From: "pending", To: runstore.State(runstore.RunRunning)}); err != nil {
		t.Fatal(err)
	}
	if err := r.AgentCall(runstore.Conversation{Calls: 3, Thread: "…", CostUSD: 0.5}); err != nil {
		t.Fatal(err)
	}
	dir := r.Where()
	r.Close()
	data, err := os.ReadFile(filepath.Join(dir, EventsFile))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	got := regexp.MustCompile(`"time":"[^"]*"`).ReplaceAllString(lines[len(lines)-1], `"time":"…"`)
	doc, err := os.ReadFile("../../../docs/runtime.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), "`"+got+"`") {
		t.Errorf("docs/runtime.md does not show the agent call's line as it is written:\n%s", got)
	}
}
