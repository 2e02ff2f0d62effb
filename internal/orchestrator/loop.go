package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/skillkit/skillkit/internal/agent"
	"github.com/skillkit/skillkit/internal/engine"
	"github.com/skillkit/skillkit/internal/mcp"
	"github.com/skillkit/skillkit/internal/runstore"
	"github.com/skillkit/skillkit/internal/script"
	"github.com/skillkit/skillkit/jsstatic"
	"github.com/skillkit/skillkit/plan"
)

// ErrNoProgress fails a run whose loop reached its iteration limit.
var ErrNoProgress = errors.New("no progress")

// ErrSameFailure fails a run whose loop kept running an action that kept
// failing the same way (Options.MaxSameFailures).
var ErrSameFailure = errors.New("the same failure again and again")

// ErrSkillFailed fails a run whose skill set state.status to failed.
var ErrSkillFailed = errors.New("the skill set state.status to failed")

// loop is the autonomous loop of one run (DESIGN §3.5).
type loop struct {
	r       *engine.Runner
	skill   *plan.Skill
	sel     *selector
	schema  *stateSchema
	max     int
	retries int
	backoff time.Duration
	// counts is set when the selection reads completed_actions.
	counts bool
	// idleAction is the action that last completed without changing the
	// state, idleRuns how many times in a row it did.
	idleAction string
	idleRuns   int
	// handles is set when the skill reacts to failed actions itself (its
	// selection reads error_count or errors): a failed action is recorded
	// and the loop goes on. Otherwise a failed action fails the run.
	handles bool
	// maxSame bounds failures, by action: the last failure of each
	// action that has not succeeded since, and how many times in a row
	// it failed that way.
	maxSame  int
	failures map[string]failure
	// ids are the actions' ids as completed_actions holds them, boxed
	// once: a string put in an interface is a new allocation, which a
	// long loop's list held once per action.
	ids map[string]any
}

// failure is an action's failure streak: its error, without what changes
// from one attempt to the next, and its length.
type failure struct {
	err string
	n   int
}

func newLoop(r *engine.Runner, s *plan.Skill, o Options) (*loop, error) {
	sel := newSelector(s, r.AgentJudges())
	sel.ask = r.AskSelect
	schema, err := compileSchema(s.StateSchema)
	if err != nil {
		return nil, err
	}
	retries := o.Retries
	if retries == 0 {
		retries = r.MaxRetries()
	}
	reads := selectionReads(s)
	return &loop{
		r: r, skill: s, sel: sel, schema: schema, max: o.MaxIterations, retries: retries, backoff: o.Backoff,
		handles: reads["error_count"] != nil || reads["errors"] != nil, counts: counts(reads["completed_actions"]), maxSame: o.MaxSameFailures, failures: map[string]failure{}, ids: map[string]any{},
	}, nil
}

// counts reports whether reads of completed_actions can tell one more
// completion of an action already in it: its length, a filter, a loop
// over it. A selection that only asks whether an action is there
// (`includes`, `indexOf`, `some`, `every`, `find`, `findIndex`) cannot, so
// the same action again changes nothing it sees: skill-tuning's old
// selection, `if (state.status === 'pending') return 'action-init'`,
// also asks `completed_actions.includes(…)`, and an init that never set
// the status ran a hundred times, an agent call each.
func counts(reads []jsstatic.Path) bool {
	for _, r := range reads {
		if len(r.Fields) < 2 {
			return true
		}
		switch r.Fields[1] {
		case "includes", "indexOf", "some", "every", "find", "findIndex":
		default:
			return true
		}
	}
	return false
}

// selectionBlocks are the orchestrator's blocks the selection runs: its
// Decision Logic and the declarations that define a name it uses, and so
// on. The others are the skill's own loop (a runOrchestrator that copies
// completed_actions into the next state), which the runtime replaces.
func selectionBlocks(o *plan.Orchestrator) []*jsstatic.Program {
	var dec *jsstatic.Program
	err := errors.New("no Decision Logic")
	if o.Decision != nil {
		dec, err = o.Decision.JS()
	}
	if err != nil {
		// The agent selects, reading what the file says: all of it.
		var out []*jsstatic.Program
		for _, b := range o.Declarations {
			if p, err := b.JS(); err == nil {
				out = append(out, p)
			}
		}
		return out
	}
	out := []*jsstatic.Program{dec}
	used := map[*plan.CodeBlock]bool{o.Decision: true}
	for i := 0; i < len(out); i++ {
		free := map[string]bool{}
		for _, r := range out[i].FreeNames() {
			free[r.Name] = true
		}
		for _, b := range o.Declarations {
			if used[b] {
				continue
			}
			p, err := b.JS()
			if err != nil {
				continue
			}
			if slices.ContainsFunc(p.TopLevelNames(), func(n string) bool { return free[n] }) {
				used[b] = true
				out = append(out, p)
			}
		}
	}
	return out
}

// selectionReads returns the state's top-level fields the skill's
// selection reads: its Decision Logic, the declarations it uses
// (selectionBlocks), and the preconditions that are code (plan.Skill.Preconditions). The
// reads are jsstatic's, as lint finds them: a field named in a comment or a string
// is no read, and code that does not parse reads nothing. The loop leaves
// failed actions to a skill that reads error_count or errors (the common
// `if (state.error_count >= 3) return 'action-abort'`), and counts
// completed actions for one that reads completed_actions.
func selectionReads(s *plan.Skill) map[string][]jsstatic.Path {
	out := map[string][]jsstatic.Path{}
	add := func(p *jsstatic.Program) {
		for _, r := range p.StateReads(nil) {
			out[r.Fields[0]] = append(out[r.Fields[0]], r)
		}
	}
	if o := s.Orchestrator; o != nil {
		for _, p := range selectionBlocks(o) {
			add(p)
		}
	}
	for _, pc := range s.Preconditions() {
		// A precondition in prose is not evaluated: it reads nothing.
		if !pc.Checkable() {
			continue
		}
		if p, _, err := jsstatic.ParseExpression(pc.JS); err == nil {
			add(p)
		}
	}
	return out
}

// run loops until the selection ends, the skill's status is final, or an
// action fails for good.
func (l *loop) run(ctx context.Context) error {
	l.progress(func(lp *runstore.Loop) {})
	err := l.loop(ctx)
	// The orchestrator phase's next transition carries it. An action that
	// stopped the loop stays current: status names it.
	l.progress(func(lp *runstore.Loop) {
		if err == nil {
			lp.CurrentAction = ""
		}
	})
	return err
}

func (l *loop) loop(ctx context.Context) error {
	for {
		switch l.r.State()["status"] {
		case "completed":
			return nil
		case "failed":
			return l.skillFailed()
		}
		if done, err := l.iteration(ctx); done || err != nil {
			return err
		}
	}
}

// iteration selects the next action and runs it, in one JS runtime. done
// is set when the selection ended the loop.
func (l *loop) iteration(ctx context.Context) (done bool, err error) {
	t, err := l.r.Turn(ctx)
	if err != nil {
		return false, err
	}
	defer t.Close()
	a, err := l.sel.next(ctx, t, l.r.State())
	if err != nil || a == nil {
		return true, err
	}
	before := l.r.State()
	err = l.action(ctx, t, a)
	if err == nil {
		delete(l.failures, a.ID)
		return false, l.idle(a, before)
	}
	if ctx.Err() != nil || errors.Is(err, agent.ErrNoAgent) || errors.Is(err, agent.ErrBudget) || errors.Is(err, runstore.ErrWrite) || errors.Is(err, mcp.ErrTransport) || errors.Is(err, ErrNoProgress) || !l.handles {
		return false, err
	}
	// The skill handles failures: the error is in errors[] and
	// error_count, and the selection decides what comes next, unless
	// it keeps choosing an action that keeps failing the same way.
	return false, l.again(a, err)
}

// idle fails the run when action a completed maxSame times in a row and
// changed nothing in the state but the runtime's own bookkeeping: the
// selection is waiting for something the action does not do, and would
// select it until the iteration limit.
func (l *loop) idle(a *plan.Action, before map[string]any) error {
	if l.counts {
		// The selection counts completed actions: the same action again
		// is progress (a loop of n passes).
		return nil
	}
	if l.idleAction != a.ID || !sameState(before, l.r.State()) {
		l.idleAction, l.idleRuns = a.ID, 0
		if !sameState(before, l.r.State()) {
			return nil
		}
	}
	l.idleRuns++
	if l.idleRuns < l.maxSame {
		return nil
	}
	return fmt.Errorf("%s: %w: action %s completed %d times in a row without changing the state, and the selection keeps choosing it; make the action set what the selection waits for%s",
		selectionPos(l.skill), ErrNoProgress, a.ID, l.idleRuns, l.unsetReads())
}

// bookkeeping are the state fields the runtime changes on every action.
var bookkeeping = []string{"updated_at", "completed_actions", "current_action"}

// sameState reports whether two states differ only in bookkeeping.
func sameState(a, b map[string]any) bool {
	strip := func(m map[string]any) map[string]any {
		c := maps.Clone(m)
		for _, k := range bookkeeping {
			delete(c, k)
		}
		return c
	}
	return reflect.DeepEqual(strip(a), strip(b))
}

// again counts a failure of action a handled by the skill, and fails the
// run when a failed that way maxSame times in a row.
func (l *loop) again(a *plan.Action, err error) error {
	f := failure{err: sameness(err), n: 1}
	if last, ok := l.failures[a.ID]; ok && last.err == f.err {
		f.n = last.n + 1
	}
	l.failures[a.ID] = f
	if f.n < l.maxSame {
		return nil
	}
	ae := &engine.ActionError{Action: a.ID, Err: err}
	errors.As(err, &ae)
	return &engine.ActionError{Action: a.ID, Pos: ae.Pos, Err: fmt.Errorf(
		"%w: it failed %d times in a row (--max-same-failures %d), each time with: %w; the selection keeps choosing it: fix the action, or make the selection choose another after such a failure",
		ErrSameFailure, f.n, l.maxSame, ae.Err)}
}

// varying matches what differs between two attempts that failed the same
// way: times, durations, attempt counters.
var varying = regexp.MustCompile(`(?i)\d{4}-\d\d-\d\d[t ]\d\d:\d\d:\d\d(\.\d+)?(z|[+-]\d\d:?\d\d)?|\battempts? \d+( of \d+|/\d+)?|\b(\d+(\.\d+)?(ns|µs|us|ms|s|m|h))+\b`)

// sameness is what makes two failures the same: the error's text without
// what varies between attempts.
func sameness(err error) string {
	return varying.ReplaceAllString(err.Error(), "#")
}

// action runs one iteration: it makes the action current (in the state
// and the loop's record, which its loading transition carries), runs it
// through the unit lifecycle of the engine (retries, hooks, events,
// metrics), and its completed transition records its state updates with
// it in completed_actions, in one durable write. A kill before that write
// makes a resume run the action again; after it, never.
func (l *loop) action(ctx context.Context, t *script.Turn, a *plan.Action) error {
	// A run that stopped in this action (interrupted, crashed, or failed
	// and retried) left it current in the state: the resume finishes that
	// iteration, in the same place of the run, rather than start another.
	again := l.r.State()["current_action"] == a.ID
	if !again && l.r.Loop().Iteration >= l.max {
		return l.noProgress()
	}
	st := clone(l.r.State())
	st["current_action"] = a.ID
	l.r.SetState(st)
	l.progress(func(lp *runstore.Loop) {
		if !again {
			lp.Iteration++
		}
		lp.CurrentAction = a.ID
	})
	var updates map[string]any
	// native is set when the updates are the result of the action's code
	// run as written.
	var native bool
	retries, backoff := l.retries, l.backoff
	if oe := a.Attrs.OnError; oe != nil && oe.Policy == plan.OnErrorRetry {
		// The action's own On error outweighs the run-wide --retries.
		retries = oe.Retries
		if oe.Backoff > 0 {
			backoff = oe.Backoff
		}
	}
	err := l.r.RunUnit(ctx, engine.UnitSpec{
		Kind: runstore.KindAction, ID: a.ID, Title: a.Title,
		Retries: retries, Backoff: backoff, Position: l.r.ActionBase() + l.r.Loop().Iteration,
		Execute: func(ctx context.Context) (err error) {
			if t := a.Attrs.Timeout; t != nil {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, t.Duration)
				defer cancel()
			}
			updates, native, err = l.execute(ctx, t, a)
			return err
		},
		Verify: func(ctx context.Context) error {
			err := l.apply(a, updates)
			if se := new(SchemaError); errors.As(err, &se) && native && l.r.TakesOverAction(ctx, a, err) {
				// Code written for a model can compute what its
				// schema refuses (0/0 is NaN, which JSON writes as
				// null): as for code that throws, the agent does what
				// the action means, told what the schema refused.
				if updates, err = l.ask(ctx, a, err); err == nil {
					err = l.apply(a, updates)
				}
			}
			if err != nil {
				return err
			}
			l.progress(func(*runstore.Loop) {})
			return nil
		},
	})
	if err != nil {
		var ae *engine.ActionError
		if !errors.As(err, &ae) {
			err = &engine.ActionError{Action: a.ID, Err: err}
		}
		return err
	}
	return nil
}

// execute runs the action once, in its iteration's runtime t, and
// returns its state updates; native reports whether they are what its
// code returned, run as written, rather than the agent's.
func (l *loop) execute(ctx context.Context, t *script.Turn, a *plan.Action) (updates map[string]any, native bool, err error) {
	if a.Execution.ToAgent() {
		updates, err = l.ask(ctx, a, nil)
		return updates, false, err
	}
	updates, err = l.r.RunAction(ctx, t, a)
	if err != nil && l.r.TakesOverAction(ctx, a, err) {
		// As for a step: native code that fails was guidance after all.
		updates, err = l.ask(ctx, a, err)
		return updates, false, err
	}
	return updates, err == nil, err
}

// ask hands an action to the agent, whose reply must hold stateUpdates:
// an agent-class action, or a native one whose code failed (failure).
// Without an agent the run stops there, resumable.
func (l *loop) ask(ctx context.Context, a *plan.Action, failure error) (map[string]any, error) {
	if !l.r.HasAgent() {
		return nil, &engine.ActionError{Action: a.ID, Pos: a.Execution.Pos, Err: fmt.Errorf("the action goes to the agent (%s): %w", a.Execution.Class.Reason, agent.ErrNoAgent)}
	}
	waits := ""
	if unset := l.unsetFields(); len(unset) > 0 {
		// What the selection waits for is in the orchestrator, which
		// the agent is not sent: without it, a model has no way to know
		// which fields make the loop go on (ccw-loop's action-init).
		waits = fmt.Sprintf("The loop selects the next action with selectNextAction (%s), from the state your stateUpdates leave. It reads %s, unset now: set them when this action has done what they stand for, or the loop may select it again.",
			l.skill.Orchestrator.Decision.Pos, strings.Join(unset, ", "))
	}
	reply, err := l.r.AskAction(ctx, a, failure, waits)
	var failed *agent.Error
	if errors.As(err, &failed) {
		// The agent's failure is the action's, at its file:line, as a
		// step's is.
		return nil, &engine.ActionError{Action: a.ID, Pos: a.Execution.Pos, Err: err}
	}
	if err != nil {
		return nil, err
	}
	updates, err := agent.ParseStateUpdates(reply)
	if err != nil {
		return nil, &engine.ActionError{Action: a.ID, Pos: a.Execution.Pos, Err: fmt.Errorf("the agent's reply: %w", err)}
	}
	return updates, nil
}

// apply applies an action's updates with the loop's own (current_action
// cleared, the action appended to completed_actions), validates the
// result against the state schema and writes state.json once. A refused
// update leaves state.json as it was.
func (l *loop) apply(a *plan.Action, updates map[string]any) error {
	next, err := script.ApplyUpdates(l.r.State(), updates)
	if err != nil {
		return &engine.ActionError{Action: a.ID, Pos: resultPos(a), Err: err}
	}
	next["current_action"] = nil
	if !appendsItself(l.r.State(), next, a.ID) {
		// Appended in place when the array has room: the current state
		// is the only one appended to (a state is replaced, never
		// changed), and every older one is a shorter prefix, which the
		// slot past its end does not change. So the list is not copied
		// once per action, and the log's patch finds it grew at its end
		// without comparing it item by item.
		done, _ := next["completed_actions"].([]any)
		id, ok := l.ids[a.ID]
		if !ok {
			id = a.ID
			l.ids[a.ID] = id
		}
		next["completed_actions"] = append(done, id)
	}
	if err := l.schema.check(l.r.State(), next, updates); err != nil {
		return &engine.ActionError{Action: a.ID, Pos: resultPos(a), Err: err}
	}
	l.r.SetState(next)
	return nil
}

// appendsItself reports whether an action's updates already appended it
// to completed_actions, as execution modes' own State Updates template
// does (completed_actions: [...state.completed_actions, 'action-name']):
// the list grew and ends with the action. Appending it again would record
// it twice.
func appendsItself(before, after map[string]any, id string) bool {
	was, _ := before["completed_actions"].([]any)
	now, _ := after["completed_actions"].([]any)
	return len(now) > len(was) && now[len(now)-1] == id
}

// resultPos is where an action's result comes from: its Execution block,
// or its section for prose.
func resultPos(a *plan.Action) plan.Pos {
	if c := a.Execution.Code; c != nil {
		return c.Pos
	}
	return a.Execution.Pos
}

// progress changes the loop's record with fn, after bringing the facts
// the state holds up to date; the next event records it.
func (l *loop) progress(fn func(lp *runstore.Loop)) {
	l.r.SetLoop(func(lp *runstore.Loop) {
		// Not completed(): it copies the list, three times an action.
		done, _ := l.r.State()["completed_actions"].([]any)
		lp.MaxIterations = l.max
		lp.Completed = len(done)
		if len(done) > 0 {
			lp.LastAction, _ = done[len(done)-1].(string)
		}
		lp.ErrorCount = errorCount(l.r.State())
		fn(lp)
	})
}

func (l *loop) noProgress() error {
	last := completed(l.r.State())
	if len(last) > 6 {
		last = last[len(last)-6:]
	}
	how, pos := "the selection", selectionPos(l.skill)
	if o := l.skill.Orchestrator; o != nil && o.Decision != nil {
		how = "selectNextAction"
	}
	msg := fmt.Errorf("%w: the loop started %d actions and %s never ended it (last completed: %s)%s; make it return null when the work is done, or raise the limit (--max-iterations)",
		ErrNoProgress, l.max, how, strings.Join(last, ", "), l.unsetReads())
	if pos.IsValid() {
		return fmt.Errorf("%s: %w", pos, msg)
	}
	return msg
}

// unsetReads is what the no-progress errors add: the state fields the
// selection waits for (unsetFields), which no action that ran set (ccw-loop
// waits for skill_state, which its own loop keeps in a file, not the
// state). "" when there is none.
func (l *loop) unsetReads() string {
	unset := l.unsetFields()
	if len(unset) == 0 {
		return ""
	}
	return fmt.Sprintf("; it reads %s, still unset: no action that ran sets it in the state", strings.Join(unset, ", "))
}

// unsetFields names the state fields native Decision Logic reads that
// are unset (absent or null) in the state now, each with where it reads
// it: what the selection waits for. nil when there is none, or when the
// selection is not code skillkit runs.
func (l *loop) unsetFields() []string {
	o := l.skill.Orchestrator
	if o == nil || o.Decision == nil || l.sel.byAgent {
		return nil
	}
	prog, err := o.Decision.JS()
	if err != nil {
		return nil
	}
	var unset []string
	for _, r := range prog.StateReads(nil) {
		var v any = l.r.State()
		for _, f := range r.Fields {
			m, _ := v.(map[string]any)
			v = m[f]
		}
		name := "state." + strings.Join(r.Fields, ".")
		if v == nil && !slices.ContainsFunc(unset, func(u string) bool { return strings.HasPrefix(u, name+" ") }) {
			unset = append(unset, fmt.Sprintf("%s (read at %s)", name, o.Decision.At(r.Line, r.Col)))
		}
	}
	return unset
}

// skillFailed is the error of a run whose skill set status failed: it
// names the last error in the state, and is the error of the action that
// set it (so that it counts once, as that action's).
func (l *loop) skillFailed() error {
	err := ErrSkillFailed
	list, _ := l.r.State()["errors"].([]any)
	if len(list) > 0 {
		if e, ok := list[len(list)-1].(map[string]any); ok {
			err = fmt.Errorf("%w (last error, in %v: %v)", ErrSkillFailed, e["action"], e["message"])
		}
	}
	if done := completed(l.r.State()); len(done) > 0 {
		return &engine.ActionError{Action: done[len(done)-1], Err: err}
	}
	return err
}

func errorCount(state map[string]any) int {
	switch n := state["error_count"].(type) {
	case float64:
		return int(n)
	case int:
		return n
	}
	return 0
}

func clone(m map[string]any) map[string]any {
	out := make(map[string]any, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	return out
}

// selectionPos is where a skill's selection is written: its Decision
// Logic, else its action catalog, else its orchestrator or first action.
func selectionPos(s *plan.Skill) plan.Pos {
	switch o := s.Orchestrator; {
	case o != nil && o.Decision != nil:
		return o.Decision.Pos
	case s.Catalog != nil && s.Catalog.Pos.IsValid():
		return s.Catalog.Pos
	case o != nil && o.Doc != nil:
		return plan.Pos{File: o.Doc.File, Line: 1, Col: 1}
	case len(s.Actions) > 0:
		return plan.Pos{File: s.Actions[0].Doc.File, Line: 1, Col: 1}
	}
	return plan.Pos{}
}
