// Package sequential runs a sequential skill: its numbered phases in order,
// each phase's steps through the shared engine, its declared outputs
// verified after it. It also runs the outer order of a hybrid skill, handing
// the numbered orchestrator to the autonomous loop.
package sequential

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/skillkit/skillkit/internal/agent"
	"github.com/skillkit/skillkit/internal/engine"
	"github.com/skillkit/skillkit/internal/runstore"
	"github.com/skillkit/skillkit/internal/script"
	"github.com/skillkit/skillkit/plan"
)

// Options configure a run.
type Options struct {
	// Skill is the parsed skill.
	Skill *plan.Skill
	// Base is the folder under which .skillkit/runs lives; empty means the
	// current directory.
	Base string
	// WorkDir is the run directory of a new run (--workdir); empty means
	// .skillkit/runs/<skill>/<run-id> under Base.
	WorkDir string
	// Resume is a run id or run directory to resume (--resume).
	Resume string
	// Force resumes a run whose skill changed since it started.
	Force  bool
	Inputs map[string]string
	// ProjectDir is the project the skill works on (JS code may touch it);
	// AllowPaths are more folders it may touch.
	ProjectDir string
	AllowPaths []string
	// Agent does agent work; nil makes a run that reaches some stop there,
	// resumable, with a message naming --agent. Its Dir and Env are set
	// for the run.
	Agent *agent.Agent
	// Answers answers AskUserQuestion and step confirmations
	// (script.Terminal, script.LoadAnswers); nil applies the defaults.
	Answers script.Answerer
	// Yes answers yes to every confirmation (--yes).
	Yes bool
	// Validate checks the skill before a new run starts (lint errors);
	// its error stops the run before anything is written.
	Validate func(*plan.Skill) error
	// Orchestrate runs the numbered orchestrator phase of a hybrid skill.
	Orchestrate func(ctx context.Context, r *engine.Runner, ph *plan.Phase) error
	// Out receives plain progress lines; Observe sees every event.
	Out     io.Writer
	Observe func(runstore.Event)
	// NoSync turns the fsyncs of the run directory off (tests).
	NoSync bool
	// Claim tunes the claim's heartbeat; Backoff the default retry wait.
	Claim   runstore.ClaimOptions
	Backoff time.Duration
}

// Result is where a run ended.
type Result struct {
	ID    string
	Dir   string
	State string
}

// PhaseID names a phase in events and progress: its file name without .md
// ("02-analyze").
func PhaseID(ph *plan.Phase) string { return strings.TrimSuffix(path.Base(ph.Doc.File), ".md") }

// Run runs the skill, or resumes a run of it, to a terminal state. It
// returns the run's result even with an error when a run directory exists.
// The error is an *engine.RunError for a run that failed, was aborted or
// interrupted (wrapping the context's error after Ctrl-C: the run is then
// resumable), wraps engine.ErrInvalid for a skill that cannot start, and is
// a *runstore.ClaimedError when another process holds the run.
func Run(ctx context.Context, o Options) (*Result, error) {
	s := o.Skill
	if s == nil {
		return nil, fmt.Errorf("run: no skill: %w", engine.ErrInvalid)
	}
	if s.Mode != plan.ModeSequential && !((s.Mode == plan.ModeHybrid || s.Mode == plan.ModeAutonomous) && o.Orchestrate != nil) {
		return nil, fmt.Errorf("%s: the skill is %s; the sequential runner runs sequential skills: %w", s.Dir, s.Mode, engine.ErrInvalid)
	}
	hooks, err := engine.LoadHooks(s)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", engine.ErrInvalid, err)
	}
	var r *runner
	if o.Resume != "" {
		r, err = resume(o)
	} else {
		r, err = create(o)
	}
	if err != nil {
		return nil, err
	}
	r.eng.Hooks = hooks
	defer r.close()
	return r.runPhases(ctx)
}

// errLost stops a run whose claim another process took over.
var errLost = errors.New("another process took the run over (this one stalled past its claim timeout)")

// runner is one run in progress.
type runner struct {
	o     Options
	run   *runstore.Run
	claim *runstore.Claim
	eng   *engine.Runner
	// console receives the run's console.log lines.
	console *consoleLog
	// from is the run state the run is in when it starts running.
	from string
}

func (r *runner) close() {
	r.claim.Release()
	r.run.Close()
	if r.console != nil {
		r.console.Close()
	}
}

// create validates the skill and makes a new run directory, claimed.
func create(o Options) (*runner, error) {
	s := o.Skill
	t0 := time.Now()
	if o.Validate != nil {
		if err := o.Validate(s); err != nil {
			return nil, fmt.Errorf("%w: %w", engine.ErrInvalid, err)
		}
	}
	t1 := time.Now()
	id := runstore.NewID(t0)
	dir := o.WorkDir
	if dir == "" {
		dir = runstore.DefaultDir(base(o), s.Name, id)
	}
	p := runstore.Progress{
		SkillVersion: skillVersion(s), StartedAt: t0.UTC(), TotalSteps: totalSteps(s),
		RunState: runstore.RunRunning, SkillHash: s.Hash, RunID: id, Skill: s.Name, SkillDir: absDir(s.Dir),
		Mode: string(s.Mode), Inputs: o.Inputs, CompletedSteps: []runstore.StepRecord{}, CompletedPhases: []string{},
	}
	run, err := runstore.Create(dir, p, s.InitialState(t0), runstore.Options{NoSync: o.NoSync})
	if err != nil {
		return nil, err
	}
	claim, err := runstore.Acquire(dir, o.Claim)
	if err != nil {
		run.Close()
		return nil, err
	}
	r := &runner{o: o, run: run, claim: claim, from: runstore.RunReady}
	if err := r.newEngine(); err != nil {
		r.close()
		return nil, err
	}
	// These transitions happened before the folder existed to hold them.
	for _, e := range []runstore.Event{
		{Time: t0, To: runstore.RunPending, Detail: s.Name},
		{Time: t0, From: runstore.RunPending, To: runstore.RunValidating},
		{Time: t1, From: runstore.RunValidating, To: runstore.RunReady},
	} {
		if err := r.eng.Event(e); err != nil {
			r.close()
			return nil, err
		}
	}
	return r, nil
}

// resume claims an existing run of the skill.
func resume(o Options) (*runner, error) {
	dir, err := runstore.Locate(base(o), o.Resume)
	if err != nil {
		return nil, err
	}
	run, claim, err := runstore.Resume(dir, runstore.ResumeOptions{Hash: o.Skill.Hash, Force: o.Force, Claim: o.Claim, Store: runstore.Options{NoSync: o.NoSync}})
	if err != nil {
		return nil, err
	}
	r := &runner{o: o, run: run, claim: claim}
	if run.Restored != "" {
		r.printf("state.json was missing: restored from %s, taken after the last completed step\n", run.Restored)
	}
	p := run.Progress()
	if p.Skill != o.Skill.Name {
		r.close()
		return nil, fmt.Errorf("resuming run %s: it is a run of %s, not %s: %w", p.RunID, p.Skill, o.Skill.Name, engine.ErrInvalid)
	}
	r.from = p.RunState
	if len(o.Inputs) > 0 {
		in := maps.Clone(p.Inputs)
		if in == nil {
			in = map[string]string{}
		}
		maps.Copy(in, o.Inputs)
		if err := run.Update(func(p *runstore.Progress) { p.Inputs = in }); err != nil {
			r.close()
			return nil, err
		}
	}
	if err := r.newEngine(); err != nil {
		r.close()
		return nil, err
	}
	return r, nil
}

// newEngine makes the step engine of the run, with its state and host.
func (r *runner) newEngine() error {
	p := r.run.Progress()
	state, err := r.run.State()
	if err != nil {
		return err
	}
	r.console = &consoleLog{dir: r.run.Dir}
	hopts := script.Options{
		WorkDir: r.run.Dir, SkillDir: r.o.Skill.Dir, ProjectDir: r.o.ProjectDir, AllowPaths: r.o.AllowPaths,
		Inputs: p.Inputs, RunID: p.RunID, Skill: r.o.Skill.Name, Agent: r.o.Agent, Answers: r.o.Answers,
		Log: r.console,
	}
	host, err := script.NewHost(hopts)
	if err != nil {
		return err
	}
	e := &engine.Runner{
		Run: r.run, Skill: r.o.Skill, Inputs: p.Inputs, State: state, Script: host, Env: script.Env(hopts),
		Yes: r.o.Yes, Out: r.o.Out, Backoff: r.o.Backoff, Observe: r.o.Observe,
	}
	if r.o.Answers != nil {
		e.Confirm = r.o.Answers
	}
	if r.o.Agent != nil {
		// The agent works in the run like a step: same folder, same SKILL_*.
		a := *r.o.Agent
		a.Dir = r.run.Dir
		a.Env = append(slices.Clone(e.Env), a.Env...)
		e.Agent = &a
	}
	r.eng = e
	return nil
}

// runPhases runs the phases not yet completed and ends the run.
func (r *runner) runPhases(ctx context.Context) (*Result, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	go func() {
		select {
		case <-r.claim.Lost():
			cancel(errLost)
		case <-ctx.Done():
		}
	}()
	p := r.run.Progress()
	detail := ""
	if r.from != runstore.RunReady {
		detail = "resumed"
	}
	if err := r.eng.RunEvent(r.from, runstore.RunRunning, detail); err != nil {
		return r.result(), err
	}
	if r.from != runstore.RunRunning {
		if err := r.run.Update(func(p *runstore.Progress) { p.RunState = runstore.RunRunning }); err != nil {
			return r.result(), err
		}
	}
	r.printf("run %s: %s (%d phases, %d steps) in %s\n", p.RunID, r.o.Skill.Name, len(r.o.Skill.Phases), p.TotalSteps, r.run.Dir)
	start := time.Now()
	var err error
	for i, ph := range r.o.Skill.Phases {
		if err = r.phase(ctx, i, ph); err != nil {
			break
		}
	}
	if cause := context.Cause(ctx); err != nil && errors.Is(cause, errLost) {
		// The run is someone else's now: write nothing more.
		return r.result(), &engine.RunError{ID: p.RunID, Dir: r.run.Dir, State: runstore.RunInterrupted, Err: cause}
	}
	return r.finish(ctx, start, err)
}

// phase runs one phase through the unit lifecycle, unless a run before a
// resume completed it.
func (r *runner) phase(ctx context.Context, i int, ph *plan.Phase) error {
	id := PhaseID(ph)
	if r.run.Progress().PhaseDone(id) {
		return nil
	}
	r.printf("phase %d/%d %s: %s\n", i+1, len(r.o.Skill.Phases), id, ph.Title)
	execute := func(ctx context.Context) error {
		for j, st := range ph.Steps {
			sid := engine.StepID(id, j)
			if r.run.Progress().StepDone(sid) {
				continue
			}
			if _, err := r.eng.RunStep(ctx, id, sid, st); err != nil {
				return err
			}
		}
		return nil
	}
	if ph.IsOrchestrator {
		execute = func(ctx context.Context) error { return r.o.Orchestrate(ctx, r.eng, ph) }
	}
	return r.eng.RunUnit(ctx, engine.UnitSpec{
		Kind: runstore.KindPhase, ID: id, Title: ph.Title,
		Execute: execute,
		Verify: func(context.Context) error {
			return verifyOutputs(id, r.run.Dir, r.o.Skill.Dir, ph.Outputs)
		},
		Done: func() error {
			return r.run.Update(func(p *runstore.Progress) {
				p.CompletedPhases = append(p.CompletedPhases, id)
				p.LastAction = "phase " + id + ": completed"
			})
		},
	})
}

// finish puts the run in its end state: completed, failed, aborted, or
// interrupted (resumable) after Ctrl-C or at agent work without an agent.
func (r *runner) finish(ctx context.Context, start time.Time, err error) (*Result, error) {
	state := runstore.RunCompleted
	switch {
	case err == nil:
	case ctx.Err() != nil && errors.Is(err, context.Canceled), errors.Is(err, engine.ErrNeedsAgent),
		errors.Is(err, runstore.ErrWrite):
		// A full or failing disk stops the run but is not the skill's
		// failure: it stays resumable once there is room again.
		state = runstore.RunInterrupted
	case errors.Is(err, engine.ErrAborted):
		state = runstore.RunAborted
	default:
		state = runstore.RunFailed
	}
	now := time.Now().UTC()
	if runstore.Terminal(state) {
		// The base state knows completed and failed only: aborted is failed.
		st := maps.Clone(r.eng.State)
		st["status"] = "failed"
		if state == runstore.RunCompleted {
			st["status"] = "completed"
		}
		if serr := r.eng.SetState(st); serr != nil {
			err = errors.Join(err, serr)
		}
	}
	uerr := r.run.Update(func(p *runstore.Progress) {
		p.RunState = state
		if runstore.Terminal(state) {
			p.CompletedAt = &now
			p.CurrentStep = ""
		}
		if err != nil && state != runstore.RunInterrupted {
			p.Error = runError(err)
		}
	})
	r.eng.RunEvent(runstore.RunRunning, state, errText(err))
	if runstore.Terminal(state) {
		// The run is over whatever a post_run hook says; its failure is
		// reported, not recorded.
		if herr := r.eng.RunHooks(context.WithoutCancel(ctx), engine.HookPostRun, map[string]string{"SKILL_RUN_STATE": state}); herr != nil {
			r.printf("warning: %v\n", herr)
		}
	}
	r.printf("run %s: %s in %v\n", r.run.ID(), state, time.Since(start).Round(time.Millisecond))
	res := r.result()
	if uerr != nil {
		return res, errors.Join(err, uerr)
	}
	if err != nil {
		return res, &engine.RunError{ID: res.ID, Dir: res.Dir, State: state, Err: err}
	}
	return res, nil
}

func (r *runner) result() *Result {
	p := r.run.Progress()
	return &Result{ID: p.RunID, Dir: r.run.Dir, State: p.RunState}
}

func (r *runner) printf(format string, args ...any) {
	if r.o.Out != nil {
		fmt.Fprintf(r.o.Out, format, args...)
	}
}

// runError fills skill-state.yaml's error from what stopped the run.
func runError(err error) *runstore.RunError {
	e := &runstore.RunError{Message: err.Error()}
	var se *engine.StepError
	var oe *OutputError
	var ae *engine.ActionError
	switch {
	case errors.As(err, &ae):
		e.Step = ae.Action
	case errors.As(err, &se):
		e.Step, e.Diagnostics = se.Step, se.Diagnostics
	case errors.As(err, &oe):
		e.Step, e.Diagnostics = oe.Phase, oe.Diagnostics
	}
	return e
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func base(o Options) string {
	if o.Base != "" {
		return o.Base
	}
	return "."
}

func absDir(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		return abs
	}
	return dir
}

func totalSteps(s *plan.Skill) int {
	n := 0
	for _, ph := range s.Phases {
		n += len(ph.Steps)
	}
	return n
}

// skillVersion is the front matter's version, or metadata.version.
func skillVersion(s *plan.Skill) string {
	if v := s.FrontMatter.Get("version"); v != nil {
		return fmt.Sprint(v.Value)
	}
	if f := s.FrontMatter.Get("metadata"); f != nil {
		if m, ok := f.Value.(map[string]any); ok && m["version"] != nil {
			return fmt.Sprint(m["version"])
		}
	}
	return ""
}

// consoleLog is where console.log of the run's JS goes: logs/console.log,
// made on the first line so that runs without JS have no such file.
type consoleLog struct {
	dir string
	f   *os.File
}

func (c *consoleLog) Write(p []byte) (int, error) {
	if c.f == nil {
		dir := filepath.Join(c.dir, runstore.LogsDir)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return 0, err
		}
		f, err := os.OpenFile(filepath.Join(dir, "console.log"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return 0, err
		}
		c.f = f
	}
	return c.f.Write(p)
}

// Close closes the file if one was made.
func (c *consoleLog) Close() error {
	if c.f == nil {
		return nil
	}
	return c.f.Close()
}
