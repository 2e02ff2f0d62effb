package run

import (
	"strings"
	"time"

	"github.com/skillkit/skillkit/plan"
)

// initialState is the state.json a new run starts with: the skill's
// Initial State block with its placeholders filled, and the base state
// fields (DESIGN §1.4) it lacks.
func initialState(s *plan.Skill, now time.Time) map[string]any {
	stamp := now.UTC().Format(time.RFC3339)
	fill := strings.NewReplacer("{skill-name}", s.Name, "{skill_name}", s.Name, "{ISO8601}", stamp)
	state := map[string]any{}
	if s.StateSchema != nil && s.StateSchema.Initial != nil {
		state = fillPlaceholders(s.StateSchema.Initial, fill).(map[string]any)
	}
	base := map[string]any{
		"status": "running", "started_at": stamp, "updated_at": stamp,
		"current_action": nil, "completed_actions": []any{}, "errors": []any{}, "error_count": 0,
	}
	for k, v := range base {
		if _, ok := state[k]; !ok {
			state[k] = v
		}
	}
	// A run under way is running whatever the template says, except
	// that a skill with actions keeps a pending status: its first action's
	// preconditions (status === 'pending') and its selectNextAction expect
	// it, and its init action moves it on.
	if len(s.Actions) == 0 || state["status"] != "pending" {
		state["status"] = "running"
	}
	return state
}

// fillPlaceholders copies v with the placeholders in its strings replaced.
func fillPlaceholders(v any, r *strings.Replacer) any {
	switch v := v.(type) {
	case string:
		return r.Replace(v)
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = fillPlaceholders(x, r)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = fillPlaceholders(x, r)
		}
		return out
	}
	return v
}
