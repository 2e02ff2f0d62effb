package runstore

import (
	"bufio"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
)

// A log written before events carried patches (whole states on every
// line that changed one: docs/runtime.md's example as it was) replays to
// the state its last line says.
func TestReplayLogWithWholeStates(t *testing.T) {
	events := readLog(t, "testdata/events-v1.jsonl")
	rep, err := Replay("v1", events, 0)
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]any
	if err := json.Unmarshal(events[len(events)-1].State, &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(rep.State, want) {
		t.Errorf("replayed state %v, want %v", rep.State, want)
	}
	if rep.Progress.RunState != RunCompleted || len(rep.Checkpoints) != 1 || rep.Taken != 1 {
		t.Errorf("replayed %s with %d checkpoints (%d taken), want completed with 1", rep.Progress.RunState, len(rep.Checkpoints), rep.Taken)
	}
	var ck map[string]any
	if err := json.Unmarshal(rep.Checkpoints[0].State, &ck); err != nil || ck["context"] == nil {
		t.Errorf("the checkpoint's state %s lacks the context the step before it set (%v)", rep.Checkpoints[0].State, err)
	}
}

// readLog reads a committed events.jsonl.
func readLog(t *testing.T, name string) []Event {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var events []Event
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatal(err)
		}
		events = append(events, e)
	}
	return events
}

// The same three-action loop logged before an action's completion left
// its record and its checkpoint's times implied (v2: the record whole,
// the mark's times written) and after (v3: "done" and an empty mark, the
// loading lines without from and, after the first, without the title)
// replays to the same steps and checkpoints (the last action's and the
// phase's), each field filled in.
func TestReplayLogWithImpliedCompletions(t *testing.T) {
	var reps [2]*Replayed
	for i, name := range []string{"testdata/events-v2.jsonl", "testdata/events-v3.jsonl"} {
		events := readLog(t, name)
		done := 0
		for _, e := range events {
			if e.Done {
				done++
			}
		}
		if want := []int{0, 3}[i]; done != want {
			t.Fatalf("%s: %d completions logged implied, want %d", name, done, want)
		}
		rep, err := Replay(name, events, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range events {
			if e.Action != "" && e.To == "loading" && (e.From != "idle" || e.Detail != "No-op") {
				t.Errorf("%s: an action's loading line reads as from %q, titled %q", name, e.From, e.Detail)
			}
		}
		if rep.Progress.CompletedSteps.Len() != 3 || len(rep.Checkpoints) != 2 || rep.Taken != 4 {
			t.Fatalf("%s: %d steps, %d checkpoints (%d taken), want 3, 2 (4)", name, rep.Progress.CompletedSteps.Len(), len(rep.Checkpoints), rep.Taken)
		}
		for n, s := range rep.Progress.CompletedSteps.Records() {
			if s.Step != n+1 || s.ID != "action-noop" || s.Title != "No-op" || s.Status != StatusPass || s.Result != StepCompleted || s.Timestamp.IsZero() {
				t.Errorf("%s: step %d replayed as %+v", name, n+1, s)
			}
		}
		for _, c := range rep.Checkpoints {
			w := c.Worker
			if c.Hook != "auto_checkpoint" || w.ID != "g3-worker" || (w.Unit != "action-noop" && w.Unit != "orchestrator") || w.State != "completed" || w.StartedAt.IsZero() || w.CompletedAt == nil || w.CompletedAt.Before(w.StartedAt) {
				t.Errorf("%s: checkpoint %d replayed as %+v", name, c.N, c)
			}
		}
		reps[i] = rep
	}
	if !reflect.DeepEqual(reps[0].State["completed_actions"], reps[1].State["completed_actions"]) {
		t.Errorf("the states differ: %v and %v", reps[0].State, reps[1].State)
	}
}

// states are pairs of states an update goes between, as JSON: the shapes
// the runtime and skills write (a loop's bookkeeping, nested context, a
// list replaced or shrunk, a field removed, a type changed).
var states = [][2]string{
	{`{}`, `{"status":"running","completed_actions":[],"errors":[]}`},
	{`{"completed_actions":["a"],"current_action":null}`, `{"completed_actions":["a","b","c"],"current_action":"b"}`},
	{`{"completed_actions":["a","b"]}`, `{"completed_actions":["a"]}`},
	{`{"completed_actions":["a","b"]}`, `{"completed_actions":["x","b","c"]}`},
	{`{"context":{"items":[1,2],"name":"n"}}`, `{"context":{"items":[1,2,{"k":[3]}],"name":"m","new":true}}`},
	{`{"context":{"a":1,"b":{"c":2}}}`, `{"context":{"b":{}}}`},
	{`{"x":[1]}`, `{"x":{"0":1}}`},
	{`{"x":{"y":1}}`, `{"x":null}`},
	{`{"errors":[{"action":"a","message":"m"}],"error_count":1}`, `{"errors":[{"action":"a","message":"m"},{"action":"b","message":"n"}],"error_count":2}`},
	{`{"a.b":1,"weird key/~":"v"}`, `{"a.b":2}`},
}

func decode(t testing.TB, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// A patch takes the state before to the state after, and a list that grew
// at its end is recorded as what it gained.
func TestDiffThenPatch(t *testing.T) {
	for _, c := range states {
		before, after := decode(t, c[0]), decode(t, c[1])
		changes, err := Diff(before, after)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Patch(decode(t, c[0]), changes)
		if err != nil {
			t.Fatalf("%s → %s: %v", c[0], c[1], err)
		}
		if !reflect.DeepEqual(got, after) {
			t.Errorf("%s patched by %+v is %v, want %s", c[0], changes, got, c[1])
		}
		again, _ := Diff(after, got)
		if len(again) != 0 {
			t.Errorf("%s: states equal after the patch still differ by %+v", c[1], again)
		}
	}
	changes, _ := Diff(decode(t, states[1][0]), decode(t, states[1][1]))
	data, _ := json.Marshal(changes)
	if want := `[{"append":"completed_actions","value":["b","c"]},{"set":"current_action","value":"b"}]`; string(data) != want {
		t.Errorf("patch %s, want %s", data, want)
	}
}

// A change reads back as it was written, a nested path as a list, and in
// the form logs had before ({"op", "path"}).
func TestChangeJSON(t *testing.T) {
	for _, c := range []struct {
		change      Change
		json, older string
	}{
		{Change{Op: OpSet, Path: []string{"updated_at"}, Value: json.RawMessage(`"t"`)}, `{"set":"updated_at","value":"t"}`, `{"op":"set","path":["updated_at"],"value":"t"}`},
		{Change{Op: OpAppend, Path: []string{"ctx", "items"}, Value: json.RawMessage(`[1]`)}, `{"append":["ctx","items"],"value":[1]}`, `{"op":"append","path":["ctx","items"],"value":[1]}`},
		{Change{Op: OpUnset, Path: []string{"a.b"}}, `{"unset":"a.b"}`, `{"op":"unset","path":["a.b"]}`},
		{Change{Op: OpSet, Path: []string{`we"ird`, "ü\n"}, Value: json.RawMessage(`1`)}, `{"set":["we\"ird","ü\n"],"value":1}`, `{"op":"set","path":["we\"ird","ü\n"],"value":1}`},
	} {
		data, err := json.Marshal(c.change)
		if err != nil || string(data) != c.json {
			t.Errorf("%+v written as %s (%v), want %s", c.change, data, err, c.json)
		}
		for _, form := range []string{c.json, c.older} {
			var got Change
			if err := json.Unmarshal([]byte(form), &got); err != nil || !reflect.DeepEqual(got, c.change) {
				t.Errorf("%s read as %+v (%v), want %+v", form, got, err, c.change)
			}
		}
	}
	var c Change
	if err := json.Unmarshal([]byte(`{"set":"x","unset":"y"}`), &c); err == nil || !strings.Contains(err.Error(), "both set and unset") {
		t.Errorf("a change of two operations: %v", err)
	}
	if err := json.Unmarshal([]byte(`{"set":3,"value":1}`), &c); err == nil || !strings.Contains(err.Error(), "path") {
		t.Errorf("a change whose path is a number: %v", err)
	}
}

// A patch that does not fit the state is an error that names the field,
// never a panic.
func TestPatchThatDoesNotFit(t *testing.T) {
	for _, c := range []struct{ state, patch, want string }{
		{`{"x":1}`, `[{"op":"append","path":["x"],"value":[1]}]`, "append x"},
		{`{"x":1}`, `[{"op":"set","path":["x","y"],"value":1}]`, "x is not an object"},
		{`{}`, `[{"op":"set","path":[],"value":1}]`, "no path"},
		{`{}`, `[{"op":"merge","path":["x"],"value":1}]`, "not an operation"},
		{`{}`, `[{"op":"set","path":["x"],"value":}]`, "invalid"},
	} {
		var changes []Change
		if err := json.Unmarshal([]byte(c.patch), &changes); err != nil {
			// A value that is not JSON cannot be decoded into a patch at
			// all: the log's reader reports that line.
			if c.want == "invalid" {
				continue
			}
			t.Fatal(err)
		}
		_, err := Patch(decode(t, c.state), changes)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s on %s: %v, want an error with %q", c.patch, c.state, err, c.want)
		}
	}
}

func FuzzDiffPatch(f *testing.F) {
	for _, c := range states {
		f.Add(c[0], c[1], `[{"op":"append","path":["a","b"],"value":[1]}]`)
		f.Add(c[0], c[1], `[{"append":"a","value":[1]},{"unset":["b","c"]}]`)
	}
	f.Fuzz(func(t *testing.T, a, b, patch string) {
		var changes []Change
		if json.Unmarshal([]byte(patch), &changes) == nil {
			var st map[string]any
			if json.Unmarshal([]byte(a), &st) == nil {
				Patch(st, changes) // an error or a state, never a panic
			}
		}
		var before, after map[string]any
		if json.Unmarshal([]byte(a), &before) != nil || json.Unmarshal([]byte(b), &after) != nil || before == nil || after == nil {
			return
		}
		changes, err := Diff(before, after)
		if err != nil {
			t.Fatal(err)
		}
		// As the log has it: written, then read.
		data, err := json.Marshal(changes)
		if err != nil {
			t.Fatal(err)
		}
		changes = nil
		if err := json.Unmarshal(data, &changes); err != nil {
			t.Fatalf("the patch %s does not read: %v", data, err)
		}
		var fresh map[string]any
		json.Unmarshal([]byte(a), &fresh)
		got, err := Patch(fresh, changes)
		if err != nil {
			t.Fatalf("%s → %s by %+v: %v", a, b, changes, err)
		}
		if !reflect.DeepEqual(got, after) {
			t.Fatalf("%s patched by %+v is %v, want %s", a, changes, got, b)
		}
	})
}

// Go's nil map and nil list are JSON's null: a patch records them so, and
// never patches into one.
func TestDiffOfNil(t *testing.T) {
	for _, c := range []struct{ before, after map[string]any }{
		{map[string]any{"l": []any(nil)}, map[string]any{"l": []any{"a"}}},
		{map[string]any{"l": []any{}}, map[string]any{"l": []any(nil)}},
		{map[string]any{"m": map[string]any(nil)}, map[string]any{"m": map[string]any{"a": 1.0}}},
		{map[string]any{"m": map[string]any{}}, map[string]any{"m": map[string]any(nil)}},
	} {
		changes, err := Diff(c.before, c.after)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := json.Marshal(c.before)
		got, err := Patch(decode(t, string(data)), changes)
		if err != nil {
			t.Fatalf("%v → %v by %+v: %v", c.before, c.after, changes, err)
		}
		want, _ := json.Marshal(c.after)
		if have, _ := json.Marshal(got); string(have) != string(want) {
			t.Errorf("%v patched by %+v is %s, want %s", c.before, changes, have, want)
		}
	}
}
