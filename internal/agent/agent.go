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
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

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

// DefaultTimeout bounds one agent call when Agent.Timeout is zero
// (run --agent-timeout, agent_timeout in skillkit.yaml).
const DefaultTimeout = 10 * time.Minute

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
	// MaxReply is how many bytes of a reply are kept in memory; zero
	// means proc.DefaultTail. A longer reply fails the call.
	MaxReply int
	// Session is the run's conversation; copies of the Agent share it.
	// nil makes every call the first of its own conversation.
	Session *Session
	// Log, when set, is where the events of a call of this prompt go as
	// they come (the step's log), for an agent that streams them.
	Log func(p *Prompt) io.Writer
	// Progress, when set, sees what a streaming agent does while a call
	// runs (for the live line), a stall notice after StallAfter of
	// silence (zero means DefaultStall, or half the call's time limit
	// when that is shorter), and the call's end. It is
	// called from goroutines of its own.
	Progress   func(Activity)
	StallAfter time.Duration
	// Context are the thresholds of the conversation's context use
	// (ContextLimits), for an agent that reports it.
	Context ContextLimits
	// Tape, when set, sees every call: a recorder keeps the exchanges
	// (skillkit run --record), a player answers them instead of the
	// command (skillkit test). Copies of the Agent share it.
	Tape Tape
}

// Tape is a cassette of agent calls at the one boundary every call
// crosses (Begin), so that recording and replay see steps, actions,
// selections, confirmations and Tasks alike.
type Tape interface {
	// Begin sees a call as it begins, on the run's goroutine, with x's
	// request, id and prompt set. A player answers it: it fills x's
	// reply fields and returns replayed true (with an error when nothing
	// recorded matches, which fails the call). A recorder returns end,
	// which sees the exchange, reply and all, once the command answered.
	Begin(a *Agent, x *Exchange) (end func(Exchange), replayed bool, err error)
}

// Exchange is one call as a Tape sees it: what was asked and what came
// back.
type Exchange struct {
	Request Request
	// ID is the prompt's (Prompt.ID).
	ID string
	// Prompt is the text the command got on stdin.
	Prompt string
	// Reply is the answer's text; ExitCode, Stderr and Err say how the
	// command ended (Err when it did not exit by itself, or its output
	// was unreadable).
	Reply    string
	ExitCode int
	Stderr   string
	Err      string
	// Thread, Turns, CostUSD and Usage are what the agent reported, if
	// it did.
	Thread   string
	Turns    int
	CostUSD  float64
	Usage    Usage
	Duration time.Duration
}

// Session is a run's one conversation with the agent, and its budget.
// Calls begin and end on one goroutine, the run's (see Begin); only their
// commands run concurrently.
type Session struct {
	// ID is SKILLKIT_SESSION_ID, stable for the run across resumes.
	ID string
	// Calls is how many calls the run has begun; a resume restores it
	// from the run's record.
	Calls int
	// Thread is the agent's own id of the conversation once it reported
	// one; calls resume it.
	Thread string
	// CostUSD is what the run's calls cost so far, as the agents reported
	// it; a resume restores it.
	CostUSD float64
	// MaxCalls and MaxCostUSD are the run's budgets, zero for none: once
	// the run has made MaxCalls calls or spent MaxCostUSD, a call is
	// refused with a *BudgetError.
	MaxCalls   int
	MaxCostUSD float64
	// ContextTokens and ContextWindow are the conversation's context
	// use after its last call, as the agent reported it (Usage); zero
	// when it reports none. A resume starts with none, and its first
	// call's report decides again.
	ContextTokens int
	ContextWindow int
	// Begun, when set, sees every call as it begins, numbered and within
	// the budget, before its command starts (N and Begun are its number,
	// Thread and SpentUSD the conversation's so far): the run records it,
	// so that a process killed during the call still counts it. A call
	// it returns an error for is neither made nor counted.
	Begun func(Call) error
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
	Usage    Usage
	Duration time.Duration
	Err      error
	// Handoff is the context use, in percent, at which the call's prompt
	// asked for the hand-off; zero when it did not.
	Handoff int
	// Begun is how many calls the run had begun when this one ended: N,
	// or more when calls overlap. SpentUSD is the run's cost then, this
	// call's included. A resume goes on from both.
	Begun    int
	SpentUSD float64
}

// Error is a failed agent call: the command exited non-zero, timed out,
// could not start or said it failed. Stderr holds what the command printed
// there.
type Error struct {
	Request  Request
	Command  string
	ExitCode int
	// Signal is the signal that ended the command, in the system's
	// words ("signal: killed"), when one did.
	Signal string
	Stderr string
	// Stdout is a plain command's output, where a command that writes
	// nothing on stderr says why it failed (claude outside -p's JSON).
	Stdout string
	Err    error
	// streamed is a call whose failure the agent's events or its
	// stderr already say in Err: the stderr is not added again.
	streamed bool
}

func (e *Error) Error() string {
	msg := fmt.Sprintf("agent %q (%s request)", e.Command, e.Request)
	switch {
	case e.Err != nil:
		msg += ": " + e.Err.Error()
	case e.Signal != "":
		msg += ": killed (" + e.Signal + ")"
	default:
		msg += fmt.Sprintf(": exit status %d", e.ExitCode)
	}
	if !e.streamed {
		why := stderrReason(e.Stderr)
		if why == "" && e.Err == nil {
			why = strings.TrimSpace(e.Stdout)
		}
		if why != "" {
			msg += ": " + lastLines(why, 5)
		}
	}
	return shown(msg)
}

// shown is a message that quotes the agent's output (its stderr, its
// stream's error text) as the terminal must show it: a control byte
// other than a line break or a tab, and a byte that is not UTF-8, are
// written as \xNN, so that what the agent printed cannot clear the
// screen or retitle the window when skillkit reports it.
func shown(msg string) string {
	clean := true
	for _, r := range msg {
		if r == utf8.RuneError || (unicode.IsControl(r) && r != '\n' && r != '\t') {
			clean = false
			break
		}
	}
	if clean {
		return msg
	}
	var b strings.Builder
	for i := 0; i < len(msg); {
		r, n := utf8.DecodeRuneInString(msg[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, msg[i])
		case unicode.IsControl(r) && r != '\n' && r != '\t':
			if r < 0x100 {
				fmt.Fprintf(&b, `\x%02x`, r)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteString(msg[i : i+n])
		}
		i += n
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// ErrNoAgent is the one error of agent work in a run that has no agent:
// every part of the runtime that needs the agent returns it (wrapped), and
// a run that meets it stops resumable.
var ErrNoAgent = errors.New("this needs an agent: pass --agent CMD (for example --agent claude) or set SKILLKIT_AGENT")

// ErrBudget is matched (errors.Is) by the error of a call refused because
// the run's budget is spent (calls, cost, or the conversation's context
// window: *ContextError): the run stops resumable, and a resume with a
// higher budget, or a smaller context, goes on.
var ErrBudget = errors.New("the run's agent budget is spent")

// BudgetError is a call refused by a budget. Flag is the option that
// sets it (--max-agent-calls, --max-cost-usd), Spent what the run used of
// it, in words.
type BudgetError struct {
	Flag  string
	Limit string
	Spent string
}

func (e *BudgetError) Error() string {
	return fmt.Sprintf("%v: %s (%s %s); a resume with a higher %s goes on", ErrBudget, e.Spent, e.Flag, e.Limit, e.Flag)
}

func (e *BudgetError) Unwrap() error { return ErrBudget }

// Ask sends the prompt and returns the answer's text. The [CONTEXT]
// section goes on the first call of a conversation only, or on every call
// of a command that keeps no conversation. A non-zero exit, a timeout, a
// command that cannot start or an adapter's reported failure is an
// *Error.
func (a *Agent) Ask(ctx context.Context, p *Prompt) (string, error) {
	c, err := a.Begin(p)
	if err != nil {
		return "", err
	}
	c.Run(ctx)
	return c.End()
}

// Pending is a call that has begun: numbered and within the budget. Run
// makes it, on any goroutine; End finishes it where it began.
type Pending struct {
	a    *Agent
	s    *Session
	ad   adapter
	p    *Prompt
	conv *Session
	call Call
	// own is a call outside the run's conversation: a Task, which like
	// Claude Code's subagents starts afresh and leaves the run's thread
	// alone, so that Tasks may run side by side.
	own   bool
	id    string
	env   []string
	text  string
	start time.Time
	reply reply
	res   proc.Result
	err   error
	// replayed is a call the Tape answered: no command runs. end is the
	// Tape's recorder of the call.
	replayed bool
	end      func(Exchange)
	// streamed is a call whose events decide how it ended.
	streamed bool
}

// Begin numbers a call (SKILLKIT_CALL, in the order calls begin) and
// checks the run's budgets and context use; it returns agent.ErrNoAgent
// when there is no agent, a *BudgetError when the budget is spent, a
// *ContextError when the conversation's context is past Context.Exit.
// Begin and End of a session's calls must happen on one goroutine.
func (a *Agent) Begin(p *Prompt) (*Pending, error) {
	if a == nil || strings.TrimSpace(a.Command) == "" {
		return nil, ErrNoAgent
	}
	s := a.Session
	if s == nil {
		s = &Session{}
	}
	switch {
	case s.MaxCalls > 0 && s.Calls >= s.MaxCalls:
		return nil, &BudgetError{Flag: "--max-agent-calls", Limit: strconv.Itoa(s.MaxCalls), Spent: fmt.Sprintf("%d agent calls made", s.Calls)}
	case s.MaxCostUSD > 0 && s.CostUSD >= s.MaxCostUSD:
		return nil, &BudgetError{Flag: "--max-cost-usd", Limit: strconv.FormatFloat(s.MaxCostUSD, 'f', -1, 64), Spent: fmt.Sprintf("$%.4f reported by the agent", s.CostUSD)}
	}
	handoff, err := a.checkContext(s, p)
	if err != nil {
		return nil, err
	}
	s.Calls++
	if s.Begun != nil {
		if err := s.Begun(Call{Request: p.Request, N: s.Calls, Thread: s.Thread, Begun: s.Calls, SpentUSD: s.CostUSD}); err != nil {
			s.Calls--
			return nil, err
		}
	}
	c := &Pending{a: a, s: s, ad: adapterFor(a.Command), p: p, call: Call{Request: p.Request, N: s.Calls, Handoff: handoff}, own: p.Request == RequestTask, id: p.ID}
	c.env = append(os.Environ(), a.Env...)
	c.env = append(c.env, "SKILLKIT_REQUEST="+string(p.Request), "SKILLKIT_SESSION_ID="+s.ID, "SKILLKIT_CALL="+strconv.Itoa(c.call.N))
	c.conv = s
	if c.own {
		c.conv = &Session{}
	}
	c.text = p.Text(!c.ad.keepsContext() || c.conv.Thread == "")
	if a.Tape != nil {
		c.play(p)
	}
	return c, nil
}

// play hands the call to the run's Tape: a replayed call takes its
// answer, and its failure, from the recording.
func (c *Pending) play(p *Prompt) {
	x := &Exchange{Request: p.Request, ID: p.ID, Prompt: c.text}
	var err error
	c.end, c.replayed, err = c.a.Tape.Begin(c.a, x)
	if !c.replayed {
		return
	}
	c.reply = reply{text: x.Reply, thread: x.Thread, turns: x.Turns, cost: x.CostUSD, usage: x.Usage}
	c.res = proc.Result{ExitCode: x.ExitCode, Stdout: x.Reply, Stderr: x.Stderr}
	c.call.Duration = x.Duration
	switch {
	case err != nil:
		c.err = err
	case x.Err != "":
		c.err = errors.New(x.Err)
	}
}

// Run runs the call's command and reads its answer. A call that
// failed in a way the agent recovers from goes once more: Claude Code
// refusing a session id it already saved ("already in use") is resumed;
// a codex resume that started another thread goes again as a first
// call, with [CONTEXT].
func (c *Pending) Run(ctx context.Context) {
	if c.replayed {
		return
	}
	timeout := c.a.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	c.start = time.Now()
	conv := c.conv
	c.runOnce(ctx, conv, timeout)
	switch {
	case errors.Is(c.err, errInUse):
		c.runOnce(ctx, &Session{ID: conv.ID, Thread: conv.ID}, timeout)
	case errors.Is(c.err, errLostThread):
		c.text = c.p.Text(true)
		c.runOnce(ctx, &Session{ID: conv.ID}, timeout)
	}
	c.call.Duration = time.Since(c.start)
}

// runOnce runs the command once, within timeout.
func (c *Pending) runOnce(ctx context.Context, conv *Session, timeout time.Duration) {
	name, args, cleanup, err := c.ad.command(c.a, conv, c.p)
	if err != nil {
		c.err = err
		return
	}
	defer cleanup()
	call, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := proc.Cmd{Name: name, Args: args, Dir: c.a.Dir, Env: c.env, Stdin: strings.NewReader(c.text), Tail: c.a.MaxReply}
	ev := c.ad.events(conv, cancel)
	c.streamed = ev != nil
	var l *lines
	if ev != nil {
		l = &lines{max: cmp.Or(c.a.MaxReply, proc.DefaultTail), ev: ev, last: time.Now()}
		if c.a.Log != nil {
			l.log = c.a.Log(c.p)
		}
		cmd.Stdout = l
		if c.a.Progress != nil {
			done, watched := make(chan struct{}), make(chan struct{})
			go func() {
				defer close(watched)
				// A limit shorter than the stall threshold still gets its
				// notice before the call ends.
				watch(l, c.start, cmp.Or(c.a.StallAfter, min(DefaultStall, timeout/2)), timeout, c.a.Progress, done)
			}()
			// The call's end is told before the call returns.
			defer func() { close(done); <-watched }()
		}
	}
	c.res, err = proc.Run(call, cmd)
	timedOut := errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil
	var notFound *exec.Error
	switch {
	case errors.As(err, &notFound):
		c.err = fmt.Errorf("%w; install it or put it on PATH (skillkit doctor says how)", err)
	case ev != nil:
		l.flush()
		var perr error
		c.reply, perr = ev.end(c.res)
		switch {
		case errors.Is(perr, errLostThread):
			// The call was ended on purpose.
			c.err = perr
		case timedOut:
			l.mu.Lock()
			a := ev.activity()
			l.mu.Unlock()
			// What the agent was waiting for (its API, the network) is
			// why it timed out.
			switch last := lastLine(c.res.Stderr); {
			case a.Waiting != "":
				c.err = fmt.Errorf("timed out after %v (--agent-timeout) while %s was waiting: %s: %w", timeout, a.Agent, a.Waiting, err)
			case last != "":
				// Silent on stdout, it may say it in its log: codex
				// fetching its models list before its first event.
				c.err = fmt.Errorf("timed out after %v (--agent-timeout); %s's stderr ends: %s: %w", timeout, a.Agent, tail(last, 300), err)
			default:
				c.err = fmt.Errorf("timed out after %v (--agent-timeout): %w", timeout, err)
			}
		case err != nil:
			c.err = err
		default:
			c.err = perr
		}
	default:
		c.err = err
		if timedOut {
			// The call's own limit, not the caller's, ended it.
			c.err = fmt.Errorf("timed out after %v (--agent-timeout): %w", timeout, err)
		} else if err == nil && c.res.StdoutCut > 0 {
			// Its beginning is gone: whatever it says cannot be read.
			c.err = fmt.Errorf("the reply is %d bytes, more than the %d kept (--output-tail)", c.res.StdoutCut+int64(len(c.res.Stdout)), len(c.res.Stdout))
		}
		c.reply = reply{text: c.res.Stdout}
	}
}

// End records the call in the session (its thread, its cost), hands it
// to Session.Done and returns the answer. A non-zero exit, a timeout, a
// command that cannot start or an adapter's reported failure is an
// *Error.
func (c *Pending) End() (string, error) {
	s, call := c.s, c.call
	// A call the agent says failed may still have cost something: it
	// counts against the budget.
	call.Turns, call.CostUSD, call.Usage = c.reply.turns, c.reply.cost, c.reply.usage
	// A thread the agent reported is kept even when the call failed:
	// the agent saved it, and a retry continues it.
	if !c.own && c.reply.thread != "" {
		s.Thread = c.reply.thread
	}
	if u := c.reply.usage; !c.own && u.ContextWindow > 0 {
		s.ContextTokens, s.ContextWindow = u.ContextTokens, u.ContextWindow
	}
	s.CostUSD += call.CostUSD
	call.Thread, call.Begun, call.SpentUSD = s.Thread, s.Calls, s.CostUSD
	// A streaming agent's events decide how its call ended, whatever
	// the exit code; a plain command's exit code does.
	var err error
	if c.err != nil || (!c.streamed && c.res.ExitCode != 0) {
		e := &Error{Request: call.Request, Command: c.a.Command, ExitCode: c.res.ExitCode, Signal: c.res.Signal, Stderr: c.res.Stderr, Err: c.err, streamed: c.streamed}
		if !c.streamed {
			e.Stdout = c.res.Stdout
		}
		err = e
	}
	call.Err = err
	if c.end != nil {
		x := Exchange{Request: call.Request, ID: c.id, Prompt: c.text, Reply: c.reply.text, ExitCode: c.res.ExitCode,
			Stderr: c.res.Stderr, Thread: c.reply.thread, Turns: call.Turns, CostUSD: call.CostUSD, Usage: call.Usage, Duration: call.Duration}
		if c.err != nil {
			x.Err = c.err.Error()
		}
		c.end(x)
	}
	if s.Done != nil {
		s.Done(call)
	}
	return c.reply.text, err
}

// lastLine is the last non-empty line of s.
func lastLine(s string) string {
	s = strings.TrimSpace(s)
	return strings.TrimSpace(s[strings.LastIndexByte(s, '\n')+1:])
}

// lastLines keeps the end of a long text, where most commands say why
// they failed, and before it the first line that states an error when
// that line is earlier: node, Go and Java print the error first and a
// stack after it, whose last lines say nothing ("Node.js v20.20.2").
func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) <= n {
		return s
	}
	cut := len(lines) - n
	var out []string
	for i, l := range lines[:cut] {
		if statesError.MatchString(l) {
			// "…" stands for the lines left out, on either side.
			if i > 0 {
				out = append(out, "…")
			}
			out = append(out, l)
			if i == cut-1 {
				return strings.Join(append(out, lines[cut:]...), "\n")
			}
			break
		}
	}
	return strings.Join(append(append(out, "…"), lines[cut:]...), "\n")
}

// statesError is a line that says what went wrong, as runtimes print it
// above a stack: "Error: Cannot find module …", "panic: …",
// "Exception in thread …", "fatal: …".
var statesError = regexp.MustCompile(`^\s*(\w+(Error|Exception)\b|Error\b|panic:|fatal:|FATAL|Exception\b)`)
