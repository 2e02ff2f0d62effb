package orchestrator_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	lifecycle "github.com/skillkit/skillkit/internal/run"
	"github.com/skillkit/skillkit/internal/runstore/fsstore"

	"github.com/skillkit/skillkit/internal/engine"
	"github.com/skillkit/skillkit/internal/runstore"
	"github.com/skillkit/skillkit/internal/testfs"
)

// The loop's place shows in `skillkit status` while an action runs: the
// action, the iteration, the actions done and the errors.
func TestStatusShowsLoop(t *testing.T) {
	s := skillFiles{
		decision: "function selectNextAction(state) { return state.completed_actions.length < 2 ? 'action-a' : 'action-wait'; }",
		acts: map[string]string{
			"action-a":    "return {};",
			"action-wait": "Bash('sleep 30'); return {};",
		},
	}.write(t)
	o := options(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out bytes.Buffer
	o.Observe = func(e runstore.Event) {
		if e.Action != "action-wait" || e.To != runstore.State(engine.UnitExecuting) {
			return
		}
		sum, err := o.Store.Status("")
		if err != nil {
			t.Error(err)
		}
		runstore.WriteStatus(&out, sum)
		cancel()
	}
	res, err := lifecycle.Run(ctx, o)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("run %v: %v", res, err)
	}
	for _, want := range []string{
		"action:        action-wait\n",
		"iteration:     3/100\n",
		"actions done:  2 (last: action-a)\n",
		"errors:        0\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("status lacks %q:\n%s", want, &out)
		}
	}
	// Interrupted mid-action: the resume runs it again, the rest never.
	if p := progress(t, res.Dir); p.Loop.CurrentAction != "action-wait" || p.RunState != runstore.RunInterrupted {
		t.Errorf("after the interrupt: %s, loop %+v", p.RunState, p.Loop)
	}
	testfs.WriteFile(t, s.Dir+"/phases/actions/action-wait.md", "# Action: action-wait\n\n## Execution\n\n```javascript\nfunction execute(state) { return { status: 'completed' }; }\n```\n")
	o.Skill = load(t, s.Dir)
	o.Resume, o.Force, o.Observe = res.ID, true, nil
	if res, err = run(t, o); err != nil {
		t.Fatal(err)
	}
	if got := actions(state(t, res.Dir)); got != "action-a action-a action-wait" {
		t.Errorf("actions after the resume = %q", got)
	}
}

// Every action goes through the unit lifecycle of the engine, inside the
// orchestrator phase, with its metric line and checkpoint.
func TestActionLifecycleEvents(t *testing.T) {
	s := skillFiles{
		decision: "function selectNextAction(state) { return state.completed_actions.length ? null : 'action-a'; }",
		acts:     map[string]string{"action-a": "return { x: 1 };"},
		fields:   "  x?: number;",
	}.write(t)
	res, err := run(t, options(t, s))
	if err != nil {
		t.Fatal(err)
	}
	events, err := fsstore.New(fsstore.Options{}).Events(res.Dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range events {
		who := "run"
		switch {
		case e.Action != "":
			who = e.Action
		case e.Phase != "":
			who = e.Phase
		}
		got = append(got, who+": "+string(e.From)+" > "+string(e.To))
	}
	want := []string{
		"run:  > pending", "run: pending > validating", "run: validating > ready", "run: ready > running",
		"orchestrator: idle > loading", "orchestrator: loading > planning", "orchestrator: planning > executing",
		// An action's passing states are not written: two lines an action.
		"action-a: idle > loading", "action-a: loading > completed",
		"orchestrator: executing > verifying", "orchestrator: verifying > post_hook", "orchestrator: post_hook > completed",
		"run: running > completed",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	metrics, _ := fsstore.New(fsstore.Options{}).Metrics(res.Dir)
	if len(metrics) != 2 || metrics[0].Kind != runstore.KindAction || metrics[0].Action != "action-a" || metrics[0].Outcome != "completed" {
		t.Errorf("metrics = %+v", metrics)
	}
}
