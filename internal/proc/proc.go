// Package proc runs the external commands of a skill run (shell commands,
// skill scripts, the agent) the same way everywhere: a working directory, an
// environment, stdin, captured output, and a context whose end kills the
// command and everything it started.
package proc

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os/exec"
	"time"
)

// Cmd is one command to run.
type Cmd struct {
	Name string
	Args []string
	Dir  string
	// Env is the complete environment; nil inherits the current process's.
	Env   []string
	Stdin io.Reader
}

// Result is what a finished command left behind.
type Result struct {
	Stdout   string
	Stderr   string
	ExitCode int
}

// waitDelay bounds how long Run waits for the output pipes to close after
// the command was killed: a grandchild that escaped the process group must
// not keep the run hanging.
const waitDelay = 2 * time.Second

// Run runs c to completion. A non-zero exit is not an error: it is reported
// in Result.ExitCode. The error is set when the command could not start or
// when ctx ended first (then it wraps ctx.Err()).
func Run(ctx context.Context, c Cmd) (Result, error) {
	cmd := exec.CommandContext(ctx, c.Name, c.Args...)
	cmd.Dir = c.Dir
	cmd.Env = c.Env
	cmd.Stdin = c.Stdin
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	cmd.WaitDelay = waitDelay
	killGroup(cmd)
	err := cmd.Run()
	res := Result{Stdout: stdout.String(), Stderr: stderr.String(), ExitCode: cmd.ProcessState.ExitCode()}
	if ctxErr := ctx.Err(); ctxErr != nil && err != nil {
		return res, ctxErr
	}
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		return res, nil
	}
	if errors.Is(err, exec.ErrWaitDelay) && cmd.ProcessState != nil {
		// The command exited, but something it started in the background
		// still holds its output: the command's result stands (a shell
		// does not wait for `daemon &` either); the output is what it had
		// written by then.
		return res, nil
	}
	return res, err
}
