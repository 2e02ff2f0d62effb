package run

import (
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
	State runstore.RunState
	Err   error
}

func (e *RunError) Error() string {
	if e.State == runstore.RunInterrupted {
		return fmt.Sprintf("run %s interrupted: %v; resume it with --resume %s", e.ID, e.Err, e.ID)
	}
	return fmt.Sprintf("run %s %s: %v", e.ID, e.State, e.Err)
}

func (e *RunError) Unwrap() error { return e.Err }

// invalidError is a refusal worded in full by its own message: it matches
// ErrInvalid (exit 2) without ending in "invalid skill".
type invalidError struct{ msg string }

func (e *invalidError) Error() string { return e.msg }
func (e *invalidError) Unwrap() error { return ErrInvalid }

func invalidf(format string, args ...any) error {
	return &invalidError{fmt.Sprintf(format, args...)}
}
