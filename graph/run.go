package graph

import (
	"fmt"
	"slices"

	"github.com/skillkit/skillkit/internal/runstore"
	"github.com/skillkit/skillkit/internal/runview"
)

// Status is how far a run got with a phase or an action.
type Status string

// Statuses of a painted node.
const (
	Completed Status = "completed"
	Failed    Status = "failed"
	// Started is a node the run is in: it began and has not finished.
	Started Status = "started"
	// Interrupted is a node the run stopped in (Ctrl-C, a kill, agent
	// work without an agent): a resume starts it again.
	Interrupted Status = "interrupted"
	// Skipped is a node the run went past without running it: a later
	// phase ran, or the loop ended without picking the action.
	Skipped Status = "skipped"
	// NotReached is a node the run stopped before.
	NotReached Status = "not reached"
)

// statuses are the statuses in the order a legend lists them.
var statuses = []Status{Completed, Failed, Interrupted, Started, Skipped, NotReached}

// class is the status as a mermaid class name.
func (s Status) class() string {
	if s == NotReached {
		return "not_reached"
	}
	return string(s)
}

// colour is how a status is drawn.
type colour struct{ fill, stroke, text, back string }

// colours are the node colours of each status: green, red and amber for
// what ran, violet for what a stop cut short (neither a failure nor under
// way), greys for what did not run; back is a cluster's lighter fill.
var colours = map[Status]colour{
	Completed:   {fill: "#c8e6c9", stroke: "#2e7d32", text: "#1b5e20", back: "#f1f8e9"},
	Failed:      {fill: "#ffcdd2", stroke: "#c62828", text: "#b71c1c", back: "#ffebee"},
	Started:     {fill: "#fff9c4", stroke: "#f9a825", text: "#795548", back: "#fffde7"},
	Interrupted: {fill: "#e1d5f0", stroke: "#6a4c93", text: "#4a2c73", back: "#f3eefa"},
	Skipped:     {fill: "#eeeeee", stroke: "#9e9e9e", text: "#616161", back: "#fafafa"},
	NotReached:  {fill: "#ffffff", stroke: "#bdbdbd", text: "#9e9e9e", back: "#ffffff"},
}

// Outcome is what a run did with a node.
type Outcome struct {
	Status Status
	// Runs counts the times the run started the node: the loop may pick
	// an action again and again.
	Runs int
}

// Paint reads a run's events (its events.jsonl) and sets Run: the
// outcome of each phase and action of the graph, the last time it ran.
func (g *Graph) Paint(events []runstore.Event) {
	byUnit := map[string]*Outcome{}
	r := runview.Read(events)
	for _, u := range r.Units {
		if u.Kind == runview.KindStep {
			continue
		}
		o := &Outcome{Status: statusOf[u.State], Runs: u.Tries}
		if u.Open() {
			o.Runs++
		}
		key := u.ID
		if u.Kind == runview.KindAction {
			key = "action:" + u.ID
		}
		byUnit[key] = o
	}
	runDone := r.State == runstore.RunCompleted
	g.Run = map[string]Outcome{}
	// A phase that did not run was skipped when a later one ran, else
	// not reached; likewise an action, by the loop's phase.
	later := runDone
	for _, n := range slices.Backward(g.Phases) {
		if o := byUnit[n.Unit]; o != nil {
			g.Run[n.ID] = *o
			later = true
		} else {
			g.Run[n.ID] = Outcome{Status: notRun(later)}
		}
	}
	loopDone := runDone
	for _, n := range g.Phases {
		if n.Loop {
			loopDone = g.Run[n.ID].Status == Completed
		}
	}
	for _, n := range g.Actions {
		if n.Unit == "" {
			continue
		}
		if o := byUnit["action:"+n.Unit]; o != nil {
			g.Run[n.ID] = *o
		} else {
			g.Run[n.ID] = Outcome{Status: notRun(loopDone)}
		}
	}
}

// statusOf is the node status of a unit's state.
var statusOf = map[string]Status{
	runview.Completed: Completed, runview.Failed: Failed, runview.Skipped: Skipped,
	runview.Interrupted: Interrupted, runview.Running: Started,
}

func notRun(passed bool) Status {
	if passed {
		return Skipped
	}
	return NotReached
}

// nodes are the phases and the actions.
func (g *Graph) nodes() []Node { return append(slices.Clone(g.Phases), g.Actions...) }

// Label is what a node shows: its label, and in a painted graph how many
// times the run started it when that is more than once.
func (g *Graph) Label(n Node) string {
	if o := g.Run[n.ID]; o.Runs > 1 {
		return fmt.Sprintf("%s ×%d", n.Label, o.Runs)
	}
	return n.Label
}

// Fill, Stroke and Text are the colours a status is drawn in, as CSS and
// Graphviz both read them: a run's report draws with the graph's colours.
func (s Status) Fill() string   { return colours[s].fill }
func (s Status) Stroke() string { return colours[s].stroke }
func (s Status) Text() string   { return colours[s].text }
