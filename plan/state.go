package plan

import (
	"encoding/json"
	"reflect"
	"strings"
	"time"
)

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

// BaseField is one field of the base state: its name in state.json and
// its JSON type.
type BaseField struct {
	Name string
	Type string
}

// BaseFields are the fields the runtime maintains in every state, read
// from BaseState's json tags so that the struct stays their one
// definition: lint lets code use them whether or not a schema declares
// them, the runtime fills them into a new run's state, and `skillkit
// schema state` documents them. The skill-owned fields (omitempty) are
// not among them.
var BaseFields = baseFields()

func baseFields() []BaseField {
	t := reflect.TypeFor[BaseState]()
	var out []BaseField
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if strings.Contains(opts, "omitempty") {
			continue
		}
		out = append(out, BaseField{Name: name, Type: jsonType(f.Type)})
	}
	return out
}

// jsonType names the JSON type a Go field encodes to.
func jsonType(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Pointer:
		return jsonType(t.Elem()) + "|null"
	case reflect.String:
		return "string"
	case reflect.Int, reflect.Int64:
		return "integer"
	case reflect.Slice:
		return "array"
	}
	return "object"
}

// IsBaseField reports whether a top-level state field is one the runtime
// maintains.
func IsBaseField(name string) bool {
	for _, f := range BaseFields {
		if f.Name == name {
			return true
		}
	}
	return false
}

// FillPlaceholders copies an Initial State value with the placeholders
// {skill-name}, {skill_name} and {ISO8601} filled in (DESIGN §1.4). Lint
// checks the initial state a run would start with, so both fill through
// here.
func FillPlaceholders(v any, skillName string, now time.Time) any {
	r := strings.NewReplacer("{skill-name}", skillName, "{skill_name}", skillName, "{ISO8601}", now.UTC().Format(time.RFC3339))
	return fill(v, r)
}

func fill(v any, r *strings.Replacer) any {
	switch v := v.(type) {
	case string:
		return r.Replace(v)
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = fill(x, r)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = fill(x, r)
		}
		return out
	}
	return v
}

// InitialState is the state.json a new run of the skill starts with: its
// Initial State block with the placeholders filled, and the base fields
// it lacks at their starting values. A run under way is running whatever
// the template says, except that a skill with actions keeps a pending
// status: its first action's preconditions (status === 'pending') and its
// selectNextAction expect it, and its init action moves it on.
func (s *Skill) InitialState(now time.Time) map[string]any {
	stamp := now.UTC().Format(time.RFC3339)
	state := map[string]any{}
	if s.StateSchema != nil && s.StateSchema.Initial != nil {
		state = FillPlaceholders(s.StateSchema.Initial, s.Name, now).(map[string]any)
	}
	base := baseValues(BaseState{
		Status: "running", StartedAt: stamp, UpdatedAt: stamp,
		CompletedActions: []string{}, Errors: []StateError{},
	})
	for _, f := range BaseFields {
		if _, ok := state[f.Name]; !ok {
			state[f.Name] = base[f.Name]
		}
	}
	if len(s.Actions) == 0 || state["status"] != "pending" {
		state["status"] = "running"
	}
	return state
}

// baseValues is a BaseState as the JSON values a state map holds, so that
// a new run's base fields come from the same struct as their names.
func baseValues(b BaseState) map[string]any {
	data, err := json.Marshal(b)
	if err != nil {
		panic(err) // BaseState has only encodable fields
	}
	var out map[string]any
	if err := json.Unmarshal(data, &out); err != nil {
		panic(err)
	}
	return out
}
