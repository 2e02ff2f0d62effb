// Package agent speaks the agent protocol of skillkit (DESIGN §3.4): the
// work that needs a model (agent steps, prose actions, Task and Agent
// calls, confirmations left to the agent) goes to the agent as a prompt in
// sections, and the agent's answer comes back as text.
//
// The agent is a command: any command that reads a prompt on stdin and
// prints an answer works. Two are known by name and driven through their
// own command lines, so that one run is one conversation: "claude"
// (Claude Code) and "codex" (OpenAI Codex); see adapter.go.
package agent

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
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
	RequestSelect  Request = "select"
	RequestTask    Request = "task"
	RequestConfirm Request = "confirm"
)

// DefaultTimeout bounds one agent call when Agent.Timeout is zero.
const DefaultTimeout = 30 * time.Minute

// Agent is what does agent work.
type Agent struct {
	// Command is "claude", "codex", or a shell command line
	// ("./fake-agent.sh --verbose"), run by sh -c (cmd /c on Windows) so
	// that quoting and arguments work as typed.
	Command string
	// Dir is the command's working directory: the run's work dir.
	Dir string
	// Env is added to the current process's environment: the variables of
	// script.Env (SKILL_WORKDIR, SKILL_DIR, …).
	Env []string
	// Timeout bounds one call; zero means DefaultTimeout.
	Timeout time.Duration
	// AllowedTools are the tools the skill allows (front matter
	// allowed-tools), for an adapter that can restrict them.
	AllowedTools []string
	// Session is the run's conversation; copies of the Agent share it.
	// nil makes every call the first of its own conversation.
	Session *Session
}

// Session is a run's one conversation with the agent. It is not safe for
// concurrent use: a run makes one call at a time.
type Session struct {
	// ID is SKILLKIT_SESSION_ID, stable for the run across resumes.
	ID string
	// Calls is how many calls the run made before this one; a resume
	// restores it from the run's record.
	Calls int
	// Thread is the agent's own id of the conversation once it reported
	// one; calls resume it.
	Thread string
	// Done, when set, sees every call as it ends, failed ones too: the
	// run records it.
	Done func(Call)
}

// Call is one finished agent call, as the run records it.
type Call struct {
	Request Request
	// N is the call's number in the run (SKILLKIT_CALL).
	N int
	// Thread is the agent's id of the conversation after the call, if
	// it reported one (now or before).
	Thread   string
	Turns    int
	CostUSD  float64
	Duration time.Duration
	Err      error
}

// Error is a failed agent call: the command exited non-zero, timed out,
// could not start or said it failed. Stderr holds what the command printed
// there.
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
var ErrNoAgent = errors.New("this needs an agent: pass --agent CMD (for example --agent claude) or set SKILLKIT_AGENT")

// Ask sends the prompt and returns the answer's text. The [CONTEXT]
// section goes on the first call of a conversation only, or on every call
// of a command that keeps no conversation. A non-zero exit, a timeout, a
// command that cannot start or an adapter's reported failure is an
// *Error.
func (a *Agent) Ask(ctx context.Context, p *Prompt) (string, error) {
	if a == nil || strings.TrimSpace(a.Command) == "" {
		return "", ErrNoAgent
	}
	timeout := a.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	s := a.Session
	if s == nil {
		s = &Session{}
	}
	ad := adapterFor(a.Command)
	call := Call{Request: p.Request, N: s.Calls + 1}
	env := append(os.Environ(), a.Env...)
	env = append(env, "SKILLKIT_REQUEST="+string(p.Request), "SKILLKIT_SESSION_ID="+s.ID, "SKILLKIT_CALL="+strconv.Itoa(call.N))
	name, args := ad.command(a, s, p)
	text := p.Text(!ad.keepsContext() || s.Thread == "")

	start := time.Now()
	res, err := proc.Run(ctx, proc.Cmd{Name: name, Args: args, Dir: a.Dir, Env: env, Stdin: strings.NewReader(text)})
	if errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil {
		err = fmt.Errorf("timed out after %v: %w", timeout, err)
	}
	answer := res.Stdout
	if err == nil && res.ExitCode == 0 {
		var r reply
		if r, err = ad.parse(res.Stdout); err == nil {
			answer, call.Thread, call.Turns, call.CostUSD = r.text, r.thread, r.turns, r.cost
		}
	}
	s.Calls = call.N
	if call.Thread != "" {
		s.Thread = call.Thread
	}
	call.Thread = s.Thread
	call.Duration = time.Since(start)
	if err != nil || res.ExitCode != 0 {
		err = &Error{Request: p.Request, Command: a.Command, ExitCode: res.ExitCode, Stderr: res.Stderr, Err: err}
	}
	call.Err = err
	if s.Done != nil {
		s.Done(call)
	}
	return answer, err
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
