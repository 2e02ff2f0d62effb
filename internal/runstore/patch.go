package runstore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// Change operations of a patch.
const (
	// OpSet gives the field at Path the value.
	OpSet = "set"
	// OpAppend adds the items of the value (an array) at the end of the
	// array at Path: a list that grows, recorded as what it gained.
	OpAppend = "append"
	// OpUnset removes the field at Path.
	OpUnset = "unset"
)

// Change is one change of the skill's state an event records: events
// carry what an update changed, never the whole state again, so that a
// long run's log grows by what its actions did rather than by the state
// times the actions.
type Change struct {
	Op string `json:"op"`
	// Path is the field's keys from the state's root.
	Path  []string        `json:"path"`
	Value json.RawMessage `json:"value,omitempty"`
}

// changeJSON is a change as the log has it: the operation's name keys
// its path, a string for a field at the root (most of what a loop
// changes), else the list of keys: {"set":"updated_at","value":"…"},
// {"unset":["ctx","tmp"]}. Logs written before had {"op", "path"}, which
// still read.
type changeJSON struct {
	Set    json.RawMessage `json:"set,omitempty"`
	Append json.RawMessage `json:"append,omitempty"`
	Unset  json.RawMessage `json:"unset,omitempty"`
	Op     string          `json:"op,omitempty"`
	Path   []string        `json:"path,omitempty"`
	Value  json.RawMessage `json:"value,omitempty"`
}

// MarshalJSON writes c as changeJSON says. By hand: a loop writes a
// few changes an iteration, and two reflective encodings of each were
// most of what encoding its line cost.
func (c Change) MarshalJSON() ([]byte, error) {
	return c.appendJSON(make([]byte, 0, 24+len(c.Value)))
}

// appendJSON appends MarshalJSON's encoding of c to b.
func (c Change) appendJSON(b []byte) ([]byte, error) {
	switch c.Op {
	case OpSet, OpAppend, OpUnset:
	default:
		return appendMarshal(b, changeJSON{Op: c.Op, Path: c.Path, Value: c.Value})
	}
	b = append(b, '{', '"')
	b = append(b, c.Op...)
	b = append(b, '"', ':')
	if len(c.Path) == 1 {
		b = appendString(b, c.Path[0])
	} else {
		b = append(b, '[')
		for i, k := range c.Path {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, k)
		}
		b = append(b, ']')
	}
	if c.Value != nil {
		b = append(b, `,"value":`...)
		// Compacted, as json.Marshal compacts what MarshalJSON writes:
		// a line break in the value would split a log's line, and a
		// value that is no JSON would make the line none.
		buf := bytes.NewBuffer(b)
		if err := json.Compact(buf, c.Value); err != nil {
			return b, fmt.Errorf("the value of state change %s %s: %w", c.Op, strings.Join(c.Path, "."), err)
		}
		b = buf.Bytes()
	}
	return append(b, '}'), nil
}

// appendString appends s as a JSON string: quoted as it is when nothing
// in it needs escaping, as a field name seldom does.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// UnmarshalJSON reads a change in either form of changeJSON.
func (c *Change) UnmarshalJSON(data []byte) error {
	var in changeJSON
	if err := json.Unmarshal(data, &in); err != nil {
		return err
	}
	*c = Change{Op: in.Op, Path: in.Path, Value: in.Value}
	for _, f := range []struct {
		op   string
		path json.RawMessage
	}{{OpSet, in.Set}, {OpAppend, in.Append}, {OpUnset, in.Unset}} {
		if f.path == nil {
			continue
		}
		if c.Op != "" {
			return fmt.Errorf("a state change is both %s and %s", c.Op, f.op)
		}
		c.Op = f.op
		var key string
		if err := json.Unmarshal(f.path, &key); err == nil {
			c.Path = []string{key}
		} else if err := json.Unmarshal(f.path, &c.Path); err != nil {
			return fmt.Errorf("the path of a state change (%s): %w", f.op, err)
		}
	}
	return nil
}

// Diff is the patch that makes state before into after: a field set,
// unset, or an array grown at its end, by path from the root, objects
// compared field by field. Both states are read only; a value the two
// share (the same map or the same array) is unchanged without a look
// inside, since the state is replaced, never changed in place.
func Diff(before, after map[string]any) ([]Change, error) {
	var out []Change
	if err := diff(nil, before, after, &out); err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b Change) int { return slices.Compare(a.Path, b.Path) })
	return out, nil
}

func diff(path []string, before, after map[string]any, out *[]Change) error {
	at := func(k string) []string { return append(slices.Clip(path), k) }
	for k := range before {
		if _, ok := after[k]; !ok {
			*out = append(*out, Change{Op: OpUnset, Path: at(k)})
		}
	}
	for k, a := range after {
		b, ok := before[k]
		if ok && same(a, b) {
			continue
		}
		op, v := OpSet, a
		switch av := a.(type) {
		case map[string]any:
			// A nil map is JSON's null, which a reader cannot patch into.
			if bv, isMap := b.(map[string]any); ok && isMap && av != nil && bv != nil {
				if err := diff(at(k), bv, av, out); err != nil {
					return err
				}
				continue
			}
		case []any:
			if n := Appended(b, a); ok && n >= 0 {
				op, v = OpAppend, av[n:]
			}
		}
		if ok && op == OpSet && reflect.DeepEqual(a, b) {
			continue
		}
		data, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("encoding state field %s: %w", strings.Join(at(k), "."), err)
		}
		*out = append(*out, Change{Op: op, Path: at(k), Value: data})
	}
	return nil
}

// same reports whether two values are one: equal scalars, or the same
// map or array, which the state never changes in place.
func same(a, b any) bool {
	switch av := a.(type) {
	case nil, string, float64, bool, int, int64:
		return reflect.TypeOf(a) == reflect.TypeOf(b) && a == b
	case map[string]any:
		bv, ok := b.(map[string]any)
		return ok && reflect.ValueOf(av).UnsafePointer() == reflect.ValueOf(bv).UnsafePointer()
	case []any:
		bv, ok := b.([]any)
		return ok && len(av) == len(bv) && (av == nil) == (bv == nil) && (len(av) == 0 || &av[0] == &bv[0])
	}
	return false
}

// Appended is the length of array before when array after is it with
// items added at its end, -1 when after is anything else (an array the
// same, shorter or changed, JSON's null, not an array).
func Appended(before, after any) int {
	b, _ := before.([]any)
	a, _ := after.([]any)
	if b == nil || len(a) <= len(b) || !prefix(b, a) {
		return -1
	}
	return len(b)
}

// prefix reports whether list starts with the items of head.
func prefix(head, list []any) bool {
	if len(head) > 0 && &head[0] == &list[0] {
		return true
	}
	for i, h := range head {
		if !same(h, list[i]) && !reflect.DeepEqual(h, list[i]) {
			return false
		}
	}
	return true
}

// Patch applies the changes of an event to state, in place, and returns
// the state (a new one when state is nil). A change that does not fit the
// state (an append to what is not an array, a path through what is not an
// object) is an error: the log is damaged.
func Patch(state map[string]any, changes []Change) (map[string]any, error) {
	if state == nil {
		state = map[string]any{}
	}
	for _, c := range changes {
		if len(c.Path) == 0 {
			return nil, fmt.Errorf("a state change (%s) has no path", c.Op)
		}
		parent := state
		for i, k := range c.Path[:len(c.Path)-1] {
			next, ok := parent[k].(map[string]any)
			if !ok {
				if _, there := parent[k]; there || c.Op == OpUnset {
					return nil, fmt.Errorf("state change %s %s: %s is not an object", c.Op, strings.Join(c.Path, "."), strings.Join(c.Path[:i+1], "."))
				}
				next = map[string]any{}
				parent[k] = next
			}
			parent = next
		}
		last := c.Path[len(c.Path)-1]
		switch c.Op {
		case OpUnset:
			delete(parent, last)
			continue
		case OpSet, OpAppend:
		default:
			return nil, fmt.Errorf("state change %q of %s: not an operation (set, append, unset)", c.Op, strings.Join(c.Path, "."))
		}
		var v any
		if err := json.Unmarshal(c.Value, &v); err != nil {
			return nil, fmt.Errorf("state change %s %s: %w", c.Op, strings.Join(c.Path, "."), err)
		}
		if c.Op == OpSet {
			parent[last] = v
			continue
		}
		items, ok := v.([]any)
		list, isList := parent[last].([]any)
		if !ok || !isList {
			return nil, fmt.Errorf("state change append %s: appends %T to %T, want arrays", strings.Join(c.Path, "."), v, parent[last])
		}
		parent[last] = append(list, items...)
	}
	return state, nil
}

// StateFold follows the skill's state along a run's events: a whole state
// (the first event's, or a log written before events carried patches)
// replaces it, a patch changes it. Replay and the readers of a run's
// history fold the same way.
type StateFold struct {
	state map[string]any
}

// Apply folds e into the state and reports whether e changed it.
func (f *StateFold) Apply(e *Event) (bool, error) {
	if e.State == nil && e.Patch == nil {
		return false, nil
	}
	if e.State != nil {
		st := map[string]any{}
		if err := json.Unmarshal(e.State, &st); err != nil {
			return false, fmt.Errorf("the recorded state: %w", err)
		}
		f.state = st
	}
	st, err := Patch(f.state, e.Patch)
	if err != nil {
		return false, err
	}
	f.state = st
	return true, nil
}

// State is the state as the events folded so far say; the fold changes it
// in place as it goes on.
func (f *StateFold) State() map[string]any {
	if f.state == nil {
		f.state = map[string]any{}
	}
	return f.state
}
