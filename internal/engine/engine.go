// Package engine is the step machinery both runners share (the sequential
// phase runner and the autonomous loop): the lifecycle of a unit of work (a
// phase or an action) with its hooks, and the lifecycle of a step with its
// condition, confirmation, execution (bash, JS or the agent), error policy
// and timeout. Every transition is an event in the run's events.jsonl.
package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/skillkit/skillkit/internal/agent"
	"github.com/skillkit/skillkit/internal/mcp"
	"github.com/skillkit/skillkit/internal/proc"
	"github.com/skillkit/skillkit/internal/runstore"
	"github.com/skillkit/skillkit/internal/script"
	"github.com/skillkit/skillkit/plan"
)

// Script is what the engine needs of the JS host; *script.Host is one.
type Script interface {
	// RunStep runs a JS block with the state and the phase's scope, and
	// returns the new state; the block's bindings join the scope.
	RunStep(ctx context.Context, block *plan.CodeBlock, state map[string]any, scope *script.Scope) (map[string]any, error)
	// Shell runs a shell block in the work dir with the run's environment;
	// a non-zero exit is in the result, not an error.
	// out, when set, gets all of the output as it comes; the result
	// keeps its tail.
	Shell(ctx context.Context, text string, out io.Writer) (proc.Result, error)
	// ContextShell runs a context command in the project folder, as
	// Claude Code does.
	ContextShell(ctx context.Context, text string) (proc.Result, error)
	// RunAction runs the Execution of a JS or bash action of an
	// autonomous skill and returns its state updates. Agent-class
	// actions (prose, or code that is an instruction for a model) go to
	// the engine's agent instead.
	RunAction(ctx context.Context, a *plan.Action, state map[string]any) (map[string]any, error)
	// Turn starts the JS runtime of one loop iteration over state, in
	// which its selection and its action run.
	Turn(ctx context.Context, state map[string]any) (*script.Turn, error)
}

// Agent is the agent command; *agent.Agent is one.
type Agent interface {
	Ask(ctx context.Context, p *agent.Prompt) (string, error)
}

// Confirmer answers a step's confirmation question with one of the
// plan.Confirm* answers; every script.Answerer is one.
type Confirmer interface {
	Confirm(ctx context.Context, c *plan.Confirm) (plan.ConfirmAnswer, error)
}

// ErrAborted is returned when a confirmation was answered abort.
var ErrAborted = errors.New("aborted at a confirmation")

// StepError is a step that failed for good: its policy was abort, or its
// retries ran out.
type StepError struct {
	Step string
	Pos  plan.Pos
	Err  error
	// Diagnostics are the last lines of the step's stderr and output.
	Diagnostics runstore.Diagnostics
}

func (e *StepError) Error() string {
	if e.Pos.IsValid() {
		return fmt.Sprintf("%s: step %s: %v", e.Pos, e.Step, e.Err)
	}
	return fmt.Sprintf("step %s: %v", e.Step, e.Err)
}

func (e *StepError) Unwrap() error { return e.Err }

// interrupted reports whether an error stops the run without failing it:
// the user stopped it, there is nobody to do agent work, the agent
// budget is spent, or an MCP server is unavailable. A resume picks the
// run up where it stopped.
func interrupted(ctx context.Context, err error) bool {
	return ctx.Err() != nil || errors.Is(err, context.Canceled) || errors.Is(err, agent.ErrNoAgent) ||
		errors.Is(err, agent.ErrBudget) || errors.Is(err, runstore.ErrWrite) || errors.Is(err, mcp.ErrTransport)
}

// permanent reports whether an error must not be retried.
func permanent(ctx context.Context, err error) bool {
	return interrupted(ctx, err) || errors.Is(err, ErrAborted)
}

// DefaultBackoff is the first wait of `retry N` without a backoff; each
// further retry waits twice as long as the one before.
const DefaultBackoff = time.Second

// Options are what a Runner is built from (New).
type Options struct {
	// Run is the run's record: the one owner of its progress and of the
	// skill's state, which the runner reads from it and hands every
	// change to (SetState, Update).
	Run   runstore.Run
	Skill *plan.Skill
	// Inputs are the --input values.
	Inputs map[string]string

	// Script runs JS and shell blocks. Required.
	Script Script
	// Agent does agent work; nil stops the run there with
	// agent.ErrNoAgent.
	Agent Agent
	// Confirm answers confirmation questions; nil applies their defaults.
	Confirm Confirmer
	// Yes answers yes to every confirmation.
	Yes bool
	// Positions are the steps' places in the run (1-based, in phase
	// order), by step id: the progress file's currentStep.
	Positions map[string]int
	// ActionBase is added to an action's iteration for its place in the
	// run: the steps of the phases before the loop.
	ActionBase int
	// Strict keeps the agent from taking over native code that failed
	// (--strict): the code must run as written.
	Strict bool
	// Env is added to the environment of hook commands: the SKILL_*
	// variables of script.Env (the Script gives them to steps itself).
	Env []string
	// Hooks are the skill's own hook commands (LoadHooks).
	Hooks Hooks
	// Worker is the skill's worker.yaml (plan.Skill.Worker): the id
	// its threads carry (the skill's default when empty) and the retries
	// of its phases.
	Worker plan.Worker
	// Backoff is the first retry wait when a step gives none; zero means
	// DefaultBackoff.
	Backoff time.Duration
	// Out receives one plain progress line per finished step and unit;
	// nil discards them.
	Out io.Writer
	// Observe, when set, sees every event as it is written: a live
	// display follows the run with it.
	Observe func(runstore.Event)
	// Vars are substituted in the skill's text before it goes to the
	// agent; ShellContext runs the text's context commands (!`cmd`,
	// ```!) too, in the work dir (off with --no-shell-context).
	Vars         agent.Vars
	ShellContext bool
}

// Runner runs units and steps of one run. Only one goroutine may use it.
type Runner struct {
	o Options

	// loop is the autonomous loop's record, waiting for the next event
	// when moved.
	loop  *runstore.Loop
	moved bool
	// logged is the loop's record as the log has it, when it has one.
	logged    runstore.Loop
	hasLogged bool
	// scopes are the JS scopes of the phases, by phase id.
	scopes map[string]*script.Scope
	// taken is what the run had done when a scope was first needed.
	taken *taken
	// phases are the skill's phases by id.
	phases map[string]*plan.Phase
	// warned says a write to the run's history (metrics, logs) failed
	// and was reported once.
	warned bool
	// conv is the conversation after the agent calls since the last
	// event, which the next event records; nil when none happened.
	conv *runstore.Conversation
	// instructions is the skill's [CONTEXT], expanded once per process:
	// its context commands run at most once.
	instructions *string
}

// New returns the runner of a run built from o.
func New(o Options) *Runner { return &Runner{o: o} }

// Inputs are the run's --input values.
func (r *Runner) Inputs() map[string]string { return r.o.Inputs }

// HasAgent reports whether the run has an agent to do agent work.
func (r *Runner) HasAgent() bool { return r.o.Agent != nil }

// ActionBase is added to an action's iteration for its place in the run.
func (r *Runner) ActionBase() int { return r.o.ActionBase }

// Hooks are the skill's own hook commands.
func (r *Runner) Hooks() Hooks { return r.o.Hooks }

// MaxRetries is how often a phase is retried (worker.yaml's
// max_retries).
func (r *Runner) MaxRetries() int { return r.o.Worker.MaxRetries }

// Record is the run's record.
func (r *Runner) Record() runstore.Run { return r.o.Run }

// Skill is the skill the run runs.
func (r *Runner) Skill() *plan.Skill { return r.o.Skill }

// Turn starts the JS runtime of a loop iteration over the state as it
// stands.
func (r *Runner) Turn(ctx context.Context) (*script.Turn, error) {
	return r.o.Script.Turn(ctx, r.State())
}

// RunAction runs the Execution of a JS or bash action on the state, in
// its iteration's runtime t, and returns its updates.
func (r *Runner) RunAction(ctx context.Context, t *script.Turn, a *plan.Action) (map[string]any, error) {
	return t.RunAction(ctx, a, r.State())
}

// Event records one transition, not waiting for the disk: the kernel
// keeps it if the process is killed. Events inside a group (a step or a
// unit on its way) use it; the group's last one is committed.
func (r *Runner) Event(e runstore.Event) error { return r.record(e, r.o.Run.Append) }

// Commit records the transition that ends a group and makes the record
// durable up to it: one sync per step or unit.
func (r *Runner) Commit(e runstore.Event) error { return r.record(e, r.o.Run.Commit) }

// record hands e to the run's record with write: its Append, Commit or
// CommitLater.
func (r *Runner) record(e runstore.Event, write func(runstore.Event) error) error {
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	if r.loop != nil {
		// Left out when it moved as the event says (Loop.Moves); written
		// when it did not move so.
		l := *r.loop
		moves, ok := r.logged.Moves(&e)
		if (r.moved || ok) && !(ok && r.hasLogged && moves == l) {
			e.Loop = &l
		}
	}
	e.Agent = r.conv
	if err := write(e); err != nil {
		return err
	}
	r.moved, r.conv = false, nil
	if r.loop != nil {
		r.logged, r.hasLogged = *r.loop, true
	}
	r.observe(e)
	return nil
}

// observe hands e to the run's observer, if any.
func (r *Runner) observe(e runstore.Event) {
	if r.o.Observe == nil {
		return
	}
	if e.Run == "" {
		e.Run = r.o.Run.ID()
	}
	r.o.Observe(e)
}

// RunEvent records a transition of the run itself (DESIGN §3.1: pending →
// validating → ready → running → completed | failed), durably.
func (r *Runner) RunEvent(from, to runstore.RunState, detail string) error {
	return r.Commit(runstore.Event{From: runstore.State(from), To: runstore.State(to), Detail: detail})
}

// SetLoop changes the loop's record; the next event carries it.
func (r *Runner) SetLoop(fn func(l *runstore.Loop)) {
	if r.loop == nil {
		r.loop = &runstore.Loop{}
		if p := r.o.Run.Progress(); p.Loop != nil {
			*r.loop = *p.Loop
			r.logged, r.hasLogged = *p.Loop, true
		}
	}
	fn(r.loop)
	r.moved = true
}

// Loop is the loop's record as it stands.
func (r *Runner) Loop() runstore.Loop {
	if r.loop == nil {
		if p := r.o.Run.Progress(); p.Loop != nil {
			return *p.Loop
		}
		return runstore.Loop{}
	}
	return *r.loop
}

// metric records a metrics line. Metrics and logs are history: a failure
// to write them is reported once and does not stop the run (the event
// log, which is the record, does).
func (r *Runner) metric(m runstore.Metric) {
	r.history(r.o.Run.Metric(m))
}

func (r *Runner) history(err error) {
	if err != nil && !r.warned {
		r.warned = true
		r.Printf("warning: the run's history is incomplete: %v\n", err)
	}
}

// Printf writes a plain progress line to Options.Out, if any.
func (r *Runner) Printf(format string, args ...any) {
	if r.o.Out != nil {
		fmt.Fprintf(r.o.Out, format, args...)
	}
}

// AgentContext is what every agent prompt of the run says about it, with
// the state of the moment. The skill's text goes through Vars and, with
// ShellContext, its context commands, which run now: only text about to
// be sent is expanded, so lint, plan and dry runs never run them.
func (r *Runner) AgentContext(ctx context.Context) (agent.Context, error) {
	c := agent.Context{
		Skill: r.o.Skill.Name, SkillDir: r.o.Vars.SkillDir, WorkDir: r.o.Run.WorkDir(), State: r.State(),
		Expand: func(text string) (string, error) { return r.expand(ctx, text) },
	}
	if r.instructions == nil {
		// Expanded once: an argument substituted in is not substituted
		// again, nor is the appended line of arguments.
		text, err := r.expand(ctx, r.o.Skill.Instructions)
		if ce, ok := err.(*agent.CommandError); ok && r.o.Skill.InstructionsLine > 0 {
			return c, &agent.At{Pos: plan.Pos{File: r.o.Skill.Entry, Line: r.o.Skill.InstructionsLine + ce.Line - 1}, Err: err}
		}
		if err != nil {
			return c, fmt.Errorf("%s: %w", r.o.Skill.Entry, err)
		}
		text = r.o.Vars.WithArguments(r.o.Skill.Instructions, text)
		r.instructions = &text
	}
	c.Instructions = *r.instructions
	return c, nil
}

// expand substitutes the variables in text and runs its context commands.
func (r *Runner) expand(ctx context.Context, text string) (string, error) {
	if !r.o.ShellContext {
		return r.o.Vars.Substitute(text), nil
	}
	return agent.RunContext(ctx, text, r.o.Vars.Substitute, func(ctx context.Context, cmd string) (string, error) {
		res, err := r.o.Script.ContextShell(ctx, cmd)
		if err == nil && res.ExitCode != 0 {
			err = &agent.CommandError{Command: cmd, ExitCode: res.ExitCode, Stderr: res.Stderr}
		}
		return res.Stdout, err
	})
}

// AgentBegun records an agent call as it begins, before its command
// starts (runstore.Run.AgentCall): a runner killed during the call leaves
// it counted, for the resume's --max-agent-calls and SKILLKIT_CALL.
func (r *Runner) AgentBegun(c agent.Call) error { return r.o.Run.AgentCall(*conversation(c)) }

// conversation is where the run's conversation stands at call c.
func conversation(c agent.Call) *runstore.Conversation {
	return &runstore.Conversation{Calls: c.Begun, Thread: c.Thread, CostUSD: c.SpentUSD}
}

// AgentCalled records an agent call, whoever made it (a step, an action,
// skill code): a metrics line with what the agent reported, and the
// conversation's progress, which the next event carries so that a resume
// continues the conversation and its call count.
func (r *Runner) AgentCalled(c agent.Call) {
	r.conv = conversation(c)
	if c.Handoff > 0 {
		r.Printf("  agent: the conversation is at %d%% of its context window: call %d asked for %s\n", c.Handoff, c.N, agent.HandoffFile)
	}
	outcome := string(StepCompleted)
	if c.Err != nil {
		outcome = string(StepFailed)
	}
	r.metric(runstore.Metric{
		Kind: runstore.KindAgent, DurationMS: ms(c.Duration), Attempts: 1, Outcome: outcome,
		Request: string(c.Request), Call: c.N, Session: r.conv.Thread, Turns: c.Turns, CostUSD: c.CostUSD,
		InputTokens: c.Usage.InputTokens, OutputTokens: c.Usage.OutputTokens, ContextWindow: c.Usage.ContextWindow,
	})
}

// phase is the phase of the skill that a unit id names, or a bare one for
// a unit that is no phase file.
// scope is the JS scope the native steps of phase unit share: on first
// use in this process, what the run's record kept of it, with the
// declarations of the phase's steps that completed before.
func (r *Runner) scope(unit string) *script.Scope {
	if sc, ok := r.scopes[unit]; ok {
		return sc
	}
	if r.scopes == nil {
		r.scopes = map[string]*script.Scope{}
		r.taken = takenFrom(r.o.Run.Progress())
	}
	var values map[string]any
	if r.taken.scopePhase == unit {
		values = r.taken.scope
	}
	var done []*plan.CodeBlock
	for i, st := range r.phase(unit).Steps {
		if r.taken.done[StepID(unit, i)] && st.Kind() == plan.StepCode {
			done = append(done, st.Runnable()...)
		}
	}
	sc := script.RestoreScope(values, done)
	r.scopes[unit] = sc
	return sc
}

// taken is what a phase's scope is restored from: the steps done and the
// scope recorded when the first scope was needed, read once, since the
// progress grows with the run (a copy of it per phase made a run of many
// phases quadratic, F10). A step done since by this process ran in a
// scope that is kept, or has no JavaScript to declare again.
type taken struct {
	done       map[string]bool
	scopePhase string
	scope      map[string]any
}

func takenFrom(p runstore.Progress) *taken {
	t := &taken{done: map[string]bool{}, scopePhase: p.ScopePhase, scope: p.Scope}
	for s := range p.CompletedSteps.All() {
		if s.Done() {
			t.done[s.ID] = true
		}
	}
	return t
}

// phase is the skill's phase unit, found by its id.
func (r *Runner) phase(unit string) *plan.Phase {
	if r.phases == nil {
		r.phases = map[string]*plan.Phase{}
		for _, ph := range slices.Backward(r.o.Skill.Phases) {
			// The first of two phases of one id, as a look in order finds.
			r.phases[ph.ID()] = ph
		}
	}
	if ph, ok := r.phases[unit]; ok {
		return ph
	}
	return &plan.Phase{Doc: &plan.Doc{File: unit + ".md"}}
}

// SetState replaces the state, stamping updated_at (a base state field the
// runtime maintains); the next event records it.
func (r *Runner) SetState(state map[string]any) {
	if state == nil {
		state = map[string]any{}
	}
	state["updated_at"] = time.Now().UTC().Format(time.RFC3339Nano)
	r.o.Run.SetState(state)
}

// State is the skill's state, as the run's record has it: the record is
// its one owner, so what the runner reads is what the next event logs.
func (r *Runner) State() map[string]any { return r.o.Run.State() }

// Update applies state updates (dotted keys set nested fields, see
// script.ApplyUpdates).
func (r *Runner) Update(updates map[string]any) error {
	if len(updates) == 0 {
		return nil
	}
	next, err := script.ApplyUpdates(r.State(), updates)
	if err != nil {
		return err
	}
	r.SetState(next)
	return nil
}
