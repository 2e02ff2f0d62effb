// Package stateschema compiles, validates and walks the JSON Schemas of a
// skill: its state schema (parse/tsschema's output or a JSON schema block)
// and the schemas of declared outputs. Lint, the loop and output checks
// all go through it, so a schema means one thing everywhere: draft
// 2020-12, unless the schema names another draft with $schema.
package stateschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/skillkit/skillkit/internal/skillfs"
)

// Schema is a compiled schema and the JSON value it was compiled from
// (what Walk reads).
type Schema struct {
	Root     map[string]any
	compiled *jsonschema.Schema
	// fields compiles the schemas of the root's fields for
	// ValidateChanged; nil when the root's keywords tie the fields
	// together.
	fields *fields
}

// Compile compiles a schema given as a JSON value. name labels it in
// errors. References that leave the schema are refused: a skill's state
// schema is self-contained, and neither lint nor a run fetches URLs.
func Compile(name string, schema map[string]any) (*Schema, error) {
	data, err := json.Marshal(schema)
	if err != nil {
		return nil, fmt.Errorf("encoding the schema: %w", err)
	}
	c := compiler()
	c.LoadURL = func(u string) (io.ReadCloser, error) {
		return nil, fmt.Errorf("%s is not loaded: references outside the schema are not followed", u)
	}
	url := "skillkit:///" + name
	if err := c.AddResource(url, bytes.NewReader(data)); err != nil {
		return nil, err
	}
	sch, err := c.Compile(url)
	if err != nil {
		return nil, err
	}
	out := &Schema{Root: schema, compiled: sch}
	if onlyKeys(schema, rootKeys) {
		out.fields = &fields{c: c, url: url, compiled: map[string]*jsonschema.Schema{}}
	}
	return out, nil
}

// CompileFile compiles a schema file of the skill folder skillDir, such as
// an output's schema, named by its slash-separated path. Its references
// resolve only to files of the same folder, read through skillfs (no link
// leads out, no special file is read); file:// and network URLs are
// refused (N7).
func CompileFile(skillDir, name string) (*Schema, error) {
	root, err := skillfs.Open(skillDir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	c := compiler()
	c.LoadURL = func(s string) (io.ReadCloser, error) {
		u, err := url.Parse(s)
		if err != nil || u.Scheme != skillScheme || u.Host != "" {
			return nil, fmt.Errorf("%s is not loaded: a schema's references stay in the skill's folder", s)
		}
		data, err := root.ReadFile(strings.TrimPrefix(u.Path, "/"))
		if err != nil {
			return nil, err
		}
		return io.NopCloser(bytes.NewReader(data)), nil
	}
	sch, err := c.Compile(skillScheme + ":///" + strings.TrimPrefix(path.Clean("/"+name), "/"))
	if err != nil {
		return nil, err
	}
	return &Schema{compiled: sch}, nil
}

// skillScheme names the files of a skill's folder in a schema's URLs: a
// relative reference resolves against it and cannot climb above the
// folder, since a URL's path stops at its root.
const skillScheme = "skill"

func compiler() *jsonschema.Compiler {
	c := jsonschema.NewCompiler()
	// The default for a schema without $schema; one that names its
	// draft keeps it.
	c.Draft = jsonschema.Draft2020
	return c
}

// Violation is one rule a value breaks.
type Violation struct {
	// Pointer is where in the value, as a JSON pointer ("/context/items/0",
	// "" for the value itself); Field is the same as the dotted path
	// state updates use ("context.items.0").
	Pointer string
	Field   string
	// Rule is the schema keyword broken (type, enum, required …).
	Rule    string
	Message string
}

// String formats the violation as "field: message [rule]", the value
// itself named "(the state)".
func (v Violation) String() string {
	f := v.Field
	if f == "" {
		f = "(the state)"
	}
	return fmt.Sprintf("%s: %s [%s]", f, v.Message, v.Rule)
}

// Validate checks a JSON value (as encoding/json decodes it) against the
// schema. It returns the rules broken, innermost ones only (the outer
// "doesn't validate with" wrappers say nothing more), sorted, nil when
// the value satisfies the schema; err is for a value that cannot be
// checked at all.
func (s *Schema) Validate(v any) ([]Violation, error) {
	out, err := violations(s.compiled.Validate(v))
	out = sortViolations(out)
	return out, err
}

// violations are the innermost rules err (a validation's result) says
// were broken, unsorted.
func violations(err error) ([]Violation, error) {
	if err == nil {
		return nil, nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return nil, err
	}
	var out []Violation
	for _, l := range leaves(ve) {
		out = append(out, Violation{
			Pointer: l.InstanceLocation, Field: fieldOf(l.InstanceLocation),
			Rule: path.Base(l.KeywordLocation), Message: l.Message,
		})
	}
	return out, nil
}

// sortViolations sorts vs and drops repeats, in place.
func sortViolations(vs []Violation) []Violation {
	slices.SortFunc(vs, func(a, b Violation) int { return strings.Compare(a.String(), b.String()) })
	return slices.Compact(vs)
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

// fieldOf turns a JSON pointer into a dotted path.
func fieldOf(pointer string) string {
	if pointer == "" {
		return ""
	}
	parts := strings.Split(strings.TrimPrefix(pointer, "/"), "/")
	for i, p := range parts {
		parts[i] = strings.NewReplacer("~1", "/", "~0", "~").Replace(p)
	}
	return strings.Join(parts, ".")
}
