// Package agent speaks the agent command protocol of skillkit (DESIGN
// §3.4): the work that needs a model (prose steps, prose actions, Task and
// Agent calls, confirmations left to the agent) goes to an external command
// with the prompt on stdin, and its stdout is the answer.
//
// Any command that reads a prompt and prints an answer works; `claude -p`
// does as it is.
package agent

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/skillkit/skillkit/internal/proc"
)

// Request says what kind of work a prompt asks for; the command sees it as
// SKILLKIT_REQUEST.
type Request string

// The requests of DESIGN §3.4.
const (
	RequestStep    Request = "step"
	RequestAction  Request = "action"
	RequestTask    Request = "task"
	RequestConfirm Request = "confirm"
)

// DefaultTimeout bounds one agent call when Agent.Timeout is zero.
const DefaultTimeout = 30 * time.Minute

// Agent is the command that does agent work.
type Agent struct {
	// Command is a shell command line ("claude -p", "./fake-agent.sh"),
	// run by sh -c (cmd /c on Windows) so that quoting and arguments work
	// as typed.
	Command string
	// Dir is the command's working directory: the run's work dir.
	Dir string
	// Env is added to the current process's environment: the variables of
	// script.Env (SKILL_WORKDIR, SKILL_DIR, …).
	Env []string
	// Timeout bounds one call; zero means DefaultTimeout.
	Timeout time.Duration
}

// Error is a failed agent call: the command exited non-zero, timed out or
// could not start. Stderr holds what the command printed there.
type Error struct {
	Request  Request
	Command  string
	ExitCode int
	Stderr   string
	Err      error
}

func (e *Error) Error() string {
	msg := fmt.Sprintf("agent %q (%s request)", e.Command, e.Request)
	switch {
	case e.Err != nil:
		msg += ": " + e.Err.Error()
	default:
		msg += fmt.Sprintf(": exit status %d", e.ExitCode)
	}
	if s := strings.TrimSpace(e.Stderr); s != "" {
		msg += ": " + lastLines(s, 5)
	}
	return msg
}

func (e *Error) Unwrap() error { return e.Err }

// ErrNoAgent is the one error of agent work in a run that has no agent:
// every part of the runtime that needs the agent returns it (wrapped), and
// a run that meets it stops resumable.
var ErrNoAgent = errors.New("this needs an agent: pass --agent CMD (for example --agent 'claude -p') or set SKILLKIT_AGENT")

// Ask runs the command with prompt on stdin and returns its stdout. A
// non-zero exit, a timeout or a command that cannot start is an *Error.
func (a *Agent) Ask(ctx context.Context, req Request, prompt string) (string, error) {
	if a == nil || strings.TrimSpace(a.Command) == "" {
		return "", ErrNoAgent
	}
	timeout := a.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	name, args := "sh", []string{"-c", a.Command}
	if runtime.GOOS == "windows" {
		name, args = "cmd", []string{"/c", a.Command}
	}
	env := append(os.Environ(), a.Env...)
	env = append(env, "SKILLKIT_REQUEST="+string(req))
	res, err := proc.Run(ctx, proc.Cmd{Name: name, Args: args, Dir: a.Dir, Env: env, Stdin: strings.NewReader(prompt)})
	if errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil {
		err = fmt.Errorf("timed out after %v: %w", timeout, err)
	}
	if err != nil || res.ExitCode != 0 {
		return res.Stdout, &Error{Request: req, Command: a.Command, ExitCode: res.ExitCode, Stderr: res.Stderr, Err: err}
	}
	return res.Stdout, nil
}

// lastLines keeps the end of a long text: the end of stderr is where a
// command says why it failed.
func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = append([]string{"…"}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}
