// Package report renders a run's record as one self-contained HTML page:
// a timeline of its phases, steps, actions and agent calls, the graph of
// what ran, the error that stopped it with the output it left, and what
// each action changed in the state. The page needs nothing but itself (no
// network, no scripts): CSS and SVG are inline, so that it can be mailed,
// attached to a CI job or opened years later.
package report

import (
	"embed"
	"fmt"
	"html/template"
	"io"
	"regexp"
	"strings"
	"time"

	"github.com/skillkit/skillkit/graph"
	"github.com/skillkit/skillkit/internal/runstore"
	"github.com/skillkit/skillkit/internal/runview"
)

// Run is the record of one run, as a store reads it.
type Run struct {
	Summary *runstore.Summary
	Events  []runstore.Event
	Metrics []runstore.Metric
	// Graph is the run's skill painted with the run (graph.Paint); nil
	// when the skill could not be read, and the page then has no graph.
	Graph *graph.Graph
}

//go:embed report.html.tmpl
var files embed.FS

var page = template.Must(template.New("report.html.tmpl").Funcs(template.FuncMap{
	"duration": duration,
	"usd":      usd,
}).ParseFS(files, "report.html.tmpl"))

// Write renders the report of r as HTML.
func Write(w io.Writer, r Run) error {
	return page.Execute(w, build(r))
}

// view is what the template draws.
type view struct {
	ID, Skill, Mode string
	State           runstore.RunState
	Started         string
	// Took is the run's working time, Idle the time it sat interrupted
	// or crashed before a resume: a run resumed the next day took what it
	// worked.
	Took, Idle time.Duration
	StepsDone  int
	TotalSteps int
	Timeline   timeline
	Graph      *graphView
	Mermaid    string
	Error      *errorView
	Diffs      []unitDiff
	Agent      []runstore.Metric
	CostUSD    float64
	Legend     []graph.Status
}

func build(r Run) *view {
	s := r.Summary
	p := &s.Progress
	v := &view{ID: s.ID, Skill: s.Skill, Mode: p.Mode, State: s.State, StepsDone: s.StepsDone,
		TotalSteps: p.TotalSteps, Started: p.StartedAt.Local().Format(time.DateTime),
		Legend: []graph.Status{graph.Completed, graph.Failed, graph.Interrupted, graph.Started, graph.Skipped}}
	v.Timeline = buildTimeline(r.Events, r.Metrics)
	rv := runview.Read(r.Events)
	v.Took, v.Idle = rv.Work, rv.Idle
	if r.Graph != nil {
		v.Graph = drawGraph(r.Graph)
		v.Mermaid = r.Graph.Mermaid()
	}
	if e := p.Error; e != nil {
		v.Error = newErrorView(e)
	}
	v.Diffs = stateDiffs(r.Events)
	for _, m := range r.Metrics {
		if m.Kind == runstore.KindAgent {
			v.Agent = append(v.Agent, m)
			v.CostUSD += m.CostUSD
		}
	}
	return v
}

// errorView is the error panel: where the failure is in the skill, what
// it said, and the last lines of its output.
type errorView struct {
	ID, Where, Message string
	Tail               []string
}

// tailLines is how much of a failure's output the report keeps: the end,
// where the cause usually is.
const tailLines = 30

// whereRe reads the file:line (and column) a step error starts with.
var whereRe = regexp.MustCompile(`^([^\s:]+:\d+(?::\d+)?): (.*)$`)

func newErrorView(e *runstore.RunError) *errorView {
	ev := &errorView{ID: e.ID, Message: e.Message}
	if m := whereRe.FindStringSubmatch(e.Message); m != nil {
		// The panel names the step already.
		ev.Where, ev.Message = m[1], strings.TrimPrefix(m[2], "step "+e.ID+": ")
	}
	ev.Tail = e.Diagnostics.Lines()
	if n := len(ev.Tail); n > tailLines {
		ev.Tail = ev.Tail[n-tailLines:]
	}
	return ev
}

// duration rounds d for a person: to the millisecond under a minute, to
// the second above.
func duration(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return d.Round(time.Microsecond).String()
	case d < time.Minute:
		return d.Round(time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// usd is an amount in US dollars: agents report fractions of a cent.
func usd(v float64) string { return fmt.Sprintf("$%.4f", v) }

// label cuts s to n runes, for a column of fixed width.
func label(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return strings.TrimSpace(string(r[:n-1])) + "…"
	}
	return s
}
