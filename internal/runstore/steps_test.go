package runstore

import (
	"encoding/json"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The compact list gives back every record as it was filed, numbered by
// its place, whatever its time's location.
func TestStepsGiveBackTheirRecords(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 123456789, time.UTC)
	east := time.FixedZone("east", 2*3600)
	recs := []StepRecord{
		NewStepRecord(1, "a", "A", StepCompleted, false, t0),
		NewStepRecord(2, "a", "A", StepCompleted, false, t0.Add(time.Millisecond)),
		{Step: 9, Status: StatusFail, ID: "01-x#1", Title: "one", Result: StepFailed, Timestamp: t0.In(east), Fingerprint: "f"},
		{Step: 4, Status: StatusPass, EvidenceCaptured: true, ID: "b", Skipped: true, Result: StepSkipped, Timestamp: time.Date(9999, 12, 31, 0, 0, 0, 1, time.UTC)},
		{Step: 5, Status: StatusPass, ID: "c", Result: StepCompleted, Timestamp: time.Date(1, 1, 1, 0, 0, 0, 0, time.Local)},
	}
	s := NewSteps(recs...)
	if s.Len() != len(recs) {
		t.Fatalf("%d records, want %d", s.Len(), len(recs))
	}
	for i, want := range recs {
		want.Step = i + 1
		if got := s.At(i); got != want {
			t.Errorf("record %d:\n got %+v\nwant %+v", i, got, want)
		}
	}
	if s.at[0].kind != s.at[1].kind {
		t.Error("two records of one action do not share their kind")
	}
	if !s.has("a") || s.has("01-x#1") || s.failed("01-x#1") != 2 || s.failed("a") != -1 {
		t.Errorf("has a %v, has 01-x#1 %v, failed at %d", s.has("a"), s.has("01-x#1"), s.failed("01-x#1"))
	}
	data, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back Steps
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if again, err := json.Marshal(back); err != nil || string(again) != string(data) {
		t.Errorf("JSON round trip: %v\n got %s\nwant %s", err, again, data)
	}
	if data, _ := json.Marshal(Steps{}); string(data) != "[]" {
		t.Errorf("no records encode as %s, want []", data)
	}
}

// A copy (Progress.Clone) shares the records: what the original appends
// or replaces later does not show in it.
func TestStepsCopyIsUnchangedByTheOriginal(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	p := Progress{CompletedSteps: NewSteps(
		NewStepRecord(1, "a", "A", StepCompleted, false, t0),
		NewStepRecord(2, "b", "B", StepFailed, false, t0),
	), failed: 1}
	kept := p.Clone()
	p.Apply(&Event{Time: t0, Action: "b", From: "loading", To: "completed", Record: &StepRecord{ID: "b", Title: "B", Status: StatusPass, Result: StepCompleted, Timestamp: t0}})
	p.Apply(&Event{Time: t0, Action: "c", From: "loading", To: "completed", Record: &StepRecord{ID: "c", Status: StatusPass, Result: StepCompleted, Timestamp: t0}})
	if p.CompletedSteps.Len() != 3 || p.CompletedSteps.At(1).Result != StepCompleted || p.StepsDone() != 3 {
		t.Errorf("after the retry: %v", p.CompletedSteps)
	}
	if kept.CompletedSteps.Len() != 2 || kept.CompletedSteps.At(1).Result != StepFailed || kept.StepsDone() != 1 {
		t.Errorf("the copy changed with the original: %v", kept.CompletedSteps)
	}
	kept.Apply(&Event{Time: t0, Action: "d", From: "loading", To: "completed", Record: &StepRecord{ID: "d", Status: StatusPass, Result: StepCompleted, Timestamp: t0}})
	if got := p.CompletedSteps.At(2).ID; got != "c" {
		t.Errorf("the copy's append overwrote the original's record 3: %s", got)
	}
}

// BenchmarkStepsLive is the live memory of a 10,000-action loop's
// completedSteps, in bytes per record (B/record): the list is most of
// what a long loop keeps.
func BenchmarkStepsLive(b *testing.B) {
	const n = 10000
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for range b.N {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		var p Progress
		for i := range n {
			p.Apply(&Event{Time: t0, Action: "noop", From: "loading", To: "completed", Record: &StepRecord{ID: "noop", Title: "No-op", Status: StatusPass, Result: StepCompleted, Timestamp: t0.Add(time.Duration(i))}})
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/n, "B/record")
		runtime.KeepAlive(p)
	}
}

// skill-state.yaml's records are written as each record's fields say,
// whatever kind they share.
func TestStepsWrittenAsTheirRecords(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 120000000, time.UTC)
	recs := []StepRecord{
		NewStepRecord(1, "a", "A <&>", StepCompleted, false, t0),
		NewStepRecord(2, "01-x#1", "", StepSkipped, true, t0.In(time.FixedZone("e", 3600))),
		NewStepRecord(3, "a", "A <&>", StepCompleted, false, t0.Add(time.Nanosecond)),
		NewStepRecord(4, "b\n\"c\"", "t", StepFailed, false, t0),
	}
	p := Progress{CompletedSteps: NewSteps(recs...)}
	want := "completedSteps:\n"
	for i, r := range recs {
		want += "  - step: " + strconv.Itoa(i+1) + "\n    status: " + r.Status + "\n    evidenceCaptured: " + strconv.FormatBool(r.EvidenceCaptured) +
			"\n    timestamp: " + quote(r.Timestamp.Format(time.RFC3339Nano)) + "\n    id: " + quote(r.ID) + "\n"
		if r.Title != "" {
			want += "    title: " + quote(r.Title) + "\n"
		}
		if r.Skipped {
			want += "    skipped: true\n"
		}
		want += "    result: " + string(r.Result) + "\n"
	}
	got := string(EncodeProgress(&p))
	if _, after, _ := strings.Cut(got, "completedSteps:\n"); !strings.HasPrefix("completedSteps:\n"+after, want) {
		t.Errorf("records written:\n%s\nwant\n%s", got, want)
	}
}
