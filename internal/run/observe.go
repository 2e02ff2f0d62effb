package run

import (
	"cmp"
	"fmt"
	"io"

	"github.com/skillkit/skillkit/internal/runstore"
)

// PlainObserver writes a line to w when a step or an action starts, or
// a step, a phase or an action retries: with the lines the engine prints
// when a phase starts and when each ends, a line per event that matters
// to a person. The bookkeeping transitions in between (pending, planning,
// verifying, …) have none. `skillkit run --progress plain` and the run
// tool of `skillkit mcp serve` both show a run with it.
func PlainObserver(w io.Writer) func(runstore.Event) {
	// A step's title comes with its pending event, before it starts.
	titles := map[string]string{}
	return func(e runstore.Event) {
		switch {
		case e.Step != "" && e.To == "pending":
			titles[e.Step] = e.Detail
		case e.Step != "" && e.To == "executing":
			fmt.Fprintf(w, "  step %s %s: started\n", e.Step, titles[e.Step])
		case e.Step != "" && e.To == "retrying":
			fmt.Fprintf(w, "  step %s %s: retrying, %s\n", e.Step, titles[e.Step], e.Detail)
		case e.Step != "":
		case e.Action != "" && e.To == "loading":
			fmt.Fprintf(w, "action %s %s: started\n", e.Action, e.Detail)
		case e.To == "retrying":
			fmt.Fprintf(w, "%s: retrying, %s\n", cmp.Or(e.Action, e.Phase), e.Detail)
		}
	}
}
