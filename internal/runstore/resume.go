package runstore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// ErrTerminal is returned when a finished run is resumed: terminal states
// are final.
var ErrTerminal = errors.New("the run has finished; terminal states are final")

// ErrStateLost is returned when state.json is missing and cannot be
// restored from a checkpoint without losing the updates of completed steps.
var ErrStateLost = errors.New("state.json is missing")

// ErrSkillChanged is returned when the skill's content hash differs from
// the one the run started with.
var ErrSkillChanged = errors.New("the skill changed since the run started")

// ResumeOptions say what a resume checks.
type ResumeOptions struct {
	// Hash is the skill's content hash now; empty skips the check.
	Hash string
	// Force resumes even when the hash differs.
	Force bool
	Claim ClaimOptions
	Store Options
}

// Resume opens the run in dir for another go: it claims it (refused with a
// *ClaimedError while a live process holds it), then refuses a run in a
// terminal state or one whose skill changed. The progress is read after
// the claim, so a holder that finished just before is seen as finished.
// The caller releases the claim and closes the run.
func Resume(dir string, o ResumeOptions) (*Run, *Claim, error) {
	if _, err := ReadProgress(dir); err != nil {
		return nil, nil, err
	}
	claim, err := Acquire(dir, o.Claim)
	if err != nil {
		return nil, nil, err
	}
	r, err := Open(dir, o.Store)
	if err != nil {
		claim.Release()
		return nil, nil, err
	}
	p := r.Progress()
	if Terminal(p.RunState) {
		claim.Release()
		return nil, nil, fmt.Errorf("resuming run %s: it is %s: %w", p.RunID, p.RunState, ErrTerminal)
	}
	if o.Hash != "" && p.SkillHash != "" && o.Hash != p.SkillHash && !o.Force {
		claim.Release()
		return nil, nil, fmt.Errorf("resuming run %s: %w (hash %s, now %s); resume with --force to run the changed skill",
			p.RunID, ErrSkillChanged, short(p.SkillHash), short(o.Hash))
	}
	if err := r.restoreState(); err != nil {
		claim.Release()
		return nil, nil, err
	}
	return r, claim, nil
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// restoreState brings back a deleted state.json from the newest checkpoint
// when that is exact: no step completed after the checkpoint was taken, so
// no completed work's updates are lost. Otherwise it refuses, naming the
// checkpoint, and the run stays as it is for the user to repair.
func (r *Run) restoreState() error {
	path := filepath.Join(r.Dir, StateFile)
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	p := r.Progress()
	var last time.Time
	for _, s := range p.CompletedSteps {
		if s.Timestamp.After(last) {
			last = s.Timestamp
		}
	}
	n := countThreads(r.Dir)
	if n == 0 {
		return fmt.Errorf("resuming run %s: %w and the run has no checkpoint in %s/ to restore it from; start a new run", p.RunID, ErrStateLost, ThreadsDir)
	}
	cpPath := filepath.Join(r.Dir, ThreadsDir, strconv.Itoa(n)+".json")
	cp, err := readJSON[Checkpoint](cpPath)
	if err != nil {
		return fmt.Errorf("resuming run %s: %w; its newest checkpoint cannot be read: %w", p.RunID, ErrStateLost, err)
	}
	if cp.Time.Before(last) {
		return fmt.Errorf("resuming run %s: %w, and steps completed after the newest checkpoint %s (taken %s): restoring it would lose their updates; put the state back by hand (the checkpoint's \"state\" is the state before them) or start a new run",
			p.RunID, ErrStateLost, cpPath, cp.Time.Format(time.RFC3339))
	}
	state := cp.State
	if state == nil {
		state = map[string]any{}
	}
	if err := r.SaveState(state); err != nil {
		return err
	}
	r.Restored = cpPath
	return nil
}
