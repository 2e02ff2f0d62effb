package runstore

import (
	"maps"
	"slices"
	"time"
)

// Run states (DESIGN §3.1). Completed, failed and aborted are terminal: a
// run in one of them is never resumed or claimed again. Interrupted is not
// in the lifecycle of the design: it marks a run that stopped on purpose
// (Ctrl-C, agent work without an agent) and may be resumed.
const (
	RunPending     = "pending"
	RunValidating  = "validating"
	RunReady       = "ready"
	RunRunning     = "running"
	RunInterrupted = "interrupted"
	RunCompleted   = "completed"
	RunFailed      = "failed"
	RunAborted     = "aborted"
)

// Terminal reports whether a run state is final.
func Terminal(runState string) bool {
	switch runState {
	case RunCompleted, RunFailed, RunAborted:
		return true
	}
	return false
}

// Progress is skill-state.yaml: where a run stands. The first block of
// fields has exactly the names DESIGN §3.2 gives; the rest are what a
// resume and `skillkit status` need.
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

	RunState  string `yaml:"runState" json:"runState"`
	SkillHash string `yaml:"skillHash" json:"skillHash"`
	RunID     string `yaml:"runId" json:"runId"`
	Skill     string `yaml:"skill" json:"skill"`
	// SkillDir is the skill folder the run was started from, absolute.
	SkillDir string `yaml:"skillDir" json:"skillDir"`
	Mode     string `yaml:"mode" json:"mode"`
	// Inputs are the --input values; a resume reuses them.
	Inputs map[string]string `yaml:"inputs,omitempty" json:"inputs,omitempty"`
	// CompletedPhases are the phases (or actions) whose outputs were
	// verified and hooks run: a resume skips them whole.
	CompletedPhases []string `yaml:"completedPhases" json:"completedPhases"`
	// Loop is the autonomous loop's position; nil until a loop starts.
	Loop *Loop `yaml:"loop,omitempty" json:"loop,omitempty"`
}

// Step outcomes recorded in completedSteps.
const (
	StepCompleted = "completed"
	StepSkipped   = "skipped"
	// StepFailed is a failed step whose On error policy was continue.
	StepFailed = "failed"
)

// StepRecord is one finished step. A step appears here once it has
// finished for good; a resume never runs it again.
type StepRecord struct {
	Step   string `yaml:"step" json:"step"`
	Status string `yaml:"status" json:"status"`
	// EvidenceCaptured is true when the step's output was kept in its log
	// under logs/.
	EvidenceCaptured bool      `yaml:"evidenceCaptured" json:"evidenceCaptured"`
	Timestamp        time.Time `yaml:"timestamp" json:"timestamp"`
}

// RunError is why a run failed.
type RunError struct {
	Step    string `yaml:"step" json:"step"`
	Message string `yaml:"message" json:"message"`
	// Diagnostics are the last lines of the step's stderr and log.
	Diagnostics []string `yaml:"diagnostics,omitempty" json:"diagnostics,omitempty"`
}

// StepDone reports whether the step has a record in completedSteps.
func (p Progress) StepDone(step string) bool {
	return slices.ContainsFunc(p.CompletedSteps, func(s StepRecord) bool { return s.Step == step })
}

// PhaseDone reports whether the phase (or action) is in completedPhases.
func (p Progress) PhaseDone(phase string) bool {
	return slices.Contains(p.CompletedPhases, phase)
}

// clone copies the slices and maps so a caller may keep the copy while the
// run changes.
func (p Progress) clone() Progress {
	p.CompletedSteps = slices.Clone(p.CompletedSteps)
	p.CompletedPhases = slices.Clone(p.CompletedPhases)
	p.Inputs = maps.Clone(p.Inputs)
	p.Loop = p.Loop.clone()
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
