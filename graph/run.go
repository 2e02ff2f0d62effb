package graph

import (
	"fmt"
	"slices"
)

// Status is how far a run got with a phase or an action.
type Status string

// Statuses of a painted node.
const (
	Completed Status = "completed"
	Failed    Status = "failed"
	// Started is a node the run began and never finished: it was
	// interrupted there, or is still running.
	Started Status = "started"
	// Skipped is a node the run went past without running it: a later
	// phase ran, or the loop ended without picking the action.
	Skipped Status = "skipped"
	// NotReached is a node the run stopped before.
	NotReached Status = "not reached"
)

// statuses are the statuses in the order a legend lists them.
var statuses = []Status{Completed, Failed, Started, Skipped, NotReached}

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
// what ran, greys for what did not; back is a cluster's lighter fill.
var colours = map[Status]colour{
	Completed:  {fill: "#c8e6c9", stroke: "#2e7d32", text: "#1b5e20", back: "#f1f8e9"},
	Failed:     {fill: "#ffcdd2", stroke: "#c62828", text: "#b71c1c", back: "#ffebee"},
	Started:    {fill: "#fff9c4", stroke: "#f9a825", text: "#795548", back: "#fffde7"},
	Skipped:    {fill: "#eeeeee", stroke: "#9e9e9e", text: "#616161", back: "#fafafa"},
	NotReached: {fill: "#ffffff", stroke: "#bdbdbd", text: "#9e9e9e", back: "#ffffff"},
}

// Outcome is what a run did with a node.
type Outcome struct {
	Status Status
	// Runs counts the times the run started the node: the loop may pick
	// an action again and again.
	Runs int
}

// Transition is one state change of a run, as much of its event as
// painting needs. graph sits below the run store (docs/architecture.md):
// the reader of a run turns its events into transitions.
type Transition struct {
	// Phase and Action name the unit; both empty for the run itself.
	Phase, Action string
	// Step is set on a step's transition, which the graph does not draw.
	Step string
	// To is the state the unit (or the run) went to.
	To string
}

// The states a transition's To is read for: a unit starts with loading;
// completed and failed end it, and a run that completed passed every node.
const (
	toLoading   = "loading"
	toCompleted = string(Completed)
	toFailed    = string(Failed)
)

// Paint reads a run's transitions, in the order of its events, and sets
// Run: the outcome of each phase and action of the graph, the last time it
// ran.
func (g *Graph) Paint(events []Transition) {
	byUnit := map[string]*Outcome{}
	runDone := false
	for _, e := range events {
		unit := e.Phase
		if e.Action != "" {
			unit = "action:" + e.Action
		}
		switch {
		case e.Step != "":
			continue
		case unit == "":
			runDone = runDone || e.To == toCompleted
			continue
		}
		o := byUnit[unit]
		if o == nil {
			o = &Outcome{}
			byUnit[unit] = o
		}
		switch e.To {
		case toLoading:
			o.Runs++
			o.Status = Started
		case toCompleted, toFailed:
			o.Status = Status(e.To)
		}
	}
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
