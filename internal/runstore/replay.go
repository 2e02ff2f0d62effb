package runstore

import (
	"encoding/json"
	"fmt"
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
	rep := &Replayed{}
	var fold StateFold
	var marked Worker
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
			c := impliedMark(*e.Checkpoint, e, marked)
			marked = c.Worker
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
