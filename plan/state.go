package plan

// BaseState is the part of state.json that the runtime maintains for every
// skill (DESIGN §1.4): skills add their own fields beside these. It is the
// source of `skillkit schema state`.
type BaseState struct {
	Status           string       `json:"status" jsonschema:"enum=pending,enum=running,enum=completed,enum=failed"`
	StartedAt        string       `json:"started_at" jsonschema:"format=date-time"`
	UpdatedAt        string       `json:"updated_at" jsonschema:"format=date-time"`
	CurrentAction    *string      `json:"current_action" jsonschema:"nullable"`
	CompletedActions []string     `json:"completed_actions"`
	Errors           []StateError `json:"errors"`
	ErrorCount       int          `json:"error_count" jsonschema:"minimum=0"`
	// Context, PendingItems and Results are owned by the skill; the
	// scaffolds use them by convention.
	Context      any   `json:"context,omitempty"`
	PendingItems []any `json:"pending_items,omitempty"`
	Results      any   `json:"results,omitempty"`
}

// StateError is one entry of state.errors: a failed attempt of an action.
type StateError struct {
	Action    string `json:"action"`
	Message   string `json:"message"`
	Timestamp string `json:"timestamp" jsonschema:"format=date-time"`
}
