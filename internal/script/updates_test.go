package script

import (
	"reflect"
	"testing"
)

func TestApplyUpdates(t *testing.T) {
	tests := []struct {
		name    string
		state   map[string]any
		updates map[string]any
		want    map[string]any
		err     string
	}{
		{name: "set", state: map[string]any{"a": 1.0}, updates: map[string]any{"b": "x"}, want: map[string]any{"a": 1.0, "b": "x"}},
		{name: "dotted creates objects", state: map[string]any{}, updates: map[string]any{"context.items": []any{1.0}}, want: map[string]any{"context": map[string]any{"items": []any{1.0}}}},
		{name: "dotted keeps siblings", state: map[string]any{"context": map[string]any{"k": 1.0}}, updates: map[string]any{"context.n": 2.0}, want: map[string]any{"context": map[string]any{"k": 1.0, "n": 2.0}}},
		{name: "parent before child", state: nil, updates: map[string]any{"c.x": 1.0, "c": map[string]any{"y": 2.0}}, want: map[string]any{"c": map[string]any{"x": 1.0, "y": 2.0}}},
		{name: "array index", state: map[string]any{"r": []any{map[string]any{"ok": false}}}, updates: map[string]any{"r.0.ok": true}, want: map[string]any{"r": []any{map[string]any{"ok": true}}}},
		{name: "null parent replaced", state: map[string]any{"context": nil}, updates: map[string]any{"context.a": 1.0}, want: map[string]any{"context": map[string]any{"a": 1.0}}},
		{name: "through a scalar", state: map[string]any{"s": "x"}, updates: map[string]any{"s.a": 1.0}, err: `applying the state update "s.a": s is x, not an object`},
		{name: "bad index", state: map[string]any{"r": []any{}}, updates: map[string]any{"r.3": 1.0}, err: `"3" is not an index`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := deepCopy(tt.state)
			got, err := ApplyUpdates(tt.state, tt.updates)
			if !checkErr(t, err, tt.err) {
				return
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
			if tt.state != nil && !reflect.DeepEqual(tt.state, before) {
				t.Errorf("the input changed: %v", tt.state)
			}
		})
	}
}

// An update copies what is on its path and shares the rest: the state it
// was given does not change, and a field it did not touch is the same
// value (a loop's completed_actions is not copied once per action).
func TestApplyUpdatesCopiesOnlyThePath(t *testing.T) {
	done := []any{"a", "b"}
	state := map[string]any{
		"completed_actions": done,
		"context":           map[string]any{"items": []any{map[string]any{"ok": false}}, "other": map[string]any{"x": 1.0}},
	}
	next, err := ApplyUpdates(state, map[string]any{"context.items.0.ok": true, "context.items.0.by": "b", "status": "done"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := state["context"].(map[string]any)
	if item := ctx["items"].([]any)[0].(map[string]any); item["ok"] != false || len(item) != 1 || state["status"] != nil {
		t.Errorf("the state given changed: %v", state)
	}
	nctx := next["context"].(map[string]any)
	if item := nctx["items"].([]any)[0].(map[string]any); item["ok"] != true || item["by"] != "b" {
		t.Errorf("the update did not apply: %v", next)
	}
	if got := next["completed_actions"].([]any); &got[0] != &done[0] {
		t.Error("a field the update did not touch was copied")
	}
	if reflect.ValueOf(nctx["other"]).UnsafePointer() != reflect.ValueOf(ctx["other"]).UnsafePointer() {
		t.Error("an object beside the update's path was copied")
	}
}
