package runstore

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"
)

// RunState is where a run is in its lifecycle (DESIGN §3.1).
type RunState string

// Run states. Completed, failed and aborted are terminal: a run in one of
// them is never resumed or claimed again. Interrupted is not in the
// lifecycle of the design: it marks a run that stopped on purpose (Ctrl-C,
// agent work without an agent, a full disk) and may be resumed.
const (
	RunPending     RunState = "pending"
	RunValidating  RunState = "validating"
	RunReady       RunState = "ready"
	RunRunning     RunState = "running"
	RunInterrupted RunState = "interrupted"
	RunCompleted   RunState = "completed"
	RunFailed      RunState = "failed"
	RunAborted     RunState = "aborted"
)

// Terminal reports whether a run state is final.
func (s RunState) Terminal() bool {
	switch s {
	case RunCompleted, RunFailed, RunAborted:
		return true
	}
	return false
}

func isRunState(s string) bool {
	switch RunState(s) {
	case RunPending, RunValidating, RunReady, RunRunning, RunInterrupted, RunCompleted, RunFailed, RunAborted:
		return true
	}
	return false
}

// Start is a run's identity, recorded on its first event.
type Start struct {
	RunID     string    `json:"runId"`
	Skill     string    `json:"skill"`
	SkillDir  string    `json:"skillDir"`
	SkillHash string    `json:"skillHash"`
	Mode      string    `json:"mode"`
	StartedAt time.Time `json:"startedAt"`
	// SkillVersion is the skill's own version (front matter), empty
	// without one; TotalSteps the steps of its phases, Phases how many.
	SkillVersion string            `json:"skillVersion,omitempty"`
	TotalSteps   int               `json:"totalSteps"`
	Phases       int               `json:"phases,omitempty"`
	Inputs       map[string]string `json:"inputs,omitempty"`
	// Args are the skill's arguments (skillkit run SKILL -- ARGS…); a
	// resume reuses them.
	Args []string `json:"args,omitempty"`
	// SessionID names the run's conversation with the agent
	// (SKILLKIT_SESSION_ID, claude's --session-id): UUID-shaped, and the
	// same across resumes.
	SessionID string `json:"sessionId,omitempty"`
	// WorkDir is where the run's steps work, absolute.
	WorkDir string `json:"workDir,omitempty"`
}

// ProgressVersion is the version of the progress file's schema: its
// skillVersion (shared/seeds/002, "Version of the skill-state schema").
const ProgressVersion = "1.0"

// Phases of currentPhase, the specification's enum (shared/seeds/002).
// Its db-verify has no counterpart: skillkit verifies a phase's outputs
// inside the phase, as part of execute-steps.
const (
	PhaseInit      = "init"
	PhaseExecute   = "execute-steps"
	PhaseError     = "error"
	PhaseSuccess   = "success"
	PhaseCompleted = "completed"
)

// Checklist states.
const (
	ChecklistPending    = "pending"
	ChecklistInProgress = "in_progress"
	ChecklistCompleted  = "completed"
)

// Progress is skill-state.yaml: where a run stands. The first block of
// fields has the names and types of the specification
// (shared/seeds/002): a reader written to it reads this file. skillkit's
// own fields follow. It is derived from the run's events by Apply, never
// written on its own.
type Progress struct {
	// SkillVersion is the progress schema's version, ProgressVersion.
	SkillVersion string    `yaml:"skillVersion" json:"skillVersion" jsonschema:"required"`
	StartedAt    time.Time `yaml:"startedAt" json:"startedAt" jsonschema:"required"`
	// CurrentPhase is PhaseInit before the first phase or action,
	// PhaseExecute while they run (Phase names the phase), PhaseError
	// while on-error hooks run, PhaseSuccess once the last phase passed,
	// PhaseCompleted once the run finished.
	CurrentPhase string `yaml:"currentPhase" json:"currentPhase" jsonschema:"required"`
	// CurrentStep is the number (1-based) of the step or action under
	// way or last run, as completedSteps numbers it; 0 before the first.
	CurrentStep int `yaml:"currentStep" json:"currentStep" jsonschema:"required,minimum=0"`
	// TotalSteps is the number of steps of the phases; for autonomous
	// and hybrid skills, plus the actions started so far, since how many
	// a loop will run is known only when it ends.
	TotalSteps     int   `yaml:"totalSteps" json:"totalSteps" jsonschema:"required,minimum=0"`
	CompletedSteps Steps `yaml:"completedSteps" json:"completedSteps" jsonschema:"required"`
	// ChecklistStatus has pre-run (validation: inputs, the lint gate, the
	// first preconditions; completed once the run passed them) and
	// evidence (the declared outputs verified: in_progress while phases
	// remain, completed only once every phase's were). A check that
	// failed or never ran is never completed.
	ChecklistStatus map[string]string `yaml:"checklistStatus" json:"checklistStatus" jsonschema:"required"`
	LastAction      string            `yaml:"lastAction" json:"lastAction" jsonschema:"required"`
	Error           *RunError         `yaml:"error" json:"error" jsonschema:"required,nullable"`
	CompletedAt     *time.Time        `yaml:"completedAt" json:"completedAt" jsonschema:"required,nullable"`

	RunState  RunState `yaml:"runState" json:"runState"`
	SkillHash string   `yaml:"skillHash" json:"skillHash"`
	RunID     string   `yaml:"runId" json:"runId"`
	Skill     string   `yaml:"skill" json:"skill"`
	// SkillRelease is the skill's own version (front matter version or
	// metadata.version), empty without one.
	SkillRelease string `yaml:"skillRelease,omitempty" json:"skillRelease,omitempty"`
	// SkillDir is the skill folder the run was started from, absolute.
	SkillDir string `yaml:"skillDir" json:"skillDir"`
	Mode     string `yaml:"mode" json:"mode"`
	// Phase is the id of the phase under way or last run, whatever
	// currentPhase says.
	Phase string `yaml:"phase" json:"phase"`
	// Inputs are the --input values; a resume reuses them.
	Inputs map[string]string `yaml:"inputs,omitempty" json:"inputs,omitempty"`
	// CompletedPhases are the phases whose outputs were verified and hooks
	// run: a resume skips them whole.
	CompletedPhases []string `yaml:"completedPhases" json:"completedPhases"`
	// Loop is the autonomous loop's position; nil until a loop starts.
	Loop *Loop `yaml:"loop,omitempty" json:"loop,omitempty"`
	// Args are the skill's arguments; a resume reuses them.
	Args []string `yaml:"args,omitempty" json:"args,omitempty"`
	// SessionID names the run's conversation with the agent.
	SessionID string `yaml:"sessionId,omitempty" json:"sessionId,omitempty"`
	// Agent is where the conversation with the agent stands; nil until
	// the first agent call.
	Agent *Conversation `yaml:"agent,omitempty" json:"agent,omitempty"`
	// Phases is how many phases the run has, to tell the last.
	Phases int `yaml:"-" json:"-"`
	// loading is the action last loaded and not yet finished: loaded
	// again, it is the same step.
	loading string
	// Scope is the JS scope of phase ScopePhase as last recorded (Event
	// Scope); not part of the progress file.
	Scope      map[string]any `yaml:"-" json:"-"`
	ScopePhase string         `yaml:"-" json:"-"`
	// failed counts the records of completedSteps that failed (Apply
	// keeps it): without one, a step's number is the next, found without
	// a look through a list that grows with the run.
	failed int
}

// Step outcomes, the specification's status.
const (
	StatusPass = "pass"
	StatusFail = "fail"
)

// StepResult is how a step or action ended, skillkit's own word beside
// the specification's pass or fail.
type StepResult string

// Step results.
const (
	StepCompleted StepResult = "completed"
	StepSkipped   StepResult = "skipped"
	// StepContinued is a failed step whose On error policy was continue:
	// finished for good.
	StepContinued StepResult = "continued"
	// StepFailed is the step or action that failed the run: a retry runs
	// it again.
	StepFailed StepResult = "failed"
)

// StepRecord is one finished step or action.
type StepRecord struct {
	// Step is its number, 1-based, in the order steps finished: unique,
	// and stable, since a step run again after failing (a retry) keeps
	// the number of its failed record.
	Step int `yaml:"step" json:"step" jsonschema:"required,minimum=0"`
	// Status is pass or fail.
	Status string `yaml:"status" json:"status" jsonschema:"required,enum=pass,enum=fail"`
	// EvidenceCaptured is true when the step's output was kept in its log
	// under logs/.
	EvidenceCaptured bool      `yaml:"evidenceCaptured" json:"evidenceCaptured" jsonschema:"required"`
	Timestamp        time.Time `yaml:"timestamp" json:"timestamp" jsonschema:"required"`
	// ID is the step's id (<phase>#<n>) or the action's.
	ID    string `yaml:"id" json:"id"`
	Title string `yaml:"title,omitempty" json:"title,omitempty"`
	// Skipped is set on a pass whose condition or confirmation skipped
	// the step.
	Skipped bool       `yaml:"skipped,omitempty" json:"skipped,omitempty"`
	Result  StepResult `yaml:"result" json:"result"`
	// Fingerprint is the step's text's when it ran: a retry names the
	// completed steps that changed since.
	Fingerprint string `yaml:"-" json:"fingerprint,omitempty"`
}

// Done reports whether the record ends its step for good: anything but
// the failure that stopped the run.
func (r StepRecord) Done() bool { return r.Result != StepFailed }

// NewStepRecord is the record of a step or action that ended with result.
func NewStepRecord(position int, id, title string, result StepResult, evidence bool, at time.Time) StepRecord {
	status := StatusPass
	if result == StepContinued || result == StepFailed {
		status = StatusFail
	}
	return StepRecord{Step: position, Status: status, EvidenceCaptured: evidence, Timestamp: at.UTC(),
		ID: id, Title: title, Skipped: result == StepSkipped, Result: result}
}

// RunError is why a run failed.
type RunError struct {
	// Step is the position of the step or action that failed, 0 when the
	// run failed outside one (a phase's outputs, a hook).
	Step        int         `yaml:"step" json:"step" jsonschema:"required,minimum=0"`
	Message     string      `yaml:"message" json:"message" jsonschema:"required"`
	Diagnostics Diagnostics `yaml:"diagnostics" json:"diagnostics"`
	// ID names what failed: a step, an action or a phase.
	ID string `yaml:"id,omitempty" json:"id,omitempty"`
}

// Diagnostics are what was captured of a failure: the last lines of the
// step's console (JS), stderr and stdout, the files involved (an output
// that failed its check), and a screenshot where a step took one.
type Diagnostics struct {
	Console    []string `yaml:"console" json:"console"`
	Stderr     string   `yaml:"stderr" json:"stderr"`
	Stdout     string   `yaml:"stdout" json:"stdout"`
	Files      []string `yaml:"files" json:"files"`
	Screenshot string   `yaml:"screenshot,omitempty" json:"screenshot,omitempty"`
}

// Lines are the diagnostics for a person, a line each, named by stream.
func (d Diagnostics) Lines() []string {
	var out []string
	add := func(name, text string) {
		for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
			if strings.TrimSpace(l) != "" {
				out = append(out, name+": "+l)
			}
		}
	}
	add("stderr", d.Stderr)
	add("stdout", d.Stdout)
	for _, c := range d.Console {
		add("console", c)
	}
	for _, f := range d.Files {
		add("file", f)
	}
	return out
}

// Loop is where the autonomous loop of a run stands (autonomous and hybrid
// skills): what `skillkit status` shows of it. state.json holds the same
// facts for the skill (current_action, completed_actions, error_count).
type Loop struct {
	// Iteration counts the actions the loop started, across resumes; the
	// run fails when it passes MaxIterations.
	Iteration     int `yaml:"iteration" json:"iteration"`
	MaxIterations int `yaml:"maxIterations" json:"maxIterations"`
	// CurrentAction is the action running, empty once the loop ended.
	CurrentAction string `yaml:"currentAction,omitempty" json:"currentAction,omitempty"`
	// LastAction is the last action that completed.
	LastAction string `yaml:"lastAction,omitempty" json:"lastAction,omitempty"`
	// Completed counts the completed actions (state.completed_actions).
	Completed  int `yaml:"completed" json:"completed"`
	ErrorCount int `yaml:"errorCount" json:"errorCount"`
}

// Moves is the loop's record after e when e carries none: an action's
// first loading (from idle) starts an iteration with it current, and its
// completion straight from loading counts it done and last. ok is false
// for any other event, which leaves the record as it is. A writer leaves
// out the record that Moves gives: a loop's two lines per iteration
// carried it whole, and it was a fifth of what they wrote. Logs written
// before carry it on those lines, and complete an action from post_hook.
func (l Loop) Moves(e *Event) (Loop, bool) {
	if e.Level() != LevelAction {
		return l, false
	}
	switch {
	case e.From == Idle && e.To == "loading":
		l.Iteration++
		l.CurrentAction = e.Action
	case e.From == "loading" && e.To == "completed":
		l.Completed++
		l.LastAction = e.Action
	default:
		return l, false
	}
	return l, true
}

// StepDone reports whether the step has a record in completedSteps.
func (p Progress) StepDone(step string) bool {
	return p.CompletedSteps.has(step)
}

// StepsDone counts the steps and actions that ended for good.
func (p Progress) StepsDone() int {
	n := 0
	for i := range p.CompletedSteps.Len() {
		if p.CompletedSteps.done(i) {
			n++
		}
	}
	return n
}

// PhaseDone reports whether the phase is in completedPhases.
func (p Progress) PhaseDone(phase string) bool {
	return slices.Contains(p.CompletedPhases, phase)
}

// Apply folds one event into the progress. It is the only way progress
// changes, live and when a record is read back, so that what a resume
// rebuilds is what the run had.
func (p *Progress) Apply(e *Event) {
	if s := e.Start; s != nil {
		*p = Progress{
			SkillVersion: ProgressVersion, StartedAt: s.StartedAt, CurrentPhase: PhaseInit, TotalSteps: s.TotalSteps,
			ChecklistStatus: map[string]string{"pre-run": ChecklistPending, "evidence": ChecklistPending},
			RunState:        RunPending, SkillHash: s.SkillHash, RunID: s.RunID, Skill: s.Skill, SkillRelease: s.SkillVersion,
			SkillDir: s.SkillDir, Mode: s.Mode, Inputs: maps.Clone(s.Inputs), Phases: s.Phases,
			Args: slices.Clone(s.Args), SessionID: s.SessionID, CompletedPhases: []string{},
		}
	}
	if len(e.Inputs) > 0 {
		if p.Inputs == nil {
			p.Inputs = map[string]string{}
		}
		maps.Copy(p.Inputs, e.Inputs)
	}
	if e.Loop != nil {
		l := *e.Loop
		p.Loop = &l
	} else if p.Loop != nil {
		if l, ok := p.Loop.Moves(e); ok {
			p.Loop = &l
		}
	}
	if e.Scope != nil {
		p.Scope, p.ScopePhase = e.Scope, e.Phase
	}
	if e.Agent != nil {
		c := *e.Agent
		p.Agent = &c
	}
	if e.Position > 0 {
		p.CurrentStep = p.number(e.Step + e.Action)
	}
	if r := e.Record; r != nil {
		p.record(*r)
		p.loading = ""
		p.LastAction = r.ID + " " + r.Title + ": " + string(r.Result)
	}
	switch e.Level() {
	case LevelStep:
	case LevelPhase:
		p.applyUnit(e.Phase, e)
		if e.To == "completed" {
			p.CompletedPhases = append(p.CompletedPhases, e.Phase)
			p.LastAction = "phase " + e.Phase + ": completed"
			if len(p.CompletedPhases) >= p.Phases {
				p.CurrentPhase, p.ChecklistStatus["evidence"] = PhaseSuccess, ChecklistCompleted
			}
		}
	case LevelAction:
		p.applyUnit(p.Phase, e)
		if e.To == "loading" && e.Action != p.loading && p.number(e.Action) > p.CompletedSteps.Len() {
			// A loop's steps are the actions it started. An action loaded
			// again before it finished (a retry within it, a resume after
			// an interruption) or run again after failing is the step it
			// was.
			p.TotalSteps++
		}
		if e.To == "loading" {
			p.loading = e.Action
		}
	default:
		if !isRunState(string(e.To)) {
			break
		}
		if p.RunState.Terminal() && !RunState(e.To).Terminal() {
			// Retried: it has not finished after all.
			p.CompletedAt, p.Error, p.CurrentPhase = nil, nil, PhaseExecute
		}
		p.RunState = RunState(e.To)
		switch {
		case p.RunState == RunRunning:
			p.ChecklistStatus["pre-run"] = ChecklistCompleted
		case p.RunState.Terminal():
			t := e.Time.UTC()
			p.CompletedAt = &t
			p.CurrentPhase = PhaseCompleted
			if p.RunState == RunCompleted {
				p.ChecklistStatus["evidence"] = ChecklistCompleted
			}
			if p.LastAction == "" || e.Error == nil {
				p.LastAction = "run " + string(p.RunState)
			}
		}
		if e.Error != nil {
			re := *e.Error
			if re.Step > 0 {
				re.Step = p.number(re.ID)
			}
			p.Error = &re
			p.LastAction = "run " + string(p.RunState) + ": " + re.Message
		}
	}
}

// number is the number the step or action id has or will have in
// completedSteps: its failed record's when it runs again after failing,
// else the next.
func (p *Progress) number(id string) int {
	if p.failed == 0 {
		return p.CompletedSteps.Len() + 1
	}
	if i := p.CompletedSteps.failed(id); i >= 0 {
		return i + 1
	}
	return p.CompletedSteps.Len() + 1
}

// record files a finished step under its number: in place of its failed
// record when it ran again after failing, so that numbers stay unique and
// stable (shared/seeds/002), else at the end.
func (p *Progress) record(r StepRecord) {
	n := p.number(r.ID)
	if !r.Done() {
		p.failed++
	}
	if n <= p.CompletedSteps.Len() {
		if !p.CompletedSteps.done(n - 1) {
			p.failed--
		}
		p.CompletedSteps.set(n-1, r)
		return
	}
	p.CompletedSteps.add(r)
}

// applyUnit follows a phase's (or action's, within phase) lifecycle in
// currentPhase: the phase's id while it runs, error while its on-error
// hooks run.
func (p *Progress) applyUnit(phase string, e *Event) {
	switch e.To {
	case "loading":
		p.CurrentPhase = PhaseExecute
		if e.Phase != "" {
			p.Phase = phase
			p.ChecklistStatus["evidence"] = ChecklistInProgress
		}
	case "error":
		p.CurrentPhase = PhaseError
		p.LastAction = fmt.Sprintf("%s%s: error: %s", e.Phase, e.Action, e.Detail)
	case "retrying", "executing":
		if p.CurrentPhase == PhaseError {
			p.CurrentPhase = PhaseExecute
		}
	case "failed":
		p.LastAction = fmt.Sprintf("%s%s: failed: %s", e.Phase, e.Action, e.Detail)
	}
}

// Clone copies the slices and maps so a caller may keep the copy while the
// run changes. completedSteps is shared, not copied (Steps): a long
// loop's is megabytes as records.
func (p Progress) Clone() Progress {
	p.CompletedSteps = p.CompletedSteps.clone()
	p.CompletedPhases = slices.Clone(p.CompletedPhases)
	p.ChecklistStatus = maps.Clone(p.ChecklistStatus)
	p.Inputs = maps.Clone(p.Inputs)
	p.Args = slices.Clone(p.Args)
	if p.Agent != nil {
		c := *p.Agent
		p.Agent = &c
	}
	if p.Loop != nil {
		l := *p.Loop
		p.Loop = &l
	}
	if p.Error != nil {
		e := *p.Error
		e.Diagnostics.Console = slices.Clone(e.Diagnostics.Console)
		e.Diagnostics.Files = slices.Clone(e.Diagnostics.Files)
		p.Error = &e
	}
	if p.CompletedAt != nil {
		t := *p.CompletedAt
		p.CompletedAt = &t
	}
	return p
}

// WriteState writes state.json's content to w: the state indented, and a
// newline. An Encoder writes from its own buffers, where MarshalIndent
// and the newline appended made three copies of a long loop's state
// (hundreds of kilobytes) at each snapshot.
func WriteState(w io.Writer, state map[string]any) error {
	if state == nil {
		state = map[string]any{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(state); err != nil {
		return fmt.Errorf("encoding state: %w", err)
	}
	return nil
}
