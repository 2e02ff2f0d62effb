package stateschema

import (
	"strings"

	"github.com/skillkit/skillkit/plan"
)

// Nav walks a state schema by field names: which field a state path
// names, and that field's schema. Lint checks code's reads, writes and
// literal values with it.
type Nav struct {
	Root map[string]any
	// Closed is set for schemas converted from TypeScript: an interface
	// lists every field it has, so an undeclared one is a mistake. A JSON
	// Schema is closed only where it says additionalProperties: false.
	Closed bool
}

// Lookup walks fields from the root. It returns the index of the first
// field the schema rules out, or -1; sub is the schema of the last field
// when the walk reached it with a definite schema, else nil.
func (n *Nav) Lookup(fields []string) (bad int, sub map[string]any) {
	s := n.Root
	for i, f := range fields {
		s = n.Resolve(s)
		if len(s) == 0 {
			return -1, nil
		}
		if !IsObject(s) {
			// state.items.length, state.name.trim: members of a value.
			return -1, nil
		}
		props, _ := s["properties"].(map[string]any)
		if ps, ok := props[f].(map[string]any); ok {
			s = ps
			continue
		}
		if i == 0 && plan.IsBaseField(f) {
			// The runtime maintains the base fields in every state.
			return -1, nil
		}
		switch ap := s["additionalProperties"].(type) {
		case map[string]any:
			s = ap
			continue
		case bool:
			if ap {
				return -1, nil
			}
			return i, nil
		}
		if n.Closed && props != nil {
			return i, nil
		}
		return -1, nil
	}
	return -1, n.Resolve(s)
}

// Resolve follows $ref and narrows "T | null" to T. It returns nil for
// what cannot be followed (a schema that is any).
func (n *Nav) Resolve(s map[string]any) map[string]any {
	for range 16 {
		if ref, ok := s["$ref"].(string); ok {
			switch {
			case ref == "#":
				s = n.Root
			case strings.HasPrefix(ref, "#/$defs/"):
				defs, _ := n.Root["$defs"].(map[string]any)
				d, ok := defs[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any)
				if !ok {
					return nil
				}
				s = d
			default:
				return nil
			}
			continue
		}
		if alts, ok := s["anyOf"].([]any); ok {
			var keep []map[string]any
			for _, a := range alts {
				am, _ := a.(map[string]any)
				if am == nil {
					return nil
				}
				if t, _ := am["type"].(string); t == "null" && len(am) == 1 {
					continue
				}
				keep = append(keep, am)
			}
			if len(keep) != 1 {
				return nil
			}
			s = keep[0]
			continue
		}
		if _, ok := s["oneOf"]; ok {
			return nil
		}
		if _, ok := s["allOf"]; ok {
			return nil
		}
		return s
	}
	return nil
}

// IsObject reports whether a schema may be an object with fields:
// type object (alone or with null), or no type but properties.
func IsObject(s map[string]any) bool {
	switch t := s["type"].(type) {
	case string:
		return t == "object"
	case []any:
		for _, e := range t {
			if e == "object" {
				return true
			}
		}
		return false
	}
	if _, ok := s["enum"]; ok {
		return false
	}
	if _, ok := s["const"]; ok {
		return false
	}
	return true
}
