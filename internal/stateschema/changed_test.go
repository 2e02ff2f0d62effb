package stateschema

import (
	"reflect"
	"strings"
	"testing"
)

// The loop's state schema, as parse/tsschema writes the base state of
// execution modes.
const loopSchema = `{"type":"object","additionalProperties":false,
 "required":["status","completed_actions","errors","error_count","context"],
 "properties":{
  "status":{"enum":["pending","running","completed","failed"]},
  "current_action":{"type":["string","null"]},
  "completed_actions":{"type":"array","items":{"type":"string"}},
  "errors":{"type":"array","items":{"type":"object","required":["action","message"],"properties":{"action":{"type":"string"},"message":{"type":"string"}}}},
  "error_count":{"type":"number","minimum":0},
  "context":{"$ref":"#/$defs/context"}},
 "$defs":{"context":{"type":"object","properties":{"n":{"type":"integer"}}}}}`

// Checking only what changed finds what checking the whole state finds in
// the fields touched, items appended included, and nothing else.
func TestValidateChangedAgreesWithValidate(t *testing.T) {
	s, err := Compile("loop", schema(t, loopSchema))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		state   string
		changed Changed
	}{
		{`{"status":"done","completed_actions":["a",1],"errors":[],"error_count":0,"context":{}}`, Changed{"status": -1}},
		{`{"status":"running","completed_actions":["a",1,2],"errors":[],"error_count":-1,"context":{}}`, Changed{"completed_actions": 1, "error_count": -1}},
		{`{"status":"running","completed_actions":[],"errors":[{"action":"a","message":"m"},{"action":1}],"error_count":0,"context":{"n":1.5}}`, Changed{"errors": 1, "context": -1}},
		{`{"status":"running","completed_actions":[],"errors":[],"error_count":0,"context":{"n":"x"},"current_action":7}`, Changed{"current_action": -1}},
	} {
		state, _ := schema(t, c.state), 0
		got, err := s.ValidateChanged(state, c.changed)
		if err != nil {
			t.Fatal(err)
		}
		all, _ := s.Validate(state)
		var want []Violation
		for _, v := range all {
			top, _, _ := strings.Cut(v.Field, ".")
			from, ok := c.changed[top]
			if !ok || v.Field == "" {
				continue
			}
			if from > 0 && v.Field != top {
				// Items before the append were checked when they came.
				if idx, _, _ := strings.Cut(strings.TrimPrefix(v.Field, top+"."), "."); idx < "1" && len(idx) == 1 {
					continue
				}
			}
			want = append(want, v)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s changed %v:\n got %+v\nwant %+v", c.state, c.changed, got, want)
		}
		if len(got) == 0 {
			t.Errorf("%s changed %v: no violation found", c.state, c.changed)
		}
	}
}

// A root whose rules tie fields together is checked whole.
func TestValidateChangedWholeWhenTied(t *testing.T) {
	s, err := Compile("tied", schema(t, `{"properties":{"a":{"type":"number"}},"dependentRequired":{"a":["b"]}}`))
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.ValidateChanged(schema(t, `{"a":1}`), Changed{"a": -1})
	if err != nil || len(got) != 1 || !strings.Contains(got[0].Message, "'b' is required") {
		t.Errorf("got %v, %v; want the dependentRequired violation", got, err)
	}
}
