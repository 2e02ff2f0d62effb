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
	// Checkpoints are those numbered past the keepAfter of Replay;
	// Taken counts all of them, so that new ones number on.
	Checkpoints []Checkpoint
	Taken       int
}

// Replay folds events into progress and state, keeping the checkpoints
// numbered past keepAfter. where names the record in errors. A log
// without events is ErrNoRun.
func Replay(where string, events []Event, keepAfter int) (*Replayed, error) {
	if len(events) == 0 {
		return nil, fmt.Errorf("opening run %s: %w (it holds no event)", where, ErrNoRun)
	}
	rep := &Replayed{}
	var st json.RawMessage
	for i := range events {
		e := &events[i]
		if e.Start != nil {
			rep.WorkDir = e.Start.WorkDir
		}
		rep.Progress.Apply(e)
		if e.State != nil {
			st = e.State
		}
		if c := e.Checkpoint; c != nil {
			rep.Taken++
			if rep.Taken > keepAfter {
				rep.Checkpoints = append(rep.Checkpoints, Checkpoint{N: rep.Taken, Time: e.Time, Hook: c.Hook, Worker: c.Worker, State: st})
			}
		}
	}
	rep.State = map[string]any{}
	if st != nil {
		if err := json.Unmarshal(st, &rep.State); err != nil {
			return nil, fmt.Errorf("%s: %w: the last recorded state: %v", where, ErrCorrupt, err)
		}
	}
	return rep, nil
}
