// Package run is the one lifecycle of a run, whatever its mode (DESIGN
// §3.1): validate the skill, claim and create or resume its record, build
// the engine, hand the work to a strategy (package sequential for phases,
// package orchestrator for the loop, both for a hybrid skill), and finish:
// completed, failed, aborted, or interrupted and resumable. It also says
// what a run would do without doing it (Plan).
package run

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/skillkit/skillkit/internal/agent"
	"github.com/skillkit/skillkit/internal/cassette"
	"github.com/skillkit/skillkit/internal/engine"
	"github.com/skillkit/skillkit/internal/mcp"
	"github.com/skillkit/skillkit/internal/orchestrator"
	"github.com/skillkit/skillkit/internal/proc"
	"github.com/skillkit/skillkit/internal/runstore"
	"github.com/skillkit/skillkit/internal/script"
	"github.com/skillkit/skillkit/internal/sequential"
	"github.com/skillkit/skillkit/plan"
)

// Options configure a run.
type Options struct {
	// Skill is the parsed skill.
	Skill *plan.Skill
	// Store keeps the run's record. Required.
	Store runstore.Store
	// WorkDir is the work dir of a new run (--workdir); empty lets the
	// store choose.
	WorkDir string
	// Resume names a run to resume (--resume): an id, or what else the
	// store locates runs by.
	Resume string
	// Force resumes a run whose skill changed since it started.
	Force bool
	// Retry takes up a failed or aborted run after a fix, from the step
	// or action that failed (--retry); completed steps whose text changed
	// since they ran refuse it, unless Force.
	Retry  bool
	Inputs map[string]string
	// Args are the skill's arguments (skillkit run SKILL -- ARGS…); a
	// resume reuses the run's own and refuses others.
	Args []string
	// NoShellContext sends the skill's context commands (!`cmd`, ```!)
	// to the agent as written instead of running them.
	NoShellContext bool
	// ProjectDir is the project the skill works on (JS code may touch it);
	// AllowPaths are more folders it may touch.
	ProjectDir string
	AllowPaths []string
	// Agent does agent work; nil makes a run that reaches some stop there,
	// resumable, with a message naming --agent. Its Dir and Env are set
	// for the run.
	Agent *agent.Agent
	// Parallel is how many Task/Agent calls of skill code run at once
	// (--parallel); zero means script.DefaultParallel.
	Parallel int
	// OutputTail is how many bytes of a command's output, and of the
	// agent's reply, are kept in memory (--output-tail); the logs get all
	// of it. Zero means proc.DefaultTail.
	OutputTail int
	// JSMemory is the heap budget of JS code in bytes (--js-memory); zero
	// means script.DefaultJSMemory.
	JSMemory int64
	// MaxAgentCalls and MaxCostUSD are the run's agent budgets, zero for
	// none (--max-agent-calls, --max-cost-usd): the run stops resumable
	// when it reaches one. They count from the run's start, resumes
	// included.
	MaxAgentCalls int
	MaxCostUSD    float64
	// Answers answers AskUserQuestion and step confirmations
	// (script.Terminal, script.LoadAnswers); nil applies the defaults.
	Answers script.Answerer
	// Yes answers yes to every confirmation (--yes).
	Yes bool
	// Strict runs native code as written only: the agent never takes over
	// a native step that failed (--strict).
	Strict bool
	// Validate checks the skill before a new run starts (lint errors);
	// its error stops the run before anything is written.
	Validate func(*plan.Skill) error
	// Loop tunes the orchestrator loop of autonomous and hybrid skills.
	Loop orchestrator.Options
	// Out receives plain progress lines; Observe sees every event.
	Out     io.Writer
	Observe func(runstore.Event)
	// Claim tunes the claim's heartbeat; Backoff the default retry wait.
	Claim   runstore.ClaimOptions
	Backoff time.Duration
	// MCP is the project's MCP configuration (mcp.Load): the run starts
	// a server on the first call of one of its tools and stops it at its
	// end. Nil configures none.
	MCP *mcp.Config
	// MCPTape, when set, answers MCP calls from a cassette (skillkit
	// test) or records them (--record).
	MCPTape mcp.Tape
}

// Result is where a run ended.
type Result struct {
	ID string
	// Dir is where the record is (Run.Where), WorkDir where the steps
	// worked.
	Dir     string
	WorkDir string
	State   runstore.RunState
}

// ErrSkillChanged is returned when the skill's content hash differs from
// the one the run started with.
var ErrSkillChanged = errors.New("the skill changed since the run started")

// LoadFailed is the id of the error of a run whose skill did not load (the
// worker lifecycle's load_failed): its units, worker.yaml or its hooks.
const LoadFailed = "load_failed"

// errLost stops a run whose claim another process took over.
var errLost = errors.New("another process took the run over (this one stalled past its claim timeout, or its claim.json was removed)")

// Run runs the skill, or resumes a run of it, to an end. It returns the
// run's result even with an error once a record exists. The error is a
// *RunError for a run that failed, was aborted or interrupted (wrapping
// the context's error after Ctrl-C: the run is then resumable), wraps
// ErrInvalid for a skill that cannot start, and is a
// *runstore.ClaimedError when another process holds the run.
func Run(ctx context.Context, o Options) (*Result, error) {
	s := o.Skill
	if s == nil {
		return nil, fmt.Errorf("run: no skill: %w", ErrInvalid)
	}
	if o.Store == nil {
		return nil, errors.New("run: no store to keep the run in")
	}
	if err := checkName(s); err != nil {
		return nil, err
	}
	skill, loadErr := load(s)
	if loadErr != nil && o.Resume != "" {
		return nil, loadErr
	}
	if o.Agent != nil && o.Agent.Context == (agent.ContextLimits{}) {
		// The CLI, the worker and skill tests alike: the thresholds are
		// the skill's.
		a := *o.Agent
		var err error
		if a.Context, err = agent.ConfigContext(s.Dir); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
		}
		o.Agent = &a
	}
	var l *lifecycle
	var err error
	if o.Resume != "" {
		// What the dead runner's commands left running (a setsid child
		// its parent-death signal missed) ends before a step runs again.
		proc.SweepOrphans()
		l, err = resume(o, skill)
	} else {
		l, err = create(o, skill, loadErr)
	}
	if err != nil {
		var re *RunError
		if errors.As(err, &re) {
			// The run exists, stopped at its start (stopAtStart).
			return &Result{ID: re.ID, Dir: re.Dir, State: re.State}, err
		}
		return nil, err
	}
	if l.pool != nil {
		// The servers stop with the run, however it ends.
		defer l.pool.Close()
	}
	return l.run(ctx, skill.phases)
}

// load reads what a run takes from its skill besides the parse: the units
// to run, worker.yaml and the hooks. Its error wraps ErrInvalid; the parts
// then hold the defaults, for the record of a run that failed to load.
func load(s *plan.Skill) (parts, error) {
	phases, err := phasesOf(s)
	if err != nil {
		return parts{worker: plan.Worker{ID: plan.DefaultWorkerID(s.Name)}}, err
	}
	w, err := s.Worker()
	if err != nil {
		return parts{phases: phases, worker: plan.Worker{ID: plan.DefaultWorkerID(s.Name)}}, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	hooks, err := engine.LoadHooks(s, w)
	if err != nil {
		return parts{phases: phases, worker: *w}, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	return parts{phases: phases, hooks: hooks, worker: *w}, nil
}

// phasesOf is what the phase strategy runs: the numbered phases, where an
// autonomous skill is one phase, its orchestrator, so that the loop runs
// as it runs in a hybrid skill's place.
func phasesOf(s *plan.Skill) ([]*plan.Phase, error) {
	switch s.Mode {
	case plan.ModeSequential, plan.ModeHybrid:
		return s.Phases, nil
	case plan.ModeAutonomous:
		doc := &plan.Doc{File: "phases/orchestrator.md", Title: "Orchestrator"}
		if s.Orchestrator != nil && s.Orchestrator.Doc != nil {
			doc = s.Orchestrator.Doc
		}
		title := doc.Title
		if title == "" {
			title = "Orchestrator"
		}
		return []*plan.Phase{{Doc: doc, Title: title, IsOrchestrator: true}}, nil
	case plan.ModeAgent:
		if u := s.AgentUnit(); u != nil {
			return []*plan.Phase{u}, nil
		}
	}
	return nil, fmt.Errorf("%s: the skill has no numbered phase, orchestrator or action to run (mode %s): %w", s.Dir, s.Mode, ErrInvalid)
}

// lifecycle is one run in progress.
type lifecycle struct {
	o   Options
	rec runstore.Run
	eng *engine.Runner
	// from is the run state the run is in when it starts running.
	from runstore.RunState
	parts
	// pool holds the MCP servers the run started; nil without MCP.
	pool *mcp.Pool
}

// parts are what a run takes from its skill before it starts.
type parts struct {
	// phases are what the phase strategy runs (phasesOf).
	phases []*plan.Phase
	hooks  engine.Hooks
	worker plan.Worker
}

// create validates the skill and records a new run, claimed. A skill that
// fails validation (its declared inputs, the run gate) still leaves a
// record, pending → validating → failed with the problems, so that status
// and runs show why (the step-execution specification's Validating →
// Failed); the error wraps ErrInvalid. So does a skill whose units,
// worker.yaml or hooks did not load (loadErr): its failure's id is the
// worker lifecycle's load_failed.
func create(o Options, skill parts, loadErr error) (*lifecycle, error) {
	s := o.Skill
	t0 := time.Now()
	inputs, problems := s.CheckInputs(o.Inputs, o.Args)
	invalid, failedAt := loadErr, string(runstore.RunValidating)
	if invalid != nil {
		failedAt = LoadFailed
	} else if len(problems) > 0 {
		invalid = fmt.Errorf("the inputs do not match what %s declares:\n  %s", s.Entry, strings.Join(problems, "\n  "))
	} else if o.Validate != nil {
		invalid = o.Validate(s)
	}
	o.Inputs = inputs
	t1 := time.Now()
	start := runstore.Start{
		RunID: runstore.NewID(t0), Skill: s.Name, SkillDir: absDir(s.Dir), SkillHash: s.Hash, Mode: string(s.Mode),
		StartedAt: t0.UTC(), SkillVersion: skillVersion(s), TotalSteps: totalSteps(s), Phases: len(skill.phases), Inputs: inputs,
		Args: o.Args, SessionID: runstore.NewSessionID(),
	}
	rec, err := o.Store.Create(runstore.NewRun{Start: start, State: s.InitialState(t0), WorkDir: o.WorkDir, Workspace: skill.worker.File}, o.Claim)
	if err != nil {
		if errors.Is(err, runstore.ErrExists) {
			return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
		}
		return nil, startedAnyway(o, start.RunID, err)
	}
	l := &lifecycle{o: o, rec: rec, from: runstore.RunReady, parts: skill}
	if err := l.newEngine(); err != nil {
		return nil, l.stopAtStart(err)
	}
	if o.Observe != nil {
		// The store recorded the first transition as it made the record.
		o.Observe(runstore.Event{Time: t0, Run: start.RunID, To: runstore.State(runstore.RunPending), Detail: s.Name})
	}
	// These transitions happened before the record existed to hold them.
	next := runstore.Event{Time: t1, From: runstore.State(runstore.RunValidating), To: runstore.State(runstore.RunReady)}
	if invalid != nil {
		st := maps.Clone(l.eng.State())
		st["status"] = "failed"
		l.eng.SetState(st)
		next.To, next.Detail = runstore.State(runstore.RunFailed), invalid.Error()
		if loadErr != nil {
			next.Detail = LoadFailed + ": " + next.Detail
		}
		next.Error = &runstore.RunError{ID: failedAt, Message: invalid.Error(),
			Diagnostics: runstore.Diagnostics{Console: []string{}, Files: []string{}}}
	}
	for _, e := range []runstore.Event{{Time: t0, From: runstore.State(runstore.RunPending), To: runstore.State(runstore.RunValidating)}, next} {
		commit := l.eng.Event
		if e.Error != nil {
			commit = l.eng.Commit
		}
		if err := commit(e); err != nil {
			return nil, l.stopAtStart(err)
		}
	}
	if invalid != nil {
		_, cerr := l.close(nil)
		if loadErr != nil {
			return nil, errors.Join(loadErr, cerr)
		}
		return nil, errors.Join(fmt.Errorf("%w: %w", ErrInvalid, invalid), cerr)
	}
	return l, nil
}

// startedAnyway is the error of a run whose record could not be made:
// err, or, when the disk failed after the run's start was written (a
// snapshot that follows it), the RunError of the run that exists,
// interrupted, so that it is named and resumed rather than left unsaid.
func startedAnyway(o Options, id string, err error) error {
	if !errors.Is(err, runstore.ErrWrite) {
		return err
	}
	ref := cmp.Or(o.WorkDir, id)
	sum, serr := o.Store.Status(ref)
	if serr != nil || sum.ID != id {
		return err
	}
	return &RunError{ID: id, Dir: sum.Dir, State: runstore.RunInterrupted, Err: err}
}

// stopAtStart closes the record of a run that stopped before its first
// step, with err. The run exists (its start is recorded): when the disk failed
// it is interrupted and resumes once there is room, and the RunError
// says which run it is, as a run stopped later by the disk does.
func (l *lifecycle) stopAtStart(err error) error {
	res, cerr := l.close(nil)
	if !errors.Is(err, runstore.ErrWrite) {
		return errors.Join(err, cerr)
	}
	return &RunError{ID: res.ID, Dir: res.Dir, State: runstore.RunInterrupted, Err: errors.Join(err, besides(err, cerr))}
}

// resume claims an existing run of the skill.
func resume(o Options, skill parts) (*lifecycle, error) {
	if _, err := resumable(o); err != nil {
		return nil, err
	}
	rec, err := o.Store.Resume(o.Resume, runstore.ResumeOptions{Claim: o.Claim, Retry: o.Retry})
	if err != nil {
		return nil, err
	}
	p := rec.Progress()
	fail := func(err error) (*lifecycle, error) {
		rec.Close()
		return nil, err
	}
	if p.Skill != o.Skill.Name {
		return fail(fmt.Errorf("resuming run %s: it is a run of %s, not %s: %w", p.RunID, p.Skill, o.Skill.Name, ErrInvalid))
	}
	if err := checkChanges(o, p); err != nil {
		return fail(err)
	}
	if len(o.Args) > 0 && !slices.Equal(o.Args, p.Args) {
		return fail(fmt.Errorf("resuming run %s: it runs with the arguments %q; a resume keeps them (pass none): %w", p.RunID, p.Args, ErrInvalid))
	}
	l := &lifecycle{o: o, rec: rec, from: p.RunState, parts: skill}
	for _, n := range rec.Notes() {
		l.printf("note: %s\n", n)
	}
	if err := l.newEngine(); err != nil {
		return fail(err)
	}
	return l, nil
}

// checkChanges refuses to take up a run of a skill that changed since it
// started, unless forced. A retry after a fix expects a change: it is
// refused only when a step that completed changed, as the run would keep
// what the old text did. Either way the refusal names those steps.
func checkChanges(o Options, p runstore.Progress) error {
	if o.Force {
		return nil
	}
	changed := changedSteps(o.Skill, p)
	if o.Retry {
		if len(changed) == 0 {
			return nil
		}
		return fmt.Errorf("retrying run %s: %w: %d completed step(s) changed since they ran, and would not run again: %s; retry with --force to keep what they did, or start a new run",
			p.RunID, ErrSkillChanged, len(changed), strings.Join(changed, "; "))
	}
	if h := o.Skill.Hash; h == "" || p.SkillHash == "" || h == p.SkillHash {
		return nil
	}
	which := "no completed step changed"
	if len(changed) > 0 {
		which = "changed since they ran: " + strings.Join(changed, "; ")
	}
	return fmt.Errorf("resuming run %s: %w (hash %s, now %s; %s); resume with --force to run the changed skill",
		p.RunID, ErrSkillChanged, short(p.SkillHash), short(o.Skill.Hash), which)
}

// changedSteps names the completed steps of p whose text is not what it
// was when they ran (per-step fingerprints), or that are gone.
func changedSteps(s *plan.Skill, p runstore.Progress) []string {
	now := map[string]*plan.Step{}
	for _, ph := range s.Phases {
		for i, st := range ph.Steps {
			now[engine.StepID(ph.ID(), i)] = st
		}
	}
	var out []string
	for r := range p.CompletedSteps.All() {
		if !r.Done() || !strings.Contains(r.ID, "#") {
			// A failure runs again, and an action is not a step.
			continue
		}
		st, ok := now[r.ID]
		switch {
		case !ok:
			out = append(out, r.ID+" (no longer in the skill)")
		case r.Fingerprint != "" && r.Fingerprint != st.Fingerprint():
			out = append(out, fmt.Sprintf("%s %s (%s)", r.ID, st.Title, st.Pos))
		}
	}
	return out
}

// resumable reads the run o.Resume names and refuses it when it is
// another skill's: that comes first, before whether it has finished or
// changed, as no flag makes it this skill's run.
func resumable(o Options) (*runstore.Summary, error) {
	sum, err := o.Store.Status(o.Resume)
	if err != nil {
		return nil, err
	}
	if sum.Skill != o.Skill.Name {
		where := sum.Skill
		if dir := sum.Progress.SkillDir; dir != "" {
			where = dir
		}
		return nil, invalidf("run %s is a run of the skill %s, not %s; resume it with: skillkit run %s --resume %s",
			sum.ID, sum.Skill, o.Skill.Name, where, sum.ID)
	}
	return sum, nil
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// newEngine makes the step engine of the run, with its state and host.
func (l *lifecycle) newEngine() error {
	p := l.rec.Progress()
	inputs := maps.Clone(p.Inputs)
	if inputs == nil {
		inputs = map[string]string{}
	}
	maps.Copy(inputs, l.o.Inputs)
	vars := VarsOf(l.o.Skill, p.Args, sessionOf(p))
	// e is set below; the host asks it for the run's prompt context when
	// skill code calls Task.
	var e *engine.Runner
	hopts := script.Options{
		WorkDir: l.rec.WorkDir(), SkillDir: l.o.Skill.Dir, ProjectDir: l.o.ProjectDir, AllowPaths: l.o.AllowPaths,
		Inputs: inputs, Args: p.Args, RunID: p.RunID, Skill: l.o.Skill.Name, Answers: l.o.Answers,
		Parallel: l.o.Parallel, OutputTail: l.o.OutputTail, JSMemory: l.o.JSMemory,
		Log:          logWriter{l.rec, "console"},
		AgentContext: func(ctx context.Context) (agent.Context, error) { return e.AgentContext(ctx) },
		Barrier:      l.rec.Settle,
	}
	var ag *agent.Agent
	if l.o.Agent != nil {
		// One conversation for the whole run, whoever calls: steps,
		// actions and skill code share the session, continued from the
		// record on a resume.
		a := *l.o.Agent
		a.AllowedTools = allowedTools(l.o.Skill)
		a.MaxReply = l.o.OutputTail
		// A call is recorded as it begins, and again as it ends.
		a.Session = &agent.Session{ID: vars.SessionID, Begun: func(c agent.Call) error { return e.AgentBegun(c) },
			Done: func(c agent.Call) { e.AgentCalled(c) }}
		a.Log = func(p *agent.Prompt) io.Writer { return logWriter{l.rec, agentLog(p)} }
		a.Session.MaxCalls, a.Session.MaxCostUSD = l.o.MaxAgentCalls, l.o.MaxCostUSD
		if c := p.Agent; c != nil {
			a.Session.Calls, a.Session.Thread, a.Session.CostUSD = c.Calls, c.Thread, c.CostUSD
		}
		ag = &a
		hopts.Agent = ag
	}
	if l.o.MCP != nil || l.o.MCPTape != nil {
		if err := l.newPool(script.Env(hopts)); err != nil {
			return err
		}
		hopts.MCP = l.pool
	}
	host, err := script.NewHost(hopts)
	if err != nil {
		return err
	}
	eo := engine.Options{
		Run: l.rec, Skill: l.o.Skill, Inputs: inputs, Script: host, Env: script.Env(hopts),
		Yes: l.o.Yes, Strict: l.o.Strict, Out: l.o.Out, Backoff: l.o.Backoff, Observe: l.o.Observe,
		Vars: vars, ShellContext: !l.o.NoShellContext, Hooks: l.hooks, Worker: l.worker,
	}
	if l.o.Answers != nil {
		eo.Confirm = l.o.Answers
	}
	if ag != nil {
		// The agent works in the run like a step: same folder, same SKILL_*.
		a := *ag
		a.Dir = l.rec.WorkDir()
		a.Env = append(slices.Clone(eo.Env), a.Env...)
		eo.Agent = &a
	}
	eo.Positions, eo.ActionBase = positions(l.phases)
	e = engine.New(eo)
	l.eng = e
	return nil
}

// newPool makes the run's MCP servers: started on first use in the work
// dir, held to the skill's allowed-tools, their calls logged to the
// run's mcp log scrubbed as cassettes are.
func (l *lifecycle) newPool(env []string) error {
	patterns, err := cassette.ConfigScrub(l.o.Skill.Dir)
	if err != nil {
		return err
	}
	scrub, err := cassette.NewScrubber(append(os.Environ(), l.o.MCP.Env()...), patterns)
	if err != nil {
		return err
	}
	l.pool = mcp.NewPool(mcp.Options{
		// Servers run where the steps do: "." in a server's args is the
		// run's work dir.
		Config: l.o.MCP, Dir: l.rec.WorkDir(), Allowed: allowedTools(l.o.Skill), Tape: l.o.MCPTape, Env: env,
		Log: logWriter{l.rec, "mcp"}, Scrub: scrub.Scrub,
	})
	return nil
}

// positions are the places of the steps in the run, 1-based in phase
// order, and the number of steps before the loop, where actions count
// on.
func positions(phases []*plan.Phase) (map[string]int, int) {
	pos, n, base := map[string]int{}, 0, 0
	for _, ph := range phases {
		if ph.IsOrchestrator {
			base = n
		}
		for i := range ph.Steps {
			n++
			pos[engine.StepID(ph.ID(), i)] = n
		}
	}
	return pos, base
}

// sessionOf is the run's session id; a run recorded before runs had one
// gets one derived from its id.
func sessionOf(p runstore.Progress) string {
	if p.SessionID != "" {
		return p.SessionID
	}
	return runstore.SessionIDOf(p.RunID)
}

// VarsOf are the substitutions of a run of s (DESIGN §1.5), and of its
// prompt as `skillkit mcp serve` serves it.
func VarsOf(s *plan.Skill, args []string, session string) agent.Vars {
	return agent.Vars{Args: args, Names: listField(s, "arguments"), SkillDir: absDir(s.Dir), SessionID: session}
}

// allowedTools is the front matter's allowed-tools, for an agent that can
// restrict its tools to them.
func allowedTools(s *plan.Skill) []string { return listField(s, "allowed-tools") }

// listField reads a front matter field that is a YAML list or, as Claude
// Code also accepts, one string of comma- or space-separated items
// ("Read, Grep, Bash(git log:*)": spaces inside parentheses do not
// separate).
func listField(s *plan.Skill, key string) []string {
	f := s.FrontMatter.Get(key)
	if f == nil {
		return nil
	}
	var out []string
	switch v := f.Value.(type) {
	case []any:
		for _, x := range v {
			out = append(out, fmt.Sprint(x))
		}
	case string:
		depth, start := 0, 0
		for i, r := range v + " " {
			switch {
			case r == '(':
				depth++
			case r == ')':
				depth--
			case depth <= 0 && (r == ',' || r == ' ' || r == '\t'):
				if item := strings.TrimSpace(v[start:i]); item != "" {
					out = append(out, item)
				}
				start = i + 1
			}
		}
	}
	return out
}

// logWriter is an io.Writer onto one of the run's logs (console.log of the
// run's JS).
type logWriter struct {
	rec  runstore.Run
	name string
}

func (w logWriter) Write(p []byte) (int, error) {
	if err := w.rec.Log(w.name, string(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// agentLog is the log a call's events go to as they come, the one its
// reply goes to: the step's (logs/<phase>-<n>.log), the action's, or
// select.log, task.log; a prompt without an id goes to its request's.
func agentLog(p *agent.Prompt) string {
	if p.ID != "" {
		return strings.ReplaceAll(p.ID, "#", "-")
	}
	return string(p.Request)
}

// run runs the phases not yet completed and ends the run.
func (l *lifecycle) run(ctx context.Context, phases []*plan.Phase) (*Result, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	// The record names the process groups of the run's commands, for a
	// resume after a kill to end what they left running.
	ctx = proc.WithGroups(ctx, l.rec)
	go func() {
		select {
		case <-l.rec.Lost():
			cancel(errLost)
		case <-ctx.Done():
		}
	}()
	p := l.rec.Progress()
	e := runstore.Event{From: runstore.State(l.from), To: runstore.State(runstore.RunRunning)}
	if l.from.Terminal() {
		// A retry: the skill's status goes back to running, as the run's.
		st := maps.Clone(l.eng.State())
		st["status"] = "running"
		l.eng.SetState(st)
	}
	if l.from != runstore.RunReady {
		e.Detail = "resumed"
		if l.from.Terminal() {
			e.Detail = "retried after it " + string(l.from)
		}
		if len(l.o.Inputs) > 0 {
			e.Inputs = l.o.Inputs
		}
	}
	if err := l.eng.Commit(e); err != nil {
		err = l.stopAtStart(err)
		return l.result(), err
	}
	l.printf("run %s: %s (%s) in %s; step output in logs/\n", p.RunID, l.o.Skill.Name, shape(l.o.Skill), l.rec.WorkDir())
	start := time.Now()
	loop := func(ctx context.Context, r *engine.Runner, ph *plan.Phase) error {
		lo := l.o.Loop
		if lo.Backoff == 0 {
			lo.Backoff = l.o.Backoff
		}
		return orchestrator.Run(ctx, r, l.o.Skill, lo)
	}
	err := sequential.Run(ctx, l.eng, phases, loop)
	if cause := context.Cause(ctx); err != nil && errors.Is(cause, errLost) {
		// The run is someone else's now: write nothing more.
		res := l.result()
		l.rec.Close()
		return res, &RunError{ID: p.RunID, Dir: res.Dir, State: runstore.RunInterrupted, Err: cause}
	}
	if errors.Is(err, runstore.ErrRunRemoved) {
		// Its record is gone: nothing to end in it, and nothing to
		// resume. The run failed, for what a step (or someone) did.
		l.printf("run %s: %s in %v\n", p.RunID, runstore.RunFailed, time.Since(start).Round(time.Millisecond))
		res, _ := l.close(nil)
		res.State = runstore.RunFailed
		return res, &RunError{ID: p.RunID, Dir: res.Dir, State: runstore.RunFailed, Err: err}
	}
	return l.finish(ctx, start, err)
}

// finish puts the run in its end state: completed, failed, aborted, or
// interrupted (resumable) after Ctrl-C, at agent work without an agent,
// with its agent budget spent (its conversation's context window
// included), when the disk failed, or when an MCP server was unavailable.
func (l *lifecycle) finish(ctx context.Context, start time.Time, err error) (*Result, error) {
	state := runstore.RunCompleted
	switch {
	case err == nil:
	case ctx.Err() != nil && errors.Is(err, context.Canceled), errors.Is(err, agent.ErrNoAgent),
		errors.Is(err, agent.ErrBudget), errors.Is(err, runstore.ErrWrite), errors.Is(err, mcp.ErrTransport):
		// A full or failing disk stops the run but is not the skill's
		// failure: it stays resumable once there is room again.
		state = runstore.RunInterrupted
	case errors.Is(err, engine.ErrAborted):
		state = runstore.RunAborted
	default:
		state = runstore.RunFailed
	}
	running := l.eng.State()
	if state.Terminal() {
		// The base state knows completed and failed only: aborted is failed.
		st := maps.Clone(running)
		st["status"] = "failed"
		if state == runstore.RunCompleted {
			st["status"] = "completed"
		}
		l.eng.SetState(st)
	}
	e := runstore.Event{From: runstore.State(runstore.RunRunning), To: runstore.State(state), Detail: errText(err)}
	if err != nil && state != runstore.RunInterrupted {
		e.Error = runError(err, l.rec.Progress().CurrentStep)
	}
	var werr error
	if !errors.Is(err, runstore.ErrWrite) {
		werr = l.eng.Commit(e)
	}
	if err == nil && errors.Is(werr, runstore.ErrWrite) {
		// Every step is done, but the disk refused the run's end (the
		// snapshots written before it, or its line): the record says
		// running, which reads as interrupted, and a resume records the
		// end. The run stopped for that write error.
		l.eng.SetState(running)
		state, err, werr = runstore.RunInterrupted, werr, nil
	}
	if state.Terminal() {
		// The run is over whatever a post_run hook says; its failure is
		// reported, not recorded.
		if herr := l.eng.RunHooks(context.WithoutCancel(ctx), engine.HookPostRun, map[string]string{"SKILL_RUN_STATE": string(state)}); herr != nil {
			l.printf("warning: %v\n", herr)
		}
	}
	l.printf("run %s: %s in %v\n", l.rec.ID(), state, time.Since(start).Round(time.Millisecond))
	res, cerr := l.close(nil)
	werr = besides(err, errors.Join(werr, cerr))
	if werr != nil && errors.Is(err, runstore.ErrWrite) {
		// The disk failed, and the record's close met it again: the
		// record says running, which reads as interrupted, and the run
		// resumes; the command says how.
		return res, &RunError{ID: res.ID, Dir: res.Dir, State: state, Err: errors.Join(err, werr)}
	}
	if werr != nil {
		return res, errors.Join(err, werr)
	}
	if err != nil {
		return res, &RunError{ID: res.ID, Dir: res.Dir, State: state, Err: err}
	}
	return res, nil
}

// besides returns the errors also joins (errors.Join, nested) that err
// does not hold already: a write refused once the log's sync failed is
// refused again, with the same error, when the record closes.
func besides(err, also error) error {
	if also == nil || errors.Is(err, also) {
		return nil
	}
	if _, ok := also.(*runstore.WriteError); ok {
		return also
	}
	j, ok := also.(interface{ Unwrap() []error })
	if !ok {
		return also
	}
	var rest []error
	for _, e := range j.Unwrap() {
		rest = append(rest, besides(err, e))
	}
	return errors.Join(rest...)
}

// close closes the record, writing its snapshots, and returns the result
// with err.
func (l *lifecycle) close(err error) (*Result, error) {
	if l.pool != nil {
		// The servers' groups end in the record, before it closes.
		l.pool.Close()
	}
	res := l.result()
	return res, errors.Join(err, l.rec.Close())
}

func (l *lifecycle) result() *Result {
	p := l.rec.Progress()
	return &Result{ID: p.RunID, Dir: l.rec.Where(), WorkDir: l.rec.WorkDir(), State: p.RunState}
}

func (l *lifecycle) printf(format string, args ...any) {
	if l.o.Out != nil {
		fmt.Fprintf(l.o.Out, format, args...)
	}
}

// runError fills the progress file's error from what stopped the run, at
// position: the place in the run of the step or action under way.
func runError(err error, position int) *runstore.RunError {
	e := &runstore.RunError{Step: position, Message: err.Error(), Diagnostics: runstore.Diagnostics{Console: []string{}, Files: []string{}}}
	var se *engine.StepError
	var oe *sequential.OutputError
	var ae *engine.ActionError
	switch {
	case errors.As(err, &ae):
		e.ID = ae.Action
	case errors.As(err, &se):
		e.ID, e.Diagnostics = se.Step, se.Diagnostics
	case errors.As(err, &oe):
		// An output is the phase's, not a step's.
		e.Step, e.ID = 0, oe.Phase
		e.Diagnostics.Files = append(e.Diagnostics.Files, oe.Output.File)
		e.Diagnostics.Stderr = strings.Join(oe.Diagnostics, "\n")
	}
	return e
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func absDir(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		return abs
	}
	return dir
}

// shape counts what a run of s has to do, in the words of its mode: the
// numbered phases and their steps, and the actions of the loop. An
// autonomous skill's orchestrator runs as a phase but is none to the
// author.
func shape(s *plan.Skill) string {
	var parts []string
	if s.Mode == plan.ModeAgent {
		return "1 agent unit"
	}
	if n := len(s.Phases); n > 0 {
		parts = append(parts, count(n, "phase"), count(totalSteps(s), "step"))
	}
	if n := len(s.Actions); n > 0 && s.Mode != plan.ModeSequential {
		parts = append(parts, count(n, "action"))
	}
	return strings.Join(parts, ", ")
}

// count is "1 step", "2 steps".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func totalSteps(s *plan.Skill) int {
	if u := s.AgentUnit(); u != nil {
		return len(u.Steps)
	}
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
