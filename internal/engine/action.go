package engine

import (
	"fmt"

	"github.com/skillkit/skillkit/plan"
)

// ActionError is an action of the autonomous loop that failed for good:
// its retries ran out, or its state update was refused.
type ActionError struct {
	Action string
	// Pos is where the failure is, when the error does not say already.
	Pos plan.Pos
	Err error
}

func (e *ActionError) Error() string {
	if e.Pos.IsValid() {
		return fmt.Sprintf("%s: action %s: %v", e.Pos, e.Action, e.Err)
	}
	return fmt.Sprintf("action %s: %v", e.Action, e.Err)
}

func (e *ActionError) Unwrap() error { return e.Err }

// Log appends text to the run's logs/<name>.log (as steps do with their
// output) and reports whether it held anything beyond its first line.
func (r *Runner) Log(name, text string) bool { return r.log(name, text) }
