package store

import "slices"

// Loop is where the autonomous loop of a run stands (autonomous and hybrid
// skills): what `skillkit status` shows of it. state.json holds the same
// facts for the skill (current_action, completed_actions, error_count);
// this copy is the runner's, written before and after every action.
type Loop struct {
	// Iteration counts the actions the loop started, across resumes; the
	// run fails when it passes MaxIterations.
	Iteration     int `yaml:"iteration" json:"iteration"`
	MaxIterations int `yaml:"maxIterations" json:"maxIterations"`
	// CurrentAction is the action running, empty between actions.
	CurrentAction    string   `yaml:"currentAction,omitempty" json:"currentAction,omitempty"`
	CompletedActions []string `yaml:"completedActions" json:"completedActions"`
	ErrorCount       int      `yaml:"errorCount" json:"errorCount"`
}

func (l *Loop) clone() *Loop {
	if l == nil {
		return nil
	}
	c := *l
	c.CompletedActions = slices.Clone(l.CompletedActions)
	return &c
}
