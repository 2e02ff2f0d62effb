package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"time"

	"github.com/skillkit/skillkit/internal/runstore"
	"github.com/skillkit/skillkit/plan"
)

// UnitState is where a phase or an action is in its lifecycle.
type UnitState string

// Unit states (DESIGN §3.1): a phase or an action goes idle → loading →
// planning → executing → verifying → post_hook → completed, or to error,
// then retrying or failed. Idle is recorded as the From of the first
// loading, not as an event.
const (
	UnitIdle      UnitState = UnitState(runstore.Idle)
	UnitLoading   UnitState = "loading"
	UnitPlanning  UnitState = "planning"
	UnitExecuting UnitState = "executing"
	UnitVerifying UnitState = "verifying"
	UnitPostHook  UnitState = "post_hook"
	UnitCompleted UnitState = "completed"
	UnitError     UnitState = "error"
	UnitRetrying  UnitState = "retrying"
	UnitFailed    UnitState = "failed"
)

// commits says which unit transitions end a group of them and are made
// durable: the unit's outcome, and an error (which records errors[] in the
// state).
func (s UnitState) commits() bool {
	return s == UnitCompleted || s == UnitError || s == UnitFailed
}

// Built-in hooks (DESIGN §3.2); plan names them, for worker.yaml's hook
// lists.
const (
	HookAutoCheckpoint       = plan.HookAutoCheckpoint
	HookLogMetrics           = plan.HookLogMetrics
	HookLogError             = plan.HookLogError
	HookCheckpointErrorState = plan.HookCheckpointErrorState
)

// UnitSpec is one phase or action to run through the unit lifecycle.
type UnitSpec struct {
	// Kind is runstore.KindPhase or runstore.KindAction.
	Kind  runstore.Kind
	ID    string
	Title string
	// Retries is how many more times the unit is tried after an error,
	// Backoff the first wait (doubling).
	Retries int
	Backoff time.Duration
	// Position is an action's place in the run; its loading transition and
	// its record carry it. Zero for a phase.
	Position int
	// Plan, Execute and Verify do the work of their states; nil skips one.
	// A retry runs Execute and Verify again.
	Plan    func(ctx context.Context) error
	Execute func(ctx context.Context) error
	Verify  func(ctx context.Context) error
}

// unit is a unit being run.
type unit struct {
	r     *Runner
	spec  *UnitSpec
	state UnitState
	// ended is when the unit's work and hooks ended: its checkpoint's
	// completed_at and its completed transition's time.
	ended time.Time
}

// passing reports whether an action's transition into state goes
// unwritten: planning, executing, verifying and post_hook carry nothing
// that a reader of the log needs, and a loop runs one action per
// iteration, where four lines of them were most of what it wrote. The
// next line written goes from the last one's state, passing through them
// (loading → completed); the state an action changed and the loop's
// position ride on it. An agent conversation is written at once, so that
// a kill does not lose the calls' count.
func (u *unit) passing(state UnitState) bool {
	switch state {
	case UnitPlanning, UnitExecuting, UnitVerifying, UnitPostHook:
		return u.spec.Kind == runstore.KindAction && u.r.conv == nil
	}
	return false
}

func (u *unit) to(state UnitState, detail string) error {
	return u.toAt(state, detail, time.Now())
}

// toAt is to at time at: an action's first loading is at its start, and
// its completion at the time its checkpoint says it completed, so that
// the log can leave them implied (runstore.Event.Done).
func (u *unit) toAt(state UnitState, detail string, at time.Time) error {
	if u.passing(state) {
		// The run's observer (the terminal's live line) still sees it.
		u.r.observe(runstore.Event{Time: at, Action: u.spec.ID, From: runstore.State(u.state), To: runstore.State(state), Detail: detail})
		return nil
	}
	e := runstore.Event{Time: at, From: runstore.State(u.state), To: runstore.State(state), Detail: detail}
	if u.spec.Kind == runstore.KindAction {
		e.Action = u.spec.ID
		// An action is one of the run's steps in the progress file.
		switch state {
		case UnitLoading:
			e.Position = u.spec.Position
		case UnitCompleted, UnitFailed:
			result := runstore.StepCompleted
			if state == UnitFailed {
				result = runstore.StepFailed
			}
			rec := runstore.NewStepRecord(u.spec.Position, u.spec.ID, u.spec.Title, result, false, at)
			e.Record = &rec
		}
	} else {
		e.Phase = u.spec.ID
	}
	u.state = state
	if state == UnitCompleted && u.spec.Kind == runstore.KindAction {
		// The loop's next iteration computes while the disk syncs; what
		// it does outside the record waits (Run.Settle, the script
		// host's barrier).
		return u.r.record(e, u.r.o.Run.CommitPipelined)
	}
	if state.commits() {
		return u.r.Commit(e)
	}
	return u.r.Event(e)
}

// RunUnit runs a phase or an action through its lifecycle, with the
// built-in hooks and the skill's own: after success auto_checkpoint,
// log_metrics and the post_phase / post_action commands; after an error
// log_error, checkpoint_error_state and the on_error commands. It returns
// the unit's error once its retries are spent. A retry starts over from
// loading, as the worker lifecycle's error → retry → loading.
func (r *Runner) RunUnit(ctx context.Context, spec UnitSpec) error {
	u := &unit{r: r, spec: &spec, state: UnitIdle}
	start := time.Now()
	if err := u.toAt(UnitLoading, spec.Title, start); err != nil {
		return err
	}
	attempts := 0
	err := u.step(ctx, UnitPlanning, spec.Plan)
	for err == nil {
		attempts++
		if err = u.step(ctx, UnitExecuting, spec.Execute); err == nil {
			err = u.step(ctx, UnitVerifying, spec.Verify)
		}
		if err == nil {
			break
		}
		final := attempts > spec.Retries || permanent(ctx, err)
		r.unitError(ctx, u, start, attempts, err, final)
		if final {
			break
		}
		wait := backoff(spec.Backoff, r.o.Backoff, attempts)
		if terr := u.to(UnitRetrying, fmt.Sprintf("attempt %d of %d in %v", attempts+1, spec.Retries+1, wait)); terr != nil {
			return terr
		}
		if serr := sleep(ctx, wait); serr != nil {
			err = serr
			break
		}
		if err = u.to(UnitLoading, spec.Title); err != nil {
			return err
		}
		err = u.step(ctx, UnitPlanning, spec.Plan)
	}
	if err != nil {
		if attempts == 0 {
			r.unitError(ctx, u, start, attempts, err, true)
		}
		if !interrupted(ctx, err) {
			// An interrupted unit is not failed: a resume runs it again.
			if ferr := u.to(UnitFailed, err.Error()); ferr != nil {
				return errors.Join(err, ferr)
			}
		}
		return err
	}
	if err := u.to(UnitPostHook, ""); err != nil {
		return err
	}
	if err := r.postHooks(ctx, u, start, attempts); err != nil {
		r.unitError(ctx, u, start, attempts, err, true)
		if ferr := u.to(UnitFailed, err.Error()); ferr != nil {
			return errors.Join(err, ferr)
		}
		return err
	}
	// The completed transition is the record that the unit is done: a
	// kill before it re-runs the unit on resume, after it never.
	if err := u.toAt(UnitCompleted, "", u.ended); err != nil {
		return err
	}
	r.Printf("%s %s: completed (%v)\n", spec.Kind, spec.ID, since(start))
	return nil
}

// step moves to state and runs fn there.
func (u *unit) step(ctx context.Context, state UnitState, fn func(context.Context) error) error {
	if err := u.to(state, ""); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if fn == nil {
		return nil
	}
	return fn(ctx)
}

// postHooks runs the success hooks: auto_checkpoint, log_metrics, then the
// skill's post_phase or post_action commands (whose failure fails the unit:
// they are gates).
func (r *Runner) postHooks(ctx context.Context, u *unit, start time.Time, attempts int) error {
	now := time.Now()
	u.ended = now
	w := r.worker(u, UnitCompleted, start)
	w.CompletedAt = &now
	if err := r.o.Run.Checkpoint(HookAutoCheckpoint, w); err != nil {
		return fmt.Errorf("%s hook: %w", HookAutoCheckpoint, err)
	}
	r.metric(u.metric(time.Since(start), attempts, UnitCompleted))
	point := HookPostPhase
	if u.spec.Kind == runstore.KindAction {
		point = HookPostAction
	}
	if len(r.o.Hooks[point]) == 0 {
		return nil
	}
	// The unit completes once its gates passed.
	defer func() { u.ended = time.Now() }()
	return r.runHooks(ctx, point, u.spec, nil)
}

// unitError runs the error hooks: log_error (into state.json's errors[] and
// error_count, and metrics.jsonl), checkpoint_error_state (threads/), and
// the skill's on_error commands. Their own failures are reported on Out
// only: the unit's error is what matters.
// An interruption is not an error of the unit and runs none of this.
//
// final says the unit will not be tried again. Its checkpoint's worker is
// then the worker lifecycle's "max_retries → completed (with error)":
// state completed, error set, completed_at stamped. That is the worker's
// layer; the unit itself goes to failed, which fails the run, since a
// resume, a retry and the exit code must tell it from a unit that passed.
func (r *Runner) unitError(ctx context.Context, u *unit, start time.Time, attempts int, err error, final bool) {
	if interrupted(ctx, err) {
		return
	}
	now := time.Now()
	r.metric(u.metric(now.Sub(start), attempts, UnitError))
	// An action that failed inside a phase (the loop) was logged then.
	if u.spec.Kind == runstore.KindAction || !errors.As(err, new(*ActionError)) {
		r.logError(u.spec.ID, err, now)
	}
	msg := err.Error()
	w := r.worker(u, UnitError, start)
	w.Error = &msg
	if final {
		w.State, w.CompletedAt = string(UnitCompleted), &now
	}
	errs := []error{r.o.Run.Checkpoint(HookCheckpointErrorState, w)}
	// The error transition records errors[] and the checkpoint.
	errs = append(errs, u.to(UnitError, msg))
	errs = append(errs, r.runHooks(ctx, HookOnError, u.spec, err))
	if herr := errors.Join(errs...); herr != nil {
		r.Printf("warning: error hooks of %s: %v\n", u.spec.ID, herr)
	}
}

// worker is the thread's worker record of a unit in state.
func (r *Runner) worker(u *unit, state UnitState, start time.Time) runstore.Worker {
	id := r.o.Worker.ID
	if id == "" {
		id = plan.DefaultWorkerID(r.o.Skill.Name)
	}
	return runstore.Worker{ID: id, Skill: r.o.Skill.Name, Unit: u.spec.ID, State: string(state), StartedAt: start}
}

// logError appends to the base state's errors[] and counts error_count.
func (r *Runner) logError(id string, err error, now time.Time) {
	state := maps.Clone(r.State())
	list, _ := state["errors"].([]any)
	state["errors"] = append(list, map[string]any{
		"action": id, "message": err.Error(), "timestamp": now.UTC().Format(time.RFC3339Nano),
	})
	n, _ := state["error_count"].(float64)
	if i, ok := state["error_count"].(int); ok {
		n = float64(i)
	}
	state["error_count"] = n + 1
	r.SetState(state)
}

// metric is the metrics.jsonl line of the finished unit.
func (u *unit) metric(d time.Duration, attempts int, outcome UnitState) runstore.Metric {
	m := runstore.Metric{Kind: u.spec.Kind, DurationMS: ms(d), Attempts: attempts, Outcome: string(outcome)}
	if u.spec.Kind == runstore.KindAction {
		m.Action = u.spec.ID
	} else {
		m.Phase = u.spec.ID
	}
	return m
}

// backoff is the wait before retry number n (1-based): the given first
// wait, doubled each time, capped.
func backoff(given, fallback time.Duration, n int) time.Duration {
	d := given
	if d <= 0 {
		d = fallback
	}
	if d <= 0 {
		d = DefaultBackoff
	}
	for i := 1; i < n && d < plan.MaxBackoff; i++ {
		d *= 2
	}
	return min(d, plan.MaxBackoff)
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func since(t time.Time) time.Duration {
	d := time.Since(t)
	if d < time.Second {
		return d.Round(time.Millisecond)
	}
	return d.Round(10 * time.Millisecond)
}
