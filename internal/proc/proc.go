// Package proc runs the external commands of a skill run (shell commands,
// skill scripts, the agent) the same way everywhere: a working directory, an
// environment, stdin, captured output, and a process group of its own that
// is killed whole when the command ends, when its context ends, and (on
// Linux) when the runner dies, so that nothing a step started outlives it.
package proc

import (
	"context"
	"errors"
	"io"
	"os"
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

// waitDelay bounds how long Run waits for the output to end after the
// command and its group were killed: a grandchild that left the group
// (setsid) must not keep the run hanging.
const waitDelay = 2 * time.Second

// Groups is told of every process group a command runs in, while it runs,
// so that a record can name the groups a runner killed with SIGKILL left
// behind, and a resume can kill them (KillGroup) before it runs anything.
type Groups interface {
	Started(pgid int)
	Ended(pgid int)
}

type groupsKey struct{}

// WithGroups returns a context whose commands report their process groups
// to g.
func WithGroups(ctx context.Context, g Groups) context.Context {
	return context.WithValue(ctx, groupsKey{}, g)
}

// Run runs c to completion. A non-zero exit is not an error: it is reported
// in Result.ExitCode. The error is set when the command could not start or
// when ctx ended first (then it wraps ctx.Err()). Whatever the command left
// running in its process group (`daemon &`) is killed when it exits.
func Run(ctx context.Context, c Cmd) (Result, error) {
	cmd := exec.Command(c.Name, c.Args...)
	cmd.Dir = c.Dir
	cmd.Env = c.Env
	cmd.Stdin = c.Stdin
	ownGroup(cmd)
	// The output goes through pipes of our own rather than exec's, so
	// that Wait returns when the command exits, not when the last
	// background process holding its output does: the group is killed
	// then.
	var stdout, stderr capture
	outW, err := stdout.start()
	if err != nil {
		return Result{}, err
	}
	errW, err := stderr.start()
	if err != nil {
		stdout.abort()
		return Result{}, err
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	err = cmd.Start()
	outW.Close()
	errW.Close()
	if err != nil {
		stdout.abort()
		stderr.abort()
		return Result{}, err
	}
	pgid := cmd.Process.Pid
	g, _ := ctx.Value(groupsKey{}).(Groups)
	if g != nil {
		g.Started(pgid)
	}
	// Deferred, so that a panic unwinding past Run kills the group too.
	defer func() {
		killGroup(cmd.Process)
		if g != nil {
			g.Ended(pgid)
		}
	}()
	stopKill := context.AfterFunc(ctx, func() { killGroup(cmd.Process) })
	err = cmd.Wait()
	stopKill()
	killGroup(cmd.Process)
	stdout.wait()
	stderr.wait()
	res := Result{Stdout: stdout.String(), Stderr: stderr.String(), ExitCode: cmd.ProcessState.ExitCode()}
	if ctxErr := ctx.Err(); ctxErr != nil && err != nil {
		return res, ctxErr
	}
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		return res, nil
	}
	return res, err
}

// capture reads one output stream of a command from a pipe.
type capture struct {
	r    *os.File
	done chan struct{}
	buf  []byte
}

// start makes the pipe and starts reading it; the write end goes to the
// command.
func (c *capture) start() (*os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	c.r, c.done = r, make(chan struct{})
	go func() {
		defer close(c.done)
		c.buf, _ = io.ReadAll(r)
	}()
	return w, nil
}

// wait waits for the end of the output, at most waitDelay: a process that
// escaped the group may hold the pipe open for ever. What was read by then
// stands.
func (c *capture) wait() {
	select {
	case <-c.done:
	case <-time.After(waitDelay):
		c.r.Close()
		<-c.done
	}
	c.r.Close()
}

// abort closes the pipe of a command that did not start.
func (c *capture) abort() {
	c.r.Close()
	<-c.done
}

func (c *capture) String() string { return string(c.buf) }
