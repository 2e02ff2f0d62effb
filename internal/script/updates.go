package script

import (
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unsafe"
)

// ApplyUpdates returns a copy of state with updates applied. A key is a
// field name or a dotted path ('context.items', 'results.0.ok'): the path's
// objects are created when missing, and a number indexes an existing
// array. Keys apply in sorted order, so 'context' is set before
// 'context.items'. Neither argument is changed: the objects and arrays on
// an update's path are copied, and the rest is shared with state, which
// is why a state is replaced, never changed in place. Copying only the
// path keeps an update's cost to what it touches, not the state's size
// (a loop's completed_actions grows by one per action).
func ApplyUpdates(state, updates map[string]any) (map[string]any, error) {
	out := make(map[string]any, len(state)+len(updates))
	for k, v := range state {
		out[k] = v
	}
	keys := make([]string, 0, len(updates))
	for k := range updates {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	// fresh are the objects and arrays this call made, which it may
	// change.
	fresh := map[unsafe.Pointer]bool{}
	for _, k := range keys {
		if err := set(out, k, deepCopy(updates[k]), fresh); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func set(root map[string]any, key string, v any, fresh map[unsafe.Pointer]bool) error {
	path := strings.Split(key, ".")
	var cur any = root
	for i, seg := range path {
		last := i == len(path)-1
		switch c := cur.(type) {
		case map[string]any:
			if last {
				c[seg] = v
				return nil
			}
			next, ok := c[seg]
			if !ok || next == nil {
				next = map[string]any{}
			}
			next = own(next, fresh)
			c[seg] = next
			cur = next
		case []any:
			n, err := strconv.Atoi(seg)
			if err != nil || n < 0 || n >= len(c) {
				return fmt.Errorf("applying the state update %q: %q is not an index of the %d-item array %s", key, seg, len(c), strings.Join(path[:i], "."))
			}
			if last {
				c[n] = v
				return nil
			}
			c[n] = own(c[n], fresh)
			cur = c[n]
		default:
			return fmt.Errorf("applying the state update %q: %s is %v, not an object", key, strings.Join(path[:i], "."), c)
		}
	}
	return nil
}

// own returns v, an object or array on an update's path, as one this
// update may change: a copy of one it shares with the state.
func own(v any, fresh map[unsafe.Pointer]bool) any {
	switch x := v.(type) {
	case map[string]any:
		if p := reflect.ValueOf(x).UnsafePointer(); fresh[p] {
			return x
		}
		c := make(map[string]any, len(x))
		for k, e := range x {
			c[k] = e
		}
		fresh[reflect.ValueOf(c).UnsafePointer()] = true
		return c
	case []any:
		if len(x) > 0 && fresh[unsafe.Pointer(&x[0])] {
			return x
		}
		c := append([]any(nil), x...)
		if len(c) > 0 {
			fresh[unsafe.Pointer(&c[0])] = true
		}
		return c
	}
	return v
}

// deepCopy copies the maps and slices of a JSON value.
func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		s := make([]any, len(x))
		for i, e := range x {
			s[i] = deepCopy(e)
		}
		return s
	}
	return v
}

// updatesOf reads the result of skill code: {stateUpdates: {...}} or a
// plain object of updates. A nil result is no updates.
func updatesOf(result any, what string) (map[string]any, error) {
	if result == nil {
		return nil, nil
	}
	m, ok := result.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s returned %v, want an object of state updates", what, result)
	}
	if su, has := m["stateUpdates"]; has {
		inner, ok := su.(map[string]any)
		if !ok && su != nil {
			return nil, fmt.Errorf("%s returned stateUpdates %v, want an object", what, su)
		}
		return inner, nil
	}
	return m, nil
}
