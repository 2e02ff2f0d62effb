package main

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"testing"

	"github.com/skillkit/skillkit/internal/agent"
	skrun "github.com/skillkit/skillkit/internal/run"
	"github.com/skillkit/skillkit/internal/runstore"
)

// The one table that turns what a run returned into an exit code.
func TestRunExit(t *testing.T) {
	tests := []struct {
		err  error
		want int
	}{
		{nil, ExitOK},
		{&skrun.RunError{State: runstore.RunFailed, Err: errors.New("x")}, ExitFailed},
		{&skrun.RunError{State: runstore.RunInterrupted, Err: context.Canceled}, ExitInterrupted},
		{&skrun.RunError{State: runstore.RunInterrupted, Err: agent.ErrNoAgent}, ExitFailed},
		{&skrun.RunError{State: runstore.RunInterrupted, Err: &runstore.WriteError{Err: syscall.ENOSPC}}, ExitInternal},
		{fmt.Errorf("%w: lint", skrun.ErrInvalid), ExitUsage},
		{&runstore.ClaimedError{}, ExitFailed},
		{runstore.ErrTerminal, ExitUsage},
		{fmt.Errorf("x: %w", runstore.ErrCorrupt), ExitUsage},
		{errors.New("disk full"), ExitInternal},
	}
	for _, tt := range tests {
		if got := runExit(tt.err); got != tt.want {
			t.Errorf("runExit(%v) = %d, want %d", tt.err, got, tt.want)
		}
	}
}
