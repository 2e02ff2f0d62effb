// Package runview reads a run's events into what a person asks of a run:
// each phase, step and action with its outcome, its tries and the time it
// worked, and the run's working time apart from the time it sat
// interrupted. status, the report and the painted graph all read a run
// through it, so that they count alike: a try cut short by Ctrl-C, a kill
// or a missing agent is an interrupted try, never a repeat.
package runview

import (
	"time"

	"github.com/skillkit/skillkit/internal/runstore"
)

// Kinds of unit.
const (
	KindPhase  = "phase"
	KindStep   = "step"
	KindAction = "action"
)

// States a unit ends in besides its last transition's: Interrupted when
// the run stopped during its last try, Running while it is under way.
const (
	Completed   = "completed"
	Failed      = "failed"
	Skipped     = "skipped"
	Interrupted = "interrupted"
	Running     = "running"
)

// Unit is a phase, a step or an action of a run.
type Unit struct {
	Kind, ID, Title string
	// Parent is the phase a step or action ran in, empty for a phase.
	Parent string
	// State is Completed, Failed, Skipped, Interrupted or Running.
	State string
	// Tries counts the tries that ran to an outcome (a failure that was
	// retried is one); Interrupted the tries the run stopped in.
	Tries, Interrupted int
	// Work is the time of all its tries, without the time between them.
	Work time.Duration
	// Error is what its last failed or interrupted try said.
	Error string
	// Start and End are its first and last transitions.
	Start, End time.Time
	// open is when the try under way started, inTry whether one is.
	open  time.Time
	inTry bool
}

// Run is a run's record as units, in the order they first started.
type Run struct {
	Units []*Unit
	// Work is the time the run was under way; Idle the time it waited,
	// interrupted or crashed, for a resume.
	Work, Idle time.Duration
	// State is the run's last state.
	State runstore.RunState
}

// Open reports whether the unit is under way: the run has not stopped
// since its last try started.
func (u *Unit) Open() bool { return u.inTry }

// Read reads a run's events.
func Read(events []runstore.Event) *Run {
	r := &Run{}
	byKey := map[string]*Unit{}
	phase := ""
	running := false
	for i, e := range events {
		kind, id := KindPhase, e.Phase
		switch {
		case e.Step != "":
			kind, id = KindStep, e.Step
		case e.Action != "":
			kind, id = KindAction, e.Action
		case e.Phase == "":
			// The run's own transitions; an agent call's mark is none.
			if e.To == runstore.AgentCallMark {
				continue
			}
			r.State = runstore.RunState(e.To)
			if e.To == runstore.State(runstore.RunRunning) {
				if running && i > 0 {
					// A resume: the run waited since its last event.
					r.Idle += e.Time.Sub(events[i-1].Time)
				}
				running = true
			}
			if e.To == runstore.State(runstore.RunInterrupted) || runstore.RunState(e.To).Terminal() {
				for _, u := range r.Units {
					u.stop(e.Time, e.To == runstore.State(runstore.RunInterrupted), e.Detail)
				}
			}
			continue
		}
		if kind == KindPhase {
			phase = id
		}
		key := kind + ":" + id
		u := byKey[key]
		if u == nil {
			u = &Unit{Kind: kind, ID: id, Title: e.Detail, Start: e.Time}
			if kind != KindPhase {
				u.Parent = phase
			}
			byKey[key] = u
			r.Units = append(r.Units, u)
		}
		if e.To == "loading" || e.To == "pending" {
			// A new try (a phase or action loads, a step is pending); one
			// still open was cut by a crash, at its last transition.
			u.stop(u.End, true, "")
			u.open, u.inTry, u.State = e.Time, true, Running
		}
		u.End = e.Time
		switch e.To {
		case Completed, Skipped:
			u.end(e.Time)
			u.State = string(e.To)
		case Failed:
			u.end(e.Time)
			u.State, u.Error = Failed, e.Detail
		case runstore.State(runstore.RunAborted):
			// After failed: its detail is the policy, the failure's says
			// why.
			u.end(e.Time)
			u.State = Failed
			if u.Error == "" {
				u.Error = e.Detail
			}
		case "retrying":
			u.end(e.Time)
			u.open, u.inTry, u.State, u.Error = e.Time, true, Running, e.Detail
		}
	}
	if n := len(events); n > 0 {
		r.Work = events[n-1].Time.Sub(events[0].Time) - r.Idle
	}
	return r
}

// end closes the try under way with an outcome.
func (u *Unit) end(at time.Time) {
	if !u.inTry {
		return
	}
	u.Tries++
	u.Work += at.Sub(u.open)
	u.inTry = false
}

// stop closes the try under way when the run stops: interrupted, it is
// an interrupted try; at the run's end, its outcome stands.
func (u *Unit) stop(at time.Time, interrupted bool, why string) {
	if !u.inTry {
		return
	}
	if !interrupted {
		u.end(at)
		return
	}
	u.Interrupted++
	u.Work += at.Sub(u.open)
	u.inTry, u.State, u.End = false, Interrupted, at
	if why != "" {
		u.Error = why
	}
}
