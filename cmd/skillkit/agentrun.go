package main

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/skillkit/skillkit/internal/agent"
)

// startAgent makes the check of skillkit doctor before a run that has an
// agent known by name, and stops the run with the fix when the agent
// cannot work: better now than after the run's first steps. It then
// shows what the agent does while a call runs: on the live line when
// there is one, and a stall notice as a line of out either way.
func startAgent(ctx context.Context, a *agent.Agent, live *progress, out io.Writer) error {
	if a == nil {
		return nil
	}
	if err := agent.CheckCommand(ctx, a.Command); err != nil {
		return failed(err)
	}
	var mu sync.Mutex
	a.Progress = func(x agent.Activity) {
		if live != nil {
			live.agent(x)
		}
		if n := x.Notice(); n != "" {
			mu.Lock()
			defer mu.Unlock()
			fmt.Fprintln(out, n)
		}
	}
	return nil
}
