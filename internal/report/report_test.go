package report

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/skillkit/skillkit/graph"
	"github.com/skillkit/skillkit/internal/runstore"
)

// TestPage draws a run with a retried step, an action that changed the
// state and an agent call: each is on the page, and nothing is fetched.
func TestPage(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	state := func(s string) json.RawMessage { return json.RawMessage(s) }
	events := []runstore.Event{
		{Time: at(0), From: "", To: "pending", State: state(`{"n":1,"ctx":{"a":1,"b":2}}`)},
		{Time: at(1), Phase: "01-a", From: "idle", To: "loading", Detail: "A"},
		{Time: at(2), Phase: "01-a", Step: "01-a#1", From: "", To: "pending", Detail: "Fetch"},
		{Time: at(3), Phase: "01-a", Step: "01-a#1", From: "executing", To: "failed"},
		{Time: at(4), Phase: "01-a", Step: "01-a#1", From: "failed", To: "retrying"},
		{Time: at(9), Phase: "01-a", Step: "01-a#1", From: "executing", To: "completed", Record: &runstore.StepRecord{Step: 1}},
		{Time: at(10), Phase: "01-a", From: "post_hook", To: "completed"},
		{Time: at(11), Action: "action-x", From: "idle", To: "loading"},
		{Time: at(15), Action: "action-x", From: "verifying", To: "post_hook", State: state(`{"n":2,"ctx":{"a":1},"done":true}`)},
		{Time: at(16), Action: "action-x", From: "post_hook", To: "completed", Record: &runstore.StepRecord{Step: 2}},
		{Time: at(20), From: "running", To: "completed"},
	}
	metrics := []runstore.Metric{{Time: at(14), Kind: runstore.KindAgent, Call: 1, Request: "action", DurationMS: 2, Turns: 3, CostUSD: 0.0123, Outcome: "completed"}}

	bars := eventBars(events)
	var got []string
	for _, b := range bars {
		got = append(got, b.label+"="+string(b.status))
	}
	if want := "run=completed 01-a A=completed 01-a#1 Fetch=completed action-x=completed"; strings.Join(got, " ") != want {
		t.Errorf("bars = %v, want %s", got, want)
	}
	if r := bars[2].retries; len(r) != 1 || !r[0].Equal(at(4)) {
		t.Errorf("retries of the step = %v", r)
	}

	diffs := stateDiffs(events)
	if len(diffs) != 1 || diffs[0].Unit != "action-x" || diffs[0].Position != 2 {
		t.Fatalf("diffs = %+v", diffs)
	}
	var changes []string
	for _, c := range diffs[0].Changes {
		changes = append(changes, c.Kind()+" "+c.Path)
	}
	if want := "removed ctx.b, added done, changed n"; strings.Join(changes, ", ") != want {
		t.Errorf("changes = %v, want %s", changes, want)
	}

	var page strings.Builder
	sum := &runstore.Summary{ID: "r1", Skill: "demo", State: runstore.RunCompleted}
	sum.Progress.StartedAt = t0
	if err := Write(&page, Run{Summary: sum, Events: events, Metrics: metrics, Graph: &graph.Graph{}}); err != nil {
		t.Fatal(err)
	}
	html := page.String()
	for _, want := range []string{`id="timeline"`, "agent call 1 action", "$0.0123", "1 retries", `<code>ctx.b</code>`, `id="graph"`} {
		if !strings.Contains(html, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(html, `id="error"`) {
		t.Error("a completed run has an error panel")
	}
}

// TestInterruptedRun draws examples/agent-driven as a real run recorded
// it: stopped in its first action for want of an agent, resumed 2.6 s
// later with one. The interrupted try is its own bar in its own colour,
// the action is no repeat, and "took" is the working time with the wait
// apart.
func TestInterruptedRun(t *testing.T) {
	data, err := os.ReadFile("../runview/testdata/interrupted-resumed.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var events []runstore.Event
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var e runstore.Event
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatal(err)
		}
		events = append(events, e)
	}
	var got []string
	for _, b := range eventBars(events) {
		if b.status == graph.Interrupted {
			got = append(got, b.label)
		}
	}
	if want := "orchestrator Orchestrator (interrupted) action-outline Outline (interrupted)"; strings.Join(got, " ") != want {
		t.Errorf("interrupted bars: %q, want %s", got, want)
	}
	v := build(Run{Summary: &runstore.Summary{ID: "r", State: runstore.RunCompleted}, Events: events})
	if v.Took > time.Second || v.Idle < 2*time.Second {
		t.Errorf("took %s, idle %s: the wait for the resume is counted as work", v.Took, v.Idle)
	}
}
