package runstore

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
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
	// SkillVersion and TotalSteps are the progress file's.
	SkillVersion string            `json:"skillVersion,omitempty"`
	TotalSteps   int               `json:"totalSteps"`
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

// Progress is skill-state.yaml: where a run stands. The first block of
// fields has exactly the names DESIGN §3.2 gives; the rest are what a
// resume and `skillkit status` need. It is derived from the run's events
// by Apply, never written on its own.
type Progress struct {
	SkillVersion   string       `yaml:"skillVersion" json:"skillVersion"`
	StartedAt      time.Time    `yaml:"startedAt" json:"startedAt"`
	CurrentPhase   string       `yaml:"currentPhase" json:"currentPhase"`
	CurrentStep    string       `yaml:"currentStep" json:"currentStep"`
	TotalSteps     int          `yaml:"totalSteps" json:"totalSteps"`
	CompletedSteps []StepRecord `yaml:"completedSteps" json:"completedSteps"`
	LastAction     string       `yaml:"lastAction" json:"lastAction"`
	Error          *RunError    `yaml:"error" json:"error" jsonschema:"nullable"`
	CompletedAt    *time.Time   `yaml:"completedAt" json:"completedAt" jsonschema:"nullable"`

	RunState  RunState `yaml:"runState" json:"runState"`
	SkillHash string   `yaml:"skillHash" json:"skillHash"`
	RunID     string   `yaml:"runId" json:"runId"`
	Skill     string   `yaml:"skill" json:"skill"`
	// SkillDir is the skill folder the run was started from, absolute.
	SkillDir string `yaml:"skillDir" json:"skillDir"`
	Mode     string `yaml:"mode" json:"mode"`
	// Inputs are the --input values; a resume reuses them.
	Inputs map[string]string `yaml:"inputs,omitempty" json:"inputs,omitempty"`
	// Args are the skill's arguments; a resume reuses them.
	Args []string `yaml:"args,omitempty" json:"args,omitempty"`
	// SessionID names the run's conversation with the agent.
	SessionID string `yaml:"sessionId,omitempty" json:"sessionId,omitempty"`
	// Agent is where the conversation with the agent stands; nil until
	// the first agent call.
	Agent *Conversation `yaml:"agent,omitempty" json:"agent,omitempty"`
	// CompletedPhases are the phases whose outputs were verified and hooks
	// run: a resume skips them whole.
	CompletedPhases []string `yaml:"completedPhases" json:"completedPhases"`
	// Loop is the autonomous loop's position; nil until a loop starts.
	Loop *Loop `yaml:"loop,omitempty" json:"loop,omitempty"`
	// Scope is the JS scope of phase ScopePhase as last recorded (Event
	// Scope); not part of the progress file.
	Scope      map[string]any `yaml:"-" json:"-"`
	ScopePhase string         `yaml:"-" json:"-"`
}

// StepStatus is how a step finished.
type StepStatus string

// Step outcomes recorded in completedSteps.
const (
	StepCompleted StepStatus = "completed"
	StepSkipped   StepStatus = "skipped"
	// StepFailed is a failed step whose On error policy was continue.
	StepFailed StepStatus = "failed"
)

// StepRecord is one finished step. A step appears here once it has
// finished for good; a resume never runs it again.
type StepRecord struct {
	Step   string     `yaml:"step" json:"step"`
	Status StepStatus `yaml:"status" json:"status"`
	// EvidenceCaptured is true when the step's output was kept in its log
	// under logs/.
	EvidenceCaptured bool      `yaml:"evidenceCaptured" json:"evidenceCaptured"`
	Timestamp        time.Time `yaml:"timestamp" json:"timestamp"`
	// Title is the step's heading, for lastAction.
	Title string `yaml:"title,omitempty" json:"title,omitempty"`
	// Fingerprint is the step's text's when it ran: a retry names the
	// completed steps that changed since.
	Fingerprint string `yaml:"-" json:"fingerprint,omitempty"`
}

// RunError is why a run failed.
type RunError struct {
	Step    string `yaml:"step" json:"step"`
	Message string `yaml:"message" json:"message"`
	// Diagnostics are the last lines of the step's stderr and log.
	Diagnostics []string `yaml:"diagnostics,omitempty" json:"diagnostics,omitempty"`
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

// StepDone reports whether the step has a record in completedSteps.
func (p Progress) StepDone(step string) bool {
	return slices.ContainsFunc(p.CompletedSteps, func(s StepRecord) bool { return s.Step == step })
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
			SkillVersion: s.SkillVersion, StartedAt: s.StartedAt, TotalSteps: s.TotalSteps,
			RunState: RunPending, SkillHash: s.SkillHash, RunID: s.RunID, Skill: s.Skill,
			SkillDir: s.SkillDir, Mode: s.Mode, Inputs: maps.Clone(s.Inputs),
			Args: slices.Clone(s.Args), SessionID: s.SessionID,
			CompletedSteps: []StepRecord{}, CompletedPhases: []string{},
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
	}
	if e.Scope != nil {
		p.Scope, p.ScopePhase = e.Scope, e.Phase
	}
	if e.Agent != nil {
		c := *e.Agent
		p.Agent = &c
	}
	switch {
	case e.Step != "":
		if e.From == "" {
			p.CurrentPhase, p.CurrentStep = e.Phase, e.Step
		}
		if r := e.Record; r != nil {
			p.CompletedSteps = append(p.CompletedSteps, *r)
			p.LastAction = fmt.Sprintf("step %s %s: %s", r.Step, r.Title, r.Status)
		}
	case e.Phase != "":
		if e.To == "completed" {
			p.CompletedPhases = append(p.CompletedPhases, e.Phase)
			p.LastAction = "phase " + e.Phase + ": completed"
		}
	case e.Action != "":
		if e.To == "completed" {
			p.LastAction = "action " + e.Action + ": completed"
		}
	case isRunState(e.To):
		if p.RunState.Terminal() && !RunState(e.To).Terminal() {
			// Retried: it has not finished after all.
			p.CompletedAt, p.Error = nil, nil
		}
		p.RunState = RunState(e.To)
		if p.RunState.Terminal() {
			t := e.Time.UTC()
			p.CompletedAt = &t
			p.CurrentStep = ""
		}
		if e.Error != nil {
			re := *e.Error
			p.Error = &re
		}
	}
}

// Clone copies the slices and maps so a caller may keep the copy while the
// run changes.
func (p Progress) Clone() Progress {
	p.CompletedSteps = slices.Clone(p.CompletedSteps)
	p.CompletedPhases = slices.Clone(p.CompletedPhases)
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
		e.Diagnostics = slices.Clone(e.Diagnostics)
		p.Error = &e
	}
	if p.CompletedAt != nil {
		t := *p.CompletedAt
		p.CompletedAt = &t
	}
	return p
}

// EncodeState is state.json's content.
func EncodeState(state map[string]any) ([]byte, error) {
	if state == nil {
		state = map[string]any{}
	}
	data, err := json.MarshalIndent(state, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encoding state: %w", err)
	}
	return append(data, '\n'), nil
}
