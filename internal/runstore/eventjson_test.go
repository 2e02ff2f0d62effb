package runstore

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// sameJSON fails unless AppendJSON writes e as json.Marshal does: the
// same JSON value, on one line.
func sameJSON(t *testing.T, e *Event) {
	t.Helper()
	want, werr := json.Marshal(e)
	got, gerr := e.AppendJSON([]byte("x"))
	if (werr != nil) != (gerr != nil) {
		t.Fatalf("json.Marshal: %v, AppendJSON: %v", werr, gerr)
	}
	if werr != nil {
		return
	}
	if got[0] != 'x' {
		t.Fatalf("AppendJSON did not append: %s", got)
	}
	got = got[1:]
	if bytes.ContainsAny(got, "\n\r") {
		t.Fatalf("a line break in the line: %q", got)
	}
	var w, g any
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("AppendJSON wrote no JSON: %v\n%s", err, got)
	}
	if !reflect.DeepEqual(w, g) {
		t.Errorf("AppendJSON differs from json.Marshal:\n got %s\nwant %s", got, want)
	}
}

// Every line of the committed logs, and events with every field set,
// are written as json.Marshal writes them.
func TestEventAppendJSONIsMarshal(t *testing.T) {
	logs, _ := filepath.Glob("testdata/events-*.jsonl")
	for _, name := range logs {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var e Event
			if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			sameJSON(t, &e)
		}
		f.Close()
	}
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 6, time.FixedZone("x", -3600))
	done := t0.Add(time.Second)
	msg := "it <failed> & \"stopped\"\n\t\x01 \u2028 ✓ \xff"
	w := Worker{ID: "w", Skill: "s", Unit: "u<1>", State: "completed", StartedAt: t0, CompletedAt: &done, Error: &msg}
	full := Event{
		Time: t0, Run: "r", Phase: "01-a", Action: msg, Step: "01-a#1", From: "loading", To: "completed", Detail: msg,
		Start:  &Start{RunID: "r", Skill: "s", StartedAt: t0, Inputs: map[string]string{"a": "<b>"}},
		State:  json.RawMessage(`{"a": [1, 2], "b": "<x>"}`),
		Patch:  []Change{{Op: OpSet, Path: []string{"a"}, Value: json.RawMessage(`1`)}, {Op: OpAppend, Path: []string{"l", msg}, Value: json.RawMessage(`["x"]`)}, {Op: OpUnset, Path: []string{"z"}}, {Op: "replace", Path: []string{"q"}, Value: json.RawMessage(`null`)}},
		Record: &StepRecord{Step: 3, Status: StatusFail, Timestamp: t0, ID: msg, Title: msg, Result: StepFailed, Fingerprint: "f"},
		Done:   true, Inputs: map[string]string{"k": msg},
		Error:      &RunError{Step: 1, Message: msg, ID: "x"},
		Loop:       &Loop{Iteration: 2, MaxIterations: 3, CurrentAction: msg},
		Agent:      &Conversation{Calls: 2, Thread: "t", CostUSD: 0.25},
		Checkpoint: &Mark{Hook: "auto_checkpoint", Worker: w},
		Position:   -7,
		Scope:      map[string]any{"x": []any{1.5, "<y>", nil, map[string]any{}}},
	}
	allSet(t, full)
	sameJSON(t, &full)
	for _, m := range []Mark{{Hook: "h", Worker: w, implied: true}, {Hook: "h", Worker: w, implied: true, timed: true}} {
		e := Event{Time: t0, Action: "a", To: "completed", Checkpoint: &m}
		sameJSON(t, &e)
	}
	sameJSON(t, &Event{})
	// A change's value as json.Marshal takes it: compacted (a line break
	// in it would split the line), and refused when it is no JSON.
	for _, v := range []string{"[1,\n 2]", "{\r\n\"a\": \"<\u2028>\"}\n", "{", "[1] 2"} {
		sameJSON(t, &Event{Time: t0, To: "x", Patch: []Change{{Op: OpSet, Path: []string{"a"}, Value: json.RawMessage(v)}}})
	}
	bad := Event{Time: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), To: "x"}
	if _, err := bad.AppendJSON(nil); err == nil {
		t.Error("a time past year 9999 was encoded")
	}
}

// allSet fails for each exported field v leaves zero: a field added to
// Event or Metric must be set in its test too, or AppendJSON may leave it
// out unseen.
func allSet(t *testing.T, v any) {
	t.Helper()
	rv := reflect.ValueOf(v)
	for i := range rv.NumField() {
		if f := rv.Type().Field(i); f.IsExported() && rv.Field(i).IsZero() {
			t.Errorf("%T.%s is not set: set it, and check that AppendJSON writes it", v, f.Name)
		}
	}
}

// FuzzEventAppendJSON holds AppendJSON to json.Marshal's value, and to
// one line, whatever the strings and the patch's value.
func FuzzEventAppendJSON(f *testing.F) {
	f.Add("action-noop", "No-op", "completed_actions", `["action-noop"]`, 47)
	f.Add("a\nb", "<&>", "\u2028", `{"x": 1}`, -1)
	f.Fuzz(func(t *testing.T, action, detail, key, value string, position int) {
		if !json.Valid([]byte(value)) {
			return
		}
		e := Event{Time: time.Unix(0, int64(position)).UTC(), Action: action, From: State(detail), To: State(key), Detail: detail,
			Patch: []Change{{Op: OpSet, Path: []string{key, detail}, Value: json.RawMessage(value)}}, Position: position}
		sameJSON(t, &e)
	})
}

// A metrics line is what json.Marshal writes, byte for byte where no
// string needs escaping, whatever the float.
func TestMetricAppendJSONIsMarshal(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 600, time.UTC)
	full := Metric{Time: t0, Run: "r", Kind: KindAgent, Phase: "p", Action: "a", Step: "p#1", DurationMS: 1, Attempts: 2, Outcome: "failed", Request: "q", Call: 3, Session: "s", Turns: 4, CostUSD: 1, InputTokens: 5, OutputTokens: 6, ContextWindow: 7}
	allSet(t, full)
	for _, f := range []float64{0, 3.582, -0.5, 1e-6, 9.99e-7, 1e-7, 1.5e-300, 5e-324, 1e20, 1e21, 123456789.123, 1.7976931348623157e308, -2e-9} {
		for _, m := range []Metric{
			{Time: t0, Kind: KindAction, Action: "action-noop", DurationMS: f, Attempts: 1, Outcome: "completed"},
			full,
		} {
			if m.Kind == KindAgent {
				m.CostUSD = f
			}
			want, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			got, err := m.AppendJSON(nil)
			if err != nil || string(got) != string(want) {
				t.Errorf("%v: AppendJSON %s (%v)\nwant %s", f, got, err, want)
			}
		}
	}
	odd := Metric{Time: t0, Kind: "<k>", Action: "a\n\"b\"", Outcome: "\xff"}
	want, _ := json.Marshal(odd)
	got, _ := odd.AppendJSON(nil)
	var w, g any
	if json.Unmarshal(want, &w) != nil || json.Unmarshal(got, &g) != nil || !reflect.DeepEqual(w, g) {
		t.Errorf("AppendJSON %s\nwant %s", got, want)
	}
	for _, f := range []float64{math.NaN(), math.Inf(1)} {
		if _, err := (&Metric{Time: t0, DurationMS: f}).AppendJSON(nil); err == nil {
			t.Errorf("%v was encoded", f)
		}
	}
}
