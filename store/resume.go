package store

import (
	"errors"
	"fmt"
)

// ErrTerminal is returned when a finished run is resumed: terminal states
// are final.
var ErrTerminal = errors.New("the run has finished; terminal states are final")

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
	return r, claim, nil
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
