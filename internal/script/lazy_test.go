package script

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// A long array of the state (a loop's completed_actions) reaches JS
// without being copied item by item, and behaves as the array it is: read,
// searched, spread, changed in place (which the Go state never sees) and
// read back.
func TestLongArrayBehavesAsAnArray(t *testing.T) {
	f := newFixture(t)
	h := f.host(t, nil)
	long := make([]any, 100)
	for i := range long {
		long[i] = "action-" + strings.Repeat("x", i%3)
	}
	long[7] = map[string]any{"k": []any{1.0, 2.0}}
	long[8] = nil
	state := map[string]any{"done": long}
	keep, _ := json.Marshal(state)
	src := `
const d = state.done;
const checks = {
  isArray: Array.isArray(d), length: d.length, first: d[0], last: d[99], past: d[100] === undefined,
  includes: d.includes('action-x'), index: d.indexOf('action-xx'), spread: [...d].length, json: JSON.stringify(d).length,
  sameObject: d[7] === d[7], nested: d[7].k[1], null: d[8] === null, mapped: d.map(x => typeof x).filter(t => t === 'string').length,
  slice: d.slice(-2).join(','),
};
d[7].k.push(3);
d.push('new');
d[0] = 'changed';
d.length = 102;
state.checks = checks;
state.after = { length: d.length, first: d[0], hole: d[101] === undefined, pushed: d[100] };
`
	got, err := h.RunStep(context.Background(), block("phases/01-x.md", src), state, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"isArray": true, "length": 100.0, "first": "action-", "last": "action-", "past": true,
		"includes": true, "index": 2.0, "spread": 100.0, "sameObject": true, "nested": 2.0, "null": true, "mapped": 98.0,
		"slice": "action-xx,action-",
	}
	checks, _ := got["checks"].(map[string]any)
	for k, v := range want {
		if n, ok := checks[k].(int64); ok {
			checks[k] = float64(n)
		}
		if !reflect.DeepEqual(checks[k], v) {
			t.Errorf("%s = %#v, want %#v", k, checks[k], v)
		}
	}
	if checks["json"] == nil {
		t.Error("JSON.stringify of the array gave nothing")
	}
	after, _ := got["after"].(map[string]any)
	if after["first"] != "changed" || after["pushed"] != "new" || after["hole"] != true {
		t.Errorf("after the changes: %v", after)
	}
	done, _ := got["done"].([]any)
	if len(done) != 102 || done[0] != "changed" || done[100] != "new" || done[101] != nil {
		t.Errorf("the state JS returned has done %v", done)
	}
	if now, _ := json.Marshal(state); string(now) != string(keep) {
		t.Errorf("JS changed the Go state it was given:\n%s\nwas\n%s", now, keep)
	}
}

// An item of a long array that is a Go value of another type than JSON's
// reaches JS as JSON would have it, never as a Go value JS could change.
func TestLongArrayOfGoValues(t *testing.T) {
	f := newFixture(t)
	h := f.host(t, nil)
	long := make([]any, 40)
	for i := range long {
		long[i] = i
	}
	inner := map[string]string{"k": "v"}
	long[3] = inner
	got, err := h.RunStep(context.Background(), block("phases/01-x.md", `state.seen = [state.l[2], state.l[3].k, typeof state.l[39]]; state.l[3].k = 'changed';`), map[string]any{"l": long}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if seen, _ := json.Marshal(got["seen"]); string(seen) != `[2,"v","number"]` {
		t.Errorf("JS saw %s", seen)
	}
	if inner["k"] != "v" {
		t.Error("JS changed a Go map of the state")
	}
}
