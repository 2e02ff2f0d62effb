package orchestrator

import (
	"fmt"
	"slices"
	"strings"

	"github.com/skillkit/skillkit/internal/runstore"
	"github.com/skillkit/skillkit/internal/stateschema"
	"github.com/skillkit/skillkit/plan"
)

// stateSchema validates the state against the skill's state schema.
type stateSchema struct {
	file   string
	schema *stateschema.Schema
}

// compileSchema compiles the skill's state schema; nil when the skill has
// none, and then any state is valid (DESIGN §1.4).
func compileSchema(s *plan.StateSchema) (*stateSchema, error) {
	if s == nil || s.Schema == nil {
		return nil, nil
	}
	sch, err := stateschema.Compile(s.File, s.Schema)
	if err != nil {
		return nil, fmt.Errorf("%s: compiling the state schema: %w", s.File, err)
	}
	return &stateSchema{file: s.File, schema: sch}, nil
}

// SchemaError is a state update the state schema refused.
type SchemaError struct {
	// File is the state schema's file.
	File string
	// Violations are "field: what is wrong [rule]", one per broken rule.
	Violations []string
}

func (e *SchemaError) Error() string {
	return fmt.Sprintf("the state update breaks the state schema (%s): %s; state.json keeps its last valid content",
		e.File, strings.Join(e.Violations, "; "))
}

// check validates the state an action's updates made from the state
// before. It blames the update only for what it touched: violations at
// the root (a missing or extra field) or under a field it set. A field
// that broke the schema before (one the skill's schema types differently
// from the runtime's bookkeeping, say) does not stop every action after
// it. Only the touched fields are validated, and of a list the update
// appended to only the items it added, unless the update added or
// removed a field (the root's rules then decide) or the schema ties its
// fields together (stateschema.ValidateChanged).
func (s *stateSchema) check(before, state map[string]any, updates map[string]any) error {
	if s == nil {
		return nil
	}
	touched := make([]string, 0, len(updates)+len(bookkeeping))
	for k := range updates {
		top, _, _ := strings.Cut(k, ".")
		touched = append(touched, top)
	}
	changed := stateschema.Changed{}
	whole := len(before) != len(state)
	for _, k := range append(touched, bookkeeping...) {
		_, was := before[k]
		_, is := state[k]
		whole = whole || was != is
	}
	for _, k := range touched {
		changed[k] = runstore.Appended(before[k], state[k])
	}
	var violations []stateschema.Violation
	var err error
	if whole {
		violations, err = s.schema.Validate(state)
	} else {
		violations, err = s.schema.ValidateChanged(state, changed)
	}
	if err != nil {
		return fmt.Errorf("validating the state against %s: %w", s.file, err)
	}
	var out []string
	for _, v := range violations {
		top, _, _ := strings.Cut(v.Field, ".")
		if v.Field != "" && !slices.Contains(touched, top) {
			continue
		}
		out = append(out, v.String())
	}
	if len(out) == 0 {
		return nil
	}
	return &SchemaError{File: s.file, Violations: slices.Compact(out)}
}
