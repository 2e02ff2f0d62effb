package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/skillkit/skillkit/internal/agent"
	"github.com/skillkit/skillkit/internal/runstore"
	"github.com/skillkit/skillkit/internal/script"
	"github.com/skillkit/skillkit/plan"
)

// StepState is where a step is in its lifecycle.
type StepState string

// Step states (DESIGN §3.1): pending → (checking_condition) →
// (confirming) → executing → completed | failed → retrying | skipped |
// aborted.
const (
	StepPending   StepState = "pending"
	StepChecking  StepState = "checking_condition"
	StepConfirm   StepState = "confirming"
	StepExecuting StepState = "executing"
	StepCompleted StepState = "completed"
	StepFailed    StepState = "failed"
	StepRetrying  StepState = "retrying"
	StepSkipped   StepState = "skipped"
	StepAborted   StepState = "aborted"
	// StepTimedOut and StepLetClaude are the confirmation's own states
	// (the step-execution specification): no answer in time, and the
	// default that leaves the choice to the agent.
	StepTimedOut  StepState = "timed_out"
	StepLetClaude StepState = "let_claude"
)

// DefaultConfirmTimeout is how long a confirmation waits for its answer
// when the step gives no timeout; then its default applies.
const DefaultConfirmTimeout = 5 * time.Minute

// StepID names the step at index i (0-based) of a phase: "02-analyze#1".
// It is the position, not the number written in the heading, so that it is
// unique even when an author numbers two steps alike.
func StepID(phase string, i int) string { return fmt.Sprintf("%s#%d", phase, i+1) }

// step is a step being run.
type stepRun struct {
	r     *Runner
	unit  string
	id    string
	step  *plan.Step
	state StepState
	start time.Time
	// takeover is set when the agent takes the step over after its code
	// failed: what the agent is told of the failure.
	takeover string
	// bound is set once the step ran JS: its record carries the scope.
	bound bool
	// position is the step's place in the run (Runner.Positions).
	position int
}

func (s *stepRun) to(state StepState, detail string) error {
	err := s.r.Event(runstore.Event{Phase: s.unit, Step: s.id, From: runstore.State(s.state), To: runstore.State(state), Detail: detail})
	s.state = state
	return err
}

// RunStep runs one step of a phase through its lifecycle and records how
// it ended: its condition, its confirmation, then its blocks (or the
// agent), with its On error policy and Timeout. It returns the recorded
// status (runstore.StepCompleted, StepSkipped, or StepFailed for a failure
// its policy continues past). The error is set when the phase must stop: a
// *StepError, ErrAborted, agent.ErrNoAgent or the context's.
func (r *Runner) RunStep(ctx context.Context, unit, id string, step *plan.Step) (runstore.StepResult, error) {
	if err := ctx.Err(); err != nil {
		// Stopped (Ctrl-C, a lost claim): no step starts after that.
		return "", err
	}
	s := &stepRun{r: r, unit: unit, id: id, step: step, start: time.Now(), position: r.o.Positions[id]}
	if err := s.r.Event(runstore.Event{Phase: unit, Step: id, To: runstore.State(StepPending), Detail: step.Title, Position: s.position}); err != nil {
		return "", err
	}
	s.state = StepPending
	if c := step.Attrs.Condition; c.Checkable() {
		if err := s.to(StepChecking, c.JS); err != nil {
			return "", err
		}
		ok, err := script.EvalExpr(ctx, c, script.PureEnv{State: r.State(), Inputs: r.o.Inputs})
		if err != nil {
			err = fmt.Errorf("condition %s: %w", c.Text, err)
			return s.fail(ctx, 0, err, nil)
		}
		if !ok {
			return s.finish(runstore.StepSkipped, StepSkipped, "condition is false", 0, false)
		}
	}
	if c := step.Attrs.Confirm; c != nil {
		if err := s.to(StepConfirm, c.Question); err != nil {
			return "", err
		}
		answer, how, err := r.confirm(ctx, s)
		if err != nil {
			return "", &StepError{Step: id, Pos: c.Pos, Err: err}
		}
		switch answer {
		case plan.ConfirmSkip:
			return s.finish(runstore.StepSkipped, StepSkipped, "confirmation: skip ("+how+")", 0, false)
		case plan.ConfirmAbort:
			if err := s.to(StepAborted, "confirmation: abort ("+how+")"); err != nil {
				return "", err
			}
			r.Printf("  step %s %s: aborted (%s)\n", id, step.Title, how)
			return "", &StepError{Step: id, Pos: c.Pos, Err: ErrAborted}
		}
	}
	policy := step.Attrs.OnError
	if policy == nil {
		policy = &plan.OnError{Policy: plan.OnErrorAbort}
	}
	for attempt := 1; ; attempt++ {
		if err := s.to(StepExecuting, ""); err != nil {
			return "", err
		}
		res, err := r.execStep(ctx, s)
		if err != nil && r.takesOver(ctx, s, err) {
			s.takeover = fmt.Sprintf("skillkit ran this step's code as written, and it failed: %v\nDo what the step means instead, in the work dir.", err)
			if terr := s.to(StepFailed, err.Error()+" (the agent takes the step over)"); terr != nil {
				return "", terr
			}
			if terr := s.to(StepExecuting, "the agent"); terr != nil {
				return "", terr
			}
			res, err = r.execStep(ctx, s)
		}
		if err == nil {
			return s.finish(runstore.StepCompleted, StepCompleted, "", attempt, res.evidence)
		}
		if interrupted(ctx, err) {
			return "", err
		}
		if policy.Policy != plan.OnErrorRetry || attempt > policy.Retries {
			return s.fail(ctx, attempt, err, res)
		}
		wait := backoff(policy.Backoff, r.o.Backoff, attempt)
		if err := s.to(StepFailed, err.Error()); err != nil {
			return "", err
		}
		if err := s.to(StepRetrying, fmt.Sprintf("attempt %d of %d in %v", attempt+1, policy.Retries+1, wait)); err != nil {
			return "", err
		}
		if err := sleep(ctx, wait); err != nil {
			return "", err
		}
	}
}

// fail ends a failed step: with On error continue it is recorded as failed
// and the phase goes on; otherwise the error stops the phase.
func (s *stepRun) fail(ctx context.Context, attempts int, err error, res *execResult) (runstore.StepResult, error) {
	diag := res.diagnostics()
	if p := s.step.Attrs.OnError; p != nil && p.Policy == plan.OnErrorContinue {
		return s.finish(runstore.StepContinued, StepFailed, err.Error()+" (on error: continue)", attempts, res != nil && res.evidence)
	}
	// The step that fails the phase is recorded too (as failed: a retry
	// runs it again); the unit's error transition that follows ends the
	// group.
	rec := runstore.NewStepRecord(s.position, s.id, s.step.Title, runstore.StepFailed, res != nil && res.evidence, time.Now())
	rec.Fingerprint = s.step.Fingerprint()
	if terr := s.r.Event(runstore.Event{Phase: s.unit, Step: s.id, From: runstore.State(s.state), To: runstore.State(StepFailed), Detail: err.Error(), Record: &rec}); terr != nil {
		return "", terr
	}
	s.state = StepFailed
	// Its policy aborts (abort, or retries spent): the step's last state.
	how := "on error: abort"
	if p := s.step.Attrs.OnError; p != nil && p.Policy == plan.OnErrorRetry {
		how = fmt.Sprintf("retries spent (%d)", p.Retries)
	}
	if terr := s.to(StepAborted, how); terr != nil {
		return "", terr
	}
	s.r.metric(runstore.Metric{Kind: runstore.KindStep, Phase: s.unit, Step: s.id, DurationMS: ms(time.Since(s.start)), Attempts: attempts, Outcome: string(StepFailed)})
	s.r.Printf("  step %s %s: failed: %v\n", s.id, s.step.Title, err)
	pos := s.step.Pos
	if res != nil && res.pos.IsValid() {
		pos = res.pos
	}
	if at, ok := err.(*agent.At); ok {
		// The error knows its line better than the step's heading.
		pos, err = at.Pos, at.Err
	}
	return "", &StepError{Step: s.id, Pos: pos, Err: err, Diagnostics: diag}
}

// finish records the step as finished for good, with its last
// transition, durably: from here on a resume never runs it again. The
// last step of a phase leaves its sync to the phase's end, which follows
// with nothing of the skill run in between (what could run, the hooks and
// the agent, makes it durable first: Run.Flush): one sync for both, where
// a phase of one short step paid two.
func (s *stepRun) finish(status runstore.StepResult, to StepState, detail string, attempts int, evidence bool) (runstore.StepResult, error) {
	now := time.Now()
	rec := runstore.NewStepRecord(s.position, s.id, s.step.Title, status, evidence, now)
	rec.Fingerprint = s.step.Fingerprint()
	e := runstore.Event{Time: now, Phase: s.unit, Step: s.id, From: runstore.State(s.state), To: runstore.State(to), Detail: detail, Record: &rec}
	if s.bound {
		e.Scope = s.r.scope(s.unit).Values
	}
	write := s.r.o.Run.Commit
	if steps := s.r.phase(s.unit).Steps; len(steps) > 0 && StepID(s.unit, len(steps)-1) == s.id {
		write = s.r.o.Run.CommitLater
	}
	err := s.r.record(e, write)
	if err != nil {
		return "", err
	}
	s.state = to
	s.r.metric(runstore.Metric{Kind: runstore.KindStep, Phase: s.unit, Step: s.id, DurationMS: ms(now.Sub(s.start)), Attempts: attempts, Outcome: string(status)})
	note := ""
	if detail != "" {
		note = ", " + detail
	}
	s.r.Printf("  step %s %s: %s (%v%s)\n", s.id, s.step.Title, status, since(s.start), note)
	return status, nil
}

// confirm answers a step's confirmation: --yes, else the Confirmer within
// the question's timeout (DefaultConfirmTimeout when it gives none), else
// its default; with no Confirmer at all (no terminal, no answers file) the
// default applies at once. A timeout is a transition of its own
// (timed_out), and so is a choice left to the agent (let_claude), which
// decides between yes and skip. how says where the answer came from.
func (r *Runner) confirm(ctx context.Context, s *stepRun) (answer plan.ConfirmAnswer, how string, err error) {
	c := s.step.Attrs.Confirm
	def := c.Default
	if def == "" {
		def = plan.ConfirmYes
	}
	switch {
	case r.o.Yes:
		answer, how = plan.ConfirmYes, "--yes"
	case r.o.Confirm != nil:
		timeout := c.Timeout
		if timeout <= 0 {
			timeout = DefaultConfirmTimeout
		}
		actx, cancel := context.WithTimeout(ctx, timeout)
		answer, err = r.o.Confirm.Confirm(actx, c)
		cancel()
		how = "answered"
		switch {
		case ctx.Err() != nil:
			return "", "", ctx.Err()
		case err != nil && actx.Err() != nil:
			answer, how = def, fmt.Sprintf("no answer in %v: default %s", timeout, def)
			if terr := s.to(StepTimedOut, how); terr != nil {
				return "", "", terr
			}
		case err != nil:
			answer, how = def, "default: "+err.Error()
		}
	default:
		answer, how = def, "no terminal and no answers: default "+string(def)
		if terr := s.to(StepTimedOut, how); terr != nil {
			return "", "", terr
		}
	}
	if answer == "" {
		answer = plan.ConfirmYes
	}
	if answer != plan.ConfirmAgent {
		return answer, how, nil
	}
	if err := s.to(StepLetClaude, "the agent decides"); err != nil {
		return "", "", err
	}
	if r.o.Agent == nil {
		return "", "", fmt.Errorf("confirmation %q is left to the agent: %w", c.Question, agent.ErrNoAgent)
	}
	if err := r.o.Run.Flush(); err != nil {
		return "", "", err
	}
	actx, err := r.AgentContext(ctx)
	if err != nil {
		return "", "", err
	}
	prompt, err := agent.ConfirmPrompt(actx, c.Question, s.unit, s.step)
	if err != nil {
		return "", "", err
	}
	prompt.ID = s.id
	reply, err := r.o.Agent.Ask(ctx, prompt)
	if err != nil {
		return "", "", fmt.Errorf("asking the agent to confirm: %w", err)
	}
	yes, err := agent.ParseConfirm(reply)
	if err != nil {
		return "", "", err
	}
	if yes {
		return plan.ConfirmYes, "agent", nil
	}
	return plan.ConfirmSkip, "agent", nil
}

// execResult is what one attempt of a step left: the tails of its output
// for diagnostics, and whether its log has anything.
type execResult struct {
	stdout, stderr string
	evidence       bool
	// pos is the block that failed, or the step for agent work.
	pos plan.Pos
}

// diagLines is how many lines of stderr (and of stdout) go into a run's
// error diagnostics.
const diagLines = 10

func (res *execResult) diagnostics() runstore.Diagnostics {
	d := runstore.Diagnostics{Console: []string{}, Files: []string{}}
	if res == nil {
		return d
	}
	d.Stderr = strings.Join(lastLines(res.stderr, diagLines), "\n")
	d.Stdout = strings.Join(lastLines(res.stdout, diagLines/2), "\n")
	return d
}

// execStep runs the step's blocks in order, or hands it to the agent, in
// one attempt bounded by the step's timeout.
func (r *Runner) execStep(ctx context.Context, s *stepRun) (*execResult, error) {
	if t := s.step.Attrs.Timeout; t != nil && t.Duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, t.Duration, errTimeout{t.Duration})
		defer cancel()
	}
	res := &execResult{}
	err := r.execBlocks(ctx, s, res)
	if err != nil && ctx.Err() != nil {
		if cause := context.Cause(ctx); errors.As(cause, new(errTimeout)) {
			err = cause
		}
	}
	return res, err
}

// errTimeout is a step that ran past its Timeout.
type errTimeout struct{ d time.Duration }

func (e errTimeout) Error() string { return fmt.Sprintf("timed out after %v", e.d) }

func (r *Runner) execBlocks(ctx context.Context, s *stepRun, res *execResult) error {
	logName := strings.ReplaceAll(s.id, "#", "-")
	if s.step.Kind() == plan.StepAgent || s.takeover != "" {
		return r.askStep(ctx, s, res, logName)
	}
	for _, b := range s.step.Runnable() {
		res.pos = b.Pos
		switch b.Kind() {
		case plan.LangBash:
			if err := r.o.Run.Flush(); err != nil {
				return err
			}
			lw := &stepLog{r: r, name: logName, header: fmt.Sprintf("# bash %s\n", b.Pos)}
			out, err := r.o.Script.Shell(ctx, b.Text, lw)
			res.stdout, res.stderr = out.Stdout, out.Stderr
			if lw.close() {
				res.evidence = true
			}
			if err == nil && out.ExitCode != 0 {
				err = fmt.Errorf("exit status %d%s", out.ExitCode, tailNote(out.Stderr))
			}
			if err != nil {
				return fmt.Errorf("bash: %w", err)
			}
		case plan.LangJS:
			state, err := r.o.Script.RunStep(ctx, b, r.State(), r.scope(s.unit))
			s.bound = true
			if err != nil {
				res.stderr = err.Error()
				r.log(logName, fmt.Sprintf("# js %s\n%v\n", b.Pos, err))
				return err
			}
			r.SetState(state)
		}
	}
	return nil
}

// askStep hands the step to the agent: its text, its code as guidance,
// and, when the step's code ran and failed, that failure.
func (r *Runner) askStep(ctx context.Context, s *stepRun, res *execResult, logName string) error {
	res.pos = s.step.Pos
	if r.o.Agent == nil {
		return fmt.Errorf("%s: step %s goes to the agent (%s): %w", s.step.Pos, s.id, AgentReason(s.step), agent.ErrNoAgent)
	}
	if err := r.o.Run.Flush(); err != nil {
		return err
	}
	actx, err := r.AgentContext(ctx)
	if err != nil {
		return err
	}
	prompt, err := agent.StepPrompt(actx, r.phase(s.unit), s.step)
	if err != nil {
		return err
	}
	prompt.ID = s.id
	if s.takeover != "" {
		prompt.Note("STEP", s.takeover)
	}
	reply, err := r.o.Agent.Ask(ctx, prompt)
	res.stdout = reply
	var aerr *agent.Error
	if errors.As(err, &aerr) {
		res.stderr = aerr.Stderr
	}
	res.evidence = r.log(logName, "# agent\n"+reply)
	if err != nil {
		return err
	}
	if updates, perr := agent.ParseStateUpdates(reply); perr == nil {
		return r.Update(updates)
	}
	return nil
}

// takesOver reports whether the agent takes over a native step whose code
// failed: the skill runs in auto mode (DESIGN §1.5), there is an agent,
// nothing declared the code native, and the failure is the code's, not a
// timeout or a stop. Code that reads the work of earlier agent steps, or
// tools the machine lacks, is guidance after all.
func (r *Runner) takesOver(ctx context.Context, s *stepRun, err error) bool {
	return r.mayTakeOver(ctx, err) && s.takeover == "" && s.step.Kind() == plan.StepCode && !s.step.Native(r.o.Skill)
}

// mayTakeOver is what a takeover needs whatever fails: an agent, auto
// mode, and a failure of the code, not a timeout or a stop.
func (r *Runner) mayTakeOver(ctx context.Context, err error) bool {
	return r.AgentJudges() && !interrupted(ctx, err) && !errors.As(err, new(errTimeout))
}

// AgentReason is why a step goes to the agent, for messages: its class's
// reason, or that it has nothing to run. The run gate lists steps with it.
func AgentReason(st *plan.Step) string {
	if st.Class.Reason != "" {
		return st.Class.Reason
	}
	return "no runnable block"
}

// log appends text, a header line and a body, to logs/<name>.log and
// reports whether it logged anything: an empty body is not logged. A
// failure to log is not a failure of the step.
func (r *Runner) log(name, text string) bool {
	if _, body, _ := strings.Cut(text, "\n"); strings.TrimSpace(body) == "" {
		return false
	}
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	err := r.o.Run.Log(name, text)
	r.history(err)
	return err == nil
}

// lastLines returns the last n non-empty lines of s.
func lastLines(s string, n int) []string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	var out []string
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return out
}

// tailNote is ": <last lines of stderr>" for an error message, or "".
func tailNote(stderr string) string {
	lines := lastLines(stderr, 3)
	if len(lines) == 0 {
		return ""
	}
	return ": " + strings.Join(lines, " | ")
}
