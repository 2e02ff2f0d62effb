package runstore

// Loop is where the autonomous loop of a run stands (autonomous and hybrid
// skills): what `skillkit status` shows of it. state.json holds the same
// facts for the skill (current_action, completed_actions, error_count);
// this copy is the runner's, written before every action and when the
// loop ends (so it may lag one action behind state.json in between).
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

func (l *Loop) clone() *Loop {
	if l == nil {
		return nil
	}
	c := *l
	return &c
}
