package run

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/skillkit/skillkit/plan"

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

// checkName refuses, before anything is created, a skill whose name would
// put its run folder (or a worker's work dir) outside the store's root:
// the name becomes a path segment. A name that is merely not a slug stays
// a lint warning at the gate (frontmatter-name).
func checkName(s *plan.Skill) error {
	err := runstore.CheckSegment(s.Name)
	if err == nil {
		return nil
	}
	where := s.Dir
	if s.FrontMatter != nil {
		if f := s.FrontMatter.Get("name"); f != nil {
			pos := f.ValuePos
			pos.File = filepath.Join(s.Dir, pos.File)
			where = pos.String()
		}
	}
	return invalidf("%s: the skill's name %v: it names the run's folder", where, err)
}
