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
	"strings"
	"time"

	"github.com/skillkit/skillkit/agent"
	"github.com/skillkit/skillkit/plan"
	"github.com/skillkit/skillkit/store"
)

// Script is what the engine needs of the JS host (package script).
type Script interface {
	// RunJS runs a JS step with the state and returns its result: state
	// updates, possibly wrapped as {stateUpdates: {...}}; nil for none.
	RunJS(ctx context.Context, code *plan.CodeBlock, state map[string]any) (map[string]any, error)
	// Eval evaluates a condition or precondition, with no host API.
	Eval(ctx context.Context, e *plan.Expr, state map[string]any) (bool, error)
}

// Agent is the agent command (package agent).
type Agent interface {
	Ask(ctx context.Context, req agent.Request, prompt string) (string, error)
}

// Confirmer puts a step's confirmation question to a person. It returns
// one of the plan.Confirm* answers; an error (no terminal, no answer in the
// answers file, timeout) makes the question's default apply.
type Confirmer interface {
	Confirm(ctx context.Context, step string, c *plan.Confirm) (string, error)
}

// ErrNeedsAgent is returned when a run reaches agent work and has no agent.
// The run is left resumable.
var ErrNeedsAgent = errors.New("this needs an agent: pass --agent CMD (for example --agent 'claude -p') or set SKILLKIT_AGENT")

// ErrAborted is returned when a confirmation was answered abort.
var ErrAborted = errors.New("aborted at a confirmation")

// StepError is a step that failed for good: its policy was abort, or its
// retries ran out.
type StepError struct {
	Step string
	Pos  plan.Pos
	Err  error
	// Diagnostics are the last lines of the step's stderr and output.
	Diagnostics []string
}

func (e *StepError) Error() string {
	if e.Pos.IsValid() {
		return fmt.Sprintf("%s: step %s: %v", e.Pos, e.Step, e.Err)
	}
	return fmt.Sprintf("step %s: %v", e.Step, e.Err)
}

func (e *StepError) Unwrap() error { return e.Err }

// interrupted reports whether an error stops the run without failing it:
// the user stopped it, or there is nobody to do agent work. A resume picks
// the run up where it stopped.
func interrupted(ctx context.Context, err error) bool {
	return ctx.Err() != nil || errors.Is(err, context.Canceled) || errors.Is(err, ErrNeedsAgent)
}

// permanent reports whether an error must not be retried.
func permanent(ctx context.Context, err error) bool {
	return interrupted(ctx, err) || errors.Is(err, ErrAborted)
}

// DefaultBackoff is the first wait of `retry N` without a backoff; each
// further retry waits twice as long as the one before.
const DefaultBackoff = time.Second

// maxBackoff caps the doubling.
const maxBackoff = time.Minute

// Runner runs units and steps of one run. Only one goroutine may use it.
type Runner struct {
	Run   *store.Run
	Skill *plan.Skill
	// Inputs are the --input values.
	Inputs map[string]string
	// State is the skill's state; the runner keeps state.json in step with
	// it (SetState, Update).
	State map[string]any

	Script Script
	// Agent does agent work; nil stops the run there with ErrNeedsAgent.
	Agent Agent
	// Confirm asks confirmation questions; nil applies their defaults.
	Confirm Confirmer
	// Yes answers yes to every confirmation.
	Yes bool
	// Env is added to the environment of bash steps and hook commands:
	// the SKILL_* variables of script.Env.
	Env []string
	// Hooks are the skill's own hook commands (LoadHooks).
	Hooks Hooks
	// Backoff is the first retry wait when a step gives none; zero means
	// DefaultBackoff.
	Backoff time.Duration
	// Out receives one plain progress line per finished step and unit;
	// nil discards them.
	Out io.Writer
	// Observe, when set, sees every event as it is written: a live
	// display follows the run with it.
	Observe func(store.Event)
}

// Event writes one transition to events.jsonl and shows it to the
// observer. The time and run id are filled in when zero.
func (r *Runner) Event(e store.Event) error {
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	err := r.Run.Event(e)
	if r.Observe != nil {
		if e.Run == "" {
			e.Run = r.Run.ID()
		}
		r.Observe(e)
	}
	return err
}

// RunEvent records a transition of the run itself (DESIGN §3.1: pending →
// validating → ready → running → completed | failed).
func (r *Runner) RunEvent(from, to, detail string) error {
	return r.Event(store.Event{From: from, To: to, Detail: detail})
}

func (r *Runner) printf(format string, args ...any) {
	if r.Out != nil {
		fmt.Fprintf(r.Out, format, args...)
	}
}

// agentContext is what every agent prompt says about the run.
func (r *Runner) agentContext() agent.Context {
	return agent.Context{Skill: r.Skill.Name, WorkDir: r.Run.Dir, Inputs: r.Inputs, State: r.State}
}

// SetState replaces the state and writes state.json, stamping updated_at
// (a base state field the runtime maintains).
func (r *Runner) SetState(state map[string]any) error {
	if state == nil {
		state = map[string]any{}
	}
	state["updated_at"] = time.Now().UTC().Format(time.RFC3339Nano)
	r.State = state
	return r.Run.SaveState(state)
}

// Update applies state updates (dotted keys set nested fields) and writes
// state.json. A result of the form {stateUpdates: {...}} is unwrapped.
func (r *Runner) Update(result map[string]any) error {
	updates := Updates(result)
	if len(updates) == 0 {
		return nil
	}
	next, err := ApplyUpdates(r.State, updates)
	if err != nil {
		return err
	}
	return r.SetState(next)
}

// Updates returns the state updates in a step's or action's result: its
// stateUpdates object when it has one, else the result itself.
func Updates(result map[string]any) map[string]any {
	if u, ok := result["stateUpdates"].(map[string]any); ok {
		return u
	}
	return result
}

// ApplyUpdates returns a copy of state with the updates applied. A dotted
// key ("context.items") sets a nested field, making the objects on the way.
func ApplyUpdates(state, updates map[string]any) (map[string]any, error) {
	out := clone(state)
	for k, v := range updates {
		parts := strings.Split(k, ".")
		m := out
		for i, p := range parts[:len(parts)-1] {
			next, ok := m[p].(map[string]any)
			if !ok {
				if m[p] != nil {
					return state, fmt.Errorf("applying update %q: %s is not an object", k, strings.Join(parts[:i+1], "."))
				}
				next = map[string]any{}
			}
			next = clone(next)
			m[p] = next
			m = next
		}
		m[parts[len(parts)-1]] = v
	}
	return out, nil
}

func clone(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
