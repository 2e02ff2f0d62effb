package orchestrator

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/skillkit/skillkit/plan"
)

// stateSchema validates the state against the skill's state schema.
type stateSchema struct {
	file   string
	schema *jsonschema.Schema
}

// compileSchema compiles the skill's state schema; nil when the skill has
// none, and then any state is valid (DESIGN §1.4).
func compileSchema(s *plan.StateSchema) (*stateSchema, error) {
	if s == nil || s.Schema == nil {
		return nil, nil
	}
	data, err := json.Marshal(s.Schema)
	if err != nil {
		return nil, fmt.Errorf("%s: encoding the state schema: %w", s.File, err)
	}
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	url := "skillkit:///" + s.File
	if err := c.AddResource(url, bytes.NewReader(data)); err != nil {
		return nil, fmt.Errorf("%s: loading the state schema: %w", s.File, err)
	}
	sch, err := c.Compile(url)
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

// check validates the state an action's updates made. It blames the
// update only for what it touched: violations at the root (a missing or
// extra field) or under a field it set. A field that broke the schema
// before (one the skill's schema types differently from the runtime's
// bookkeeping, say) does not stop every action after it.
func (s *stateSchema) check(state map[string]any, updates map[string]any) error {
	if s == nil {
		return nil
	}
	err := s.schema.Validate(state)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return fmt.Errorf("validating the state against %s: %w", s.file, err)
	}
	touched := make([]string, 0, len(updates))
	for k := range updates {
		top, _, _ := strings.Cut(k, ".")
		touched = append(touched, top)
	}
	var out []string
	for _, v := range leaves(ve) {
		field := fieldOf(v.InstanceLocation)
		top, _, _ := strings.Cut(field, ".")
		if field != "" && !slices.Contains(touched, top) {
			continue
		}
		if field == "" {
			field = "(the state)"
		}
		out = append(out, fmt.Sprintf("%s: %s [%s]", field, v.Message, path.Base(v.KeywordLocation)))
	}
	if len(out) == 0 {
		return nil
	}
	slices.Sort(out)
	return &SchemaError{File: s.file, Violations: slices.Compact(out)}
}

// leaves are the innermost errors: the rules actually broken.
func leaves(ve *jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(ve.Causes) == 0 {
		return []*jsonschema.ValidationError{ve}
	}
	var out []*jsonschema.ValidationError
	for _, c := range ve.Causes {
		out = append(out, leaves(c)...)
	}
	return out
}

// fieldOf turns a JSON pointer ("/context/items/0") into the dotted path
// state updates use ("context.items.0").
func fieldOf(pointer string) string {
	parts := strings.Split(strings.TrimPrefix(pointer, "/"), "/")
	for i, p := range parts {
		parts[i] = strings.NewReplacer("~1", "/", "~0", "~").Replace(p)
	}
	return strings.Join(parts, ".")
}
