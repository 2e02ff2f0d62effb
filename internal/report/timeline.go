package report

import (
	"fmt"
	"slices"
	"time"

	"github.com/skillkit/skillkit/graph"
	"github.com/skillkit/skillkit/internal/runstore"
)

// bar is one phase, step, action or agent call on the timeline: from its
// first transition to its last.
type bar struct {
	label  string
	depth  int
	status graph.Status
	start  time.Time
	end    time.Time
	// retries are when the bar's unit waited to try again.
	retries []time.Time
	detail  string
}

// Timeline geometry, in SVG pixels: a column of labels, then the chart.
const (
	chartLeft  = 360
	chartWidth = 700
	rowHeight  = 22
	barHeight  = 14
	axisHeight = 28
	labelRunes = 48
)

// timeline is the Gantt chart as the template draws it.
type timeline struct {
	start, end    time.Time
	Width, Height int
	Rows          []row
	Ticks         []tick
}

type row struct {
	Y, TextY, X, W, DurX int
	DurAnchor            string
	Label, Title, Dur    string
	Indent               int
	Fill, Stroke         string
	// Retries are the x of each retry's mark.
	Retries []int
}

type tick struct {
	X    int
	Text string
}

// buildTimeline lays out the bars of a run's events, and its agent calls
// from the metrics, on one time axis.
func buildTimeline(events []runstore.Event, metrics []runstore.Metric) timeline {
	bars := eventBars(events)
	for _, m := range metrics {
		if m.Kind != runstore.KindAgent {
			continue
		}
		d := time.Duration(m.DurationMS * float64(time.Millisecond))
		cost := "cost not reported"
		if m.CostUSD > 0 {
			cost = usd(m.CostUSD)
		}
		b := &bar{label: fmt.Sprintf("agent call %d %s", m.Call, m.Request), depth: 2, status: graph.Completed,
			start: m.Time.Add(-d), end: m.Time, detail: fmt.Sprintf("%d turns, %s", m.Turns, cost)}
		if m.Outcome == string(runstore.StepFailed) {
			b.status = graph.Failed
		}
		bars = append(bars, b)
	}
	// Agent calls come after the bar they ran in: by start, outer first.
	slices.SortStableFunc(bars, func(a, b *bar) int {
		if c := a.start.Compare(b.start); c != 0 {
			return c
		}
		return a.depth - b.depth
	})
	var t timeline
	if len(events) > 0 {
		t.start, t.end = events[0].Time, events[len(events)-1].Time
	}
	for _, b := range bars {
		if b.start.Before(t.start) {
			t.start = b.start
		}
		if b.end.After(t.end) {
			t.end = b.end
		}
	}
	span := t.end.Sub(t.start)
	if span <= 0 {
		span = time.Millisecond
	}
	x := func(at time.Time) int {
		return chartLeft + int(float64(at.Sub(t.start))/float64(span)*chartWidth)
	}
	t.Width = chartLeft + chartWidth + 20
	t.Height = axisHeight + len(bars)*rowHeight + 8
	for i := 0; i <= 5; i++ {
		t.Ticks = append(t.Ticks, tick{X: chartLeft + i*chartWidth/5, Text: duration(span * time.Duration(i) / 5)})
	}
	for i, b := range bars {
		y := axisHeight + i*rowHeight
		r := row{Y: y + (rowHeight-barHeight)/2, TextY: y + rowHeight/2 + 4, X: x(b.start), Indent: 8 + 16*b.depth,
			Label: label(b.label, labelRunes-2*b.depth), Dur: duration(b.end.Sub(b.start)),
			Fill: b.status.Fill(), Stroke: b.status.Stroke()}
		r.W = max(x(b.end)-r.X, 2)
		r.Title = fmt.Sprintf("%s: %s, %s", b.label, b.status, r.Dur)
		if n := len(b.retries); n > 0 {
			r.Title += fmt.Sprintf(", %d retries", n)
		}
		if b.detail != "" {
			r.Title += " (" + b.detail + ")"
		}
		// The duration goes after the bar, or before it where the chart
		// ends.
		r.DurX, r.DurAnchor = r.X+r.W+4, "start"
		if r.DurX > chartLeft+chartWidth-60 {
			r.DurX, r.DurAnchor = r.X-4, "end"
		}
		for _, at := range b.retries {
			r.Retries = append(r.Retries, x(at))
		}
		t.Rows = append(t.Rows, r)
	}
	return t
}

// eventBars reads the bars of the phases, steps and actions from the
// events: a bar opens on its unit's first transition (Event.Opens), takes the last
// outcome of its unit (a failure a retry follows is not the end), and
// ends at its last transition. A unit the run stopped in ends with the
// run, started.
func eventBars(events []runstore.Event) []*bar {
	var bars []*bar
	open := map[string]*bar{}
	for _, e := range events {
		key, name, depth := "", "", 0
		switch {
		case e.Step != "":
			key, name, depth = "step:"+e.Step, e.Step, 1
		case e.Action != "":
			key, name, depth = "action:"+e.Action, e.Action, 1
		case e.Phase != "":
			key, name = "phase:"+e.Phase, e.Phase
		default:
			// The run's own bar: validation and the gate before the first
			// phase, the hooks after the last.
			key, name = "run", "run"
			if e.To == runstore.State(runstore.RunInterrupted) {
				// The tries under way end here; a resume opens new bars.
				for k, b := range open {
					if k != key && b.status == graph.Started {
						b.status, b.end, b.detail = graph.Interrupted, e.Time, e.Detail
						b.label += " (interrupted)"
					}
				}
			}
		}
		b := open[key]
		if e.Opens() || b == nil {
			b = &bar{label: name, depth: depth, status: graph.Started, start: e.Time}
			if e.Detail != "" && key != "run" {
				b.label += " " + e.Detail
			}
			open[key] = b
			bars = append(bars, b)
		}
		b.end = e.Time
		switch e.To {
		case "completed":
			b.status = graph.Completed
		case "interrupted":
			b.status = graph.Interrupted
			b.detail = e.Detail
		case "skipped":
			b.status = graph.Skipped
		case "failed", "aborted":
			b.status = graph.Failed
			b.detail = e.Detail
		case "retrying":
			b.status = graph.Started
			b.retries = append(b.retries, e.Time)
		}
	}
	if len(events) > 0 {
		last := events[len(events)-1].Time
		for _, b := range bars {
			if b.status == graph.Started {
				b.end = last
			}
		}
	}
	return bars
}
