package runstore

import (
	"encoding/json"
	"fmt"
	"time"
)

// Replayed is what a run's events say: its progress and state, and the
// checkpoints taken along the way.
type Replayed struct {
	Progress Progress
	State    map[string]any
	// WorkDir is where the run's steps work, as its start says.
	WorkDir string
	// Checkpoints are those numbered past the keepAfter of Replay that
	// snapshots keep (see Paced); Taken counts all of them, so that new
	// ones number on.
	Checkpoints []Checkpoint
	Taken       int
}

// Paced reports whether the checkpoint e carries is an action's
// auto_checkpoint (it rides on the action's completed transition). A loop
// takes one per action: threads/ keeps only the newest of them at each
// snapshot, and every one stays in the log. A phase's and an error's
// checkpoint are always kept.
func (e *Event) Paced() bool {
	return e.Checkpoint != nil && e.Action != "" && e.To == "completed"
}

// Replay folds events into progress and state, keeping the checkpoints
// numbered past keepAfter that a snapshot keeps: every one but the paced
// ones, of which only the last. where names the record in errors. A log
// without events is ErrNoRun.
func Replay(where string, events []Event, keepAfter int) (*Replayed, error) {
	if len(events) == 0 {
		return nil, fmt.Errorf("opening run %s: %w (it holds no event)", where, ErrNoRun)
	}
	lastPaced := -1
	for i, n := 0, 0; i < len(events); i++ {
		if events[i].Checkpoint != nil {
			if n++; n > keepAfter && events[i].Paced() {
				lastPaced = i
			}
		}
	}
	expand(events)
	rep := &Replayed{}
	var fold StateFold
	for i := range events {
		e := &events[i]
		if e.Start != nil {
			rep.WorkDir = e.Start.WorkDir
		}
		rep.Progress.Apply(e)
		if _, err := fold.Apply(e); err != nil {
			return nil, fmt.Errorf("%s: %w: event %d: %v", where, ErrCorrupt, i+1, err)
		}
		if e.Checkpoint != nil {
			c := *e.Checkpoint
			rep.Taken++
			if rep.Taken > keepAfter && (!e.Paced() || i == lastPaced) {
				st, err := json.Marshal(fold.State())
				if err != nil {
					return nil, fmt.Errorf("%s: encoding the state of checkpoint %d: %w", where, rep.Taken, err)
				}
				rep.Checkpoints = append(rep.Checkpoints, Checkpoint{N: rep.Taken, Time: e.Time, Hook: c.Hook, Worker: c.Worker, State: st})
			}
		}
	}
	rep.State = fold.State()
	return rep, nil
}

// expand gives the events of a log back what it left implied: an
// action's loading line's from (idle) and title (its loading line's
// before), the record of an action that completed as its loading
// transition said (Done), and what an implied checkpoint mark leaves out
// (impliedMark).
func expand(events []Event) {
	var marked Worker
	var l loaded
	titles := map[string]string{}
	for i := range events {
		e := &events[i]
		if loading(e) {
			if e.From == "" {
				e.From = "idle"
			}
			if e.Detail == "" {
				e.Detail = titles[e.Action]
			}
			titles[e.Action] = e.Detail
		}
		if e.Done && e.Record == nil && l.of(e) {
			rec := NewStepRecord(l.position, e.Action, l.title, StepCompleted, false, e.Time)
			e.Record = &rec
		}
		if e.Checkpoint != nil {
			c := impliedMark(*e.Checkpoint, e, marked, &l)
			e.Checkpoint, marked = &c, c.Worker
		}
		l.see(e)
	}
}

// loading reports whether e loads an action.
func loading(e *Event) bool { return e.Action != "" && e.To == "loading" }

// loaded is an action's last loading transition in a log: what its
// completion may leave implied (Event.Done, a mark's times).
type loaded struct {
	action, title string
	at            time.Time
	position      int
}

// see notes e if it loads an action.
func (l *loaded) see(e *Event) {
	if loading(e) {
		*l = loaded{action: e.Action, title: e.Detail, at: e.Time, position: e.Position}
	}
}

// of reports whether e is of the action last loaded.
func (l *loaded) of(e *Event) bool { return l.action != "" && l.action == e.Action }

// implies reports whether rec, recorded by e, is what Done stands for:
// the action l loaded completed, at the event's time, as l titled and
// numbered it.
func (l *loaded) implies(e *Event, rec *StepRecord) bool {
	want := NewStepRecord(l.position, e.Action, l.title, StepCompleted, false, e.Time)
	return l.of(e) && e.To == "completed" && rec.Timestamp.Equal(want.Timestamp) &&
		rec.Step == want.Step && rec.Status == want.Status && rec.EvidenceCaptured == want.EvidenceCaptured &&
		rec.ID == want.ID && rec.Title == want.Title && rec.Skipped == want.Skipped && rec.Result == want.Result && rec.Fingerprint == ""
}
