package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/skillkit/skillkit/internal/runstore"
)

// ErrInvalid marks a skill that cannot start: it does not validate, has
// nothing to run in this mode, or declares bad hooks.
var ErrInvalid = errors.New("invalid skill")

// RunError is a run that ended without completing: failed, aborted, or
// interrupted (then it may be resumed).
type RunError struct {
	ID  string
	Dir string
	// State is runstore.RunFailed, RunAborted or RunInterrupted.
	State string
	Err   error
}

func (e *RunError) Error() string {
	if e.State == runstore.RunInterrupted {
		return fmt.Sprintf("run %s interrupted: %v; resume it with --resume %s", e.ID, e.Err, e.ID)
	}
	return fmt.Sprintf("run %s %s: %v", e.ID, e.State, e.Err)
}

func (e *RunError) Unwrap() error { return e.Err }

// Exit codes of DESIGN §2, plus 130 for a run stopped by Ctrl-C.
const (
	ExitOK          = 0
	ExitFailed      = 1
	ExitInvalid     = 2
	ExitInternal    = 3
	ExitInterrupted = 130
)

// ExitCode maps what a runner returned to the CLI's exit code.
func ExitCode(err error) int {
	var re *RunError
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, context.Canceled):
		return ExitInterrupted
	case errors.Is(err, ErrInvalid):
		return ExitInvalid
	case errors.Is(err, runstore.ErrWrite):
		// The disk failed, not the skill: the run stays resumable.
		return ExitInternal
	case errors.As(err, &re):
		return ExitFailed
	case errors.Is(err, runstore.ErrTerminal), errors.Is(err, runstore.ErrSkillChanged), errors.Is(err, runstore.ErrNoRun),
		errors.Is(err, runstore.ErrCorrupt), errors.Is(err, runstore.ErrStateLost):
		return ExitInvalid
	case errors.As(err, new(*runstore.ClaimedError)):
		return ExitFailed
	}
	return ExitInternal
}
