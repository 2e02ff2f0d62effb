package stateschema

import (
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// Changed is what an update changed at a state's top level: by field,
// Appended is the number of items the field's array had before an update
// that only appended to it, -1 when the field's value changed otherwise.
type Changed map[string]int

// fields are the field schemas of a state schema, compiled once each, the
// first time an update touches the field.
type fields struct {
	mu sync.Mutex
	c  *jsonschema.Compiler
	// url is the schema's resource; by pointer, the compiled subschema
	// (nil where the field cannot be checked apart).
	url      string
	compiled map[string]*jsonschema.Schema
}

// rootKeys are the keywords a state schema's root may have for a field to
// be checked apart from the others: with them, a state whose set of fields
// did not change keeps the verdict of every field it did not touch.
var rootKeys = map[string]bool{
	"$schema": true, "$id": true, "$defs": true, "definitions": true, "$comment": true,
	"title": true, "description": true, "type": true, "properties": true, "required": true,
	"additionalProperties": true,
}

// listKeys are the keywords of an array's schema under which items
// appended are checked without the ones before them.
var listKeys = map[string]bool{"type": true, "items": true, "title": true, "description": true, "$comment": true}

// plainName is a field name that needs no escaping in a JSON pointer or a
// URL fragment.
var plainName = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// ValidateChanged checks the state after an update that changed what ch
// says and left the set of fields as it was: only the fields it touched,
// and of a list that grew at its end only the items it gained, against
// the schema compiled once per field. The violations are those Validate
// finds in the touched fields. A schema whose root or field does not allow
// checking apart is checked whole, as Validate does.
func (s *Schema) ValidateChanged(state map[string]any, ch Changed) ([]Violation, error) {
	var out []Violation
	for name, from := range ch {
		sub, items := s.field(name, from >= 0)
		if sub == nil {
			return s.Validate(state)
		}
		if !items {
			vs, err := validateAt(sub, state[name], name)
			if err != nil {
				return nil, err
			}
			out = append(out, vs...)
			continue
		}
		list, _ := state[name].([]any)
		for i := from; i < len(list); i++ {
			vs, err := validateAt(sub, list[i], name+"."+strconv.Itoa(i))
			if err != nil {
				return nil, err
			}
			out = append(out, vs...)
		}
	}
	out = sortViolations(out)
	return out, nil
}

// field is the compiled schema of field name, or with appended of its
// items (items reports which), nil when it cannot be checked apart.
func (s *Schema) field(name string, appended bool) (sub *jsonschema.Schema, items bool) {
	f := s.fields
	if f == nil || !plainName.MatchString(name) {
		return nil, false
	}
	props, _ := s.Root["properties"].(map[string]any)
	prop, ok := props[name].(map[string]any)
	if !ok {
		return nil, false
	}
	ptr := "/properties/" + name
	if appended && prop["type"] == "array" && onlyKeys(prop, listKeys) {
		if _, ok := prop["items"].(map[string]any); ok {
			ptr, items = ptr+"/items", true
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if c, done := f.compiled[ptr]; done {
		return c, items
	}
	c, err := f.c.Compile(f.url + "#" + ptr)
	if err != nil {
		c = nil
	}
	f.compiled[ptr] = c
	return c, items
}

func onlyKeys(m map[string]any, allowed map[string]bool) bool {
	for k := range m {
		if !allowed[k] {
			return false
		}
	}
	return true
}

// validateAt checks v against sub and names the violations from field at.
func validateAt(sub *jsonschema.Schema, v any, at string) ([]Violation, error) {
	vs, err := violations(sub.Validate(v))
	for i := range vs {
		vs[i].Field = join(at, vs[i].Field)
		// at is a plain name and maybe an index: no dot to escape.
		vs[i].Pointer = "/" + strings.ReplaceAll(at, ".", "/") + vs[i].Pointer
	}
	return vs, err
}

func join(a, b string) string {
	if b == "" {
		return a
	}
	return a + "." + b
}
