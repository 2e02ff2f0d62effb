package sqlstore

import (
	"context"
	"errors"
	"math"
	"syscall"
	"testing"
	"time"

	"github.com/skillkit/skillkit/internal/runstore"
	"github.com/skillkit/skillkit/internal/runstore/sqlstore/sqltest"
)

// A write whose commit went through but whose answer the database lost
// (it went away at that moment) is found written by the next try, which
// writes only what came after it: nothing is lost, nothing is written
// twice.
func TestWriteAfterALostAnswer(t *testing.T) {
	sqltest.Each(t, func(t *testing.T, url string) {
		ctx := context.Background()
		d := openDB(t, url)
		h := createRun(t, d)
		ev := func(step string) runstore.Event {
			return runstore.Event{Run: "r1", Phase: "01-a", Step: step, From: "executing", To: "completed"}
		}
		h.Append(ctx, runstore.Batch{Events: []runstore.Event{ev("01-a#1"), ev("01-a#2")}, Metrics: []runstore.Metric{{Kind: runstore.KindStep}}}, runstore.Buffered)
		// The try commits; its answer is lost.
		if err := h.try(ctx); err != nil {
			t.Fatal(err)
		}
		n := sizes(&h.waiting)
		h.unsure = &n
		if err := h.Append(ctx, runstore.Batch{Events: []runstore.Event{ev("01-a#3")}}, runstore.Durable); err != nil {
			t.Fatalf("the write after the lost answer: %v", err)
		}
		log, err := d.Backend("").ReadEvents(ctx, "r1")
		if err != nil {
			t.Fatal(err)
		}
		var steps []string
		for _, e := range log.Events {
			steps = append(steps, e.Step)
		}
		if len(steps) != 3 || steps[0] != "01-a#1" || steps[2] != "01-a#3" {
			t.Errorf("events after the lost answer: %v, want each of 3 once", steps)
		}
		// A lost try of a metric alone, then an event: the metric is
		// found by its own row, not by the event that came after it.
		h.Append(ctx, runstore.Batch{Metrics: []runstore.Metric{{Kind: runstore.KindStep}}}, runstore.Buffered)
		if err := h.try(ctx); err != nil {
			t.Fatal(err)
		}
		n = sizes(&h.waiting)
		h.unsure = &n
		if err := h.Append(ctx, runstore.Batch{Events: []runstore.Event{ev("01-a#4")}}, runstore.Durable); err != nil {
			t.Fatalf("the write after a lost metric: %v", err)
		}
		var events, metrics int
		d.db.QueryRowContext(ctx, d.q(`SELECT COUNT(*) FROM events WHERE run_id = ?`), "r1").Scan(&events)
		d.db.QueryRowContext(ctx, d.q(`SELECT COUNT(*) FROM metrics WHERE run_id = ?`), "r1").Scan(&metrics)
		if events != 4 || metrics != 2 {
			t.Errorf("%d events and %d metrics, want 4 and 2", events, metrics)
		}
	})
}

// Retry tries a transient error again until the outage is over, and says
// when the database went and came back; a lasting error, or one past the
// outage, ends it.
func TestRetry(t *testing.T) {
	var said []string
	d := &DB{}
	d.RideOut(Outage{For: time.Second, Say: func(f string, _ ...any) { said = append(said, f) }})
	tries := 0
	err := d.Retry(context.Background(), "testing", func() error {
		if tries++; tries < 3 {
			return syscall.ECONNREFUSED
		}
		return nil
	})
	if err != nil || tries != 3 || len(said) != 2 {
		t.Errorf("Retry = %v after %d tries, said %q", err, tries, said)
	}
	lasting := errors.New("syntax error")
	if err := d.Retry(context.Background(), "testing", func() error { return lasting }); !errors.Is(err, lasting) {
		t.Errorf("a lasting error: %v", err)
	}
	d.RideOut(Outage{For: 150 * time.Millisecond})
	if err := d.Retry(context.Background(), "testing", func() error { return syscall.ECONNREFUSED }); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("past the outage: %v", err)
	}
}

// RetryWrite does not apply twice what a try applied before its answer
// was lost: the next try asks first.
func TestRetryWriteAppliedOnce(t *testing.T) {
	d := &DB{}
	d.RideOut(Outage{For: time.Second})
	applied, tries := 0, 0
	err := d.RetryWrite(context.Background(), "testing", func() (bool, error) { return applied > 0, nil }, func() error {
		tries++
		applied++
		return syscall.ECONNRESET // the commit went through, its answer did not
	})
	if err != nil || applied != 1 || tries != 1 {
		t.Errorf("RetryWrite = %v, applied %d times in %d tries, want once", err, applied, tries)
	}
}

// A claim whose answer was lost is found by its token: the run is held
// with it, and with no other.
func TestHoldsAfterALostClaim(t *testing.T) {
	sqltest.Each(t, func(t *testing.T, url string) {
		ctx := context.Background()
		d := openDB(t, url)
		h := createRun(t, d)
		if ok, err := d.holds(ctx, "r1", h.claim.token); !ok || err != nil {
			t.Errorf("holds with the claim's token = %v, %v", ok, err)
		}
		if ok, err := d.holds(ctx, "r1", "another"); ok || err != nil {
			t.Errorf("holds with another token = %v, %v", ok, err)
		}
	})
}

// A metric that JSON cannot hold (a duration that is not a number) fails
// its write, and no row of it is stored: its body was stored cut short.
func TestMetricThatCannotBeEncodedIsNotStored(t *testing.T) {
	sqltest.Each(t, func(t *testing.T, url string) {
		ctx := context.Background()
		d := openDB(t, url)
		h := createRun(t, d)
		bad := runstore.Batch{Metrics: []runstore.Metric{{Time: time.Now(), Kind: runstore.KindStep, DurationMS: math.NaN()}}}
		if err := h.Append(ctx, bad, runstore.Durable); err == nil {
			t.Fatal("a metric of NaN ms was written")
		}
		var metrics int
		if err := d.db.QueryRowContext(ctx, d.q(`SELECT COUNT(*) FROM metrics WHERE run_id = ?`), "r1").Scan(&metrics); err != nil {
			t.Fatal(err)
		}
		if metrics != 0 {
			t.Errorf("%d metric rows stored, want none", metrics)
		}
	})
}
