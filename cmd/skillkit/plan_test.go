package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/skillkit/skillkit/internal/corpus"
)

// run calls Main in-process and returns the exit code and both streams.
func run(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = Main(args, Streams{In: strings.NewReader(""), Out: &out, Err: &errb})
	return code, out.String(), errb.String()
}

// TestPlanJSONMatchesSchema checks that `plan --json` succeeds on every
// corpus skill, reports the index's mode, and validates against
// `schema plan`.
func TestPlanJSONMatchesSchema(t *testing.T) {
	idx := corpus.Skills(t)
	code, schemaText, stderr := run("schema", "plan")
	if code != 0 {
		t.Fatalf("schema plan: exit %d: %s", code, stderr)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("plan.json", strings.NewReader(schemaText)); err != nil {
		t.Fatal(err)
	}
	schema, err := c.Compile("plan.json")
	if err != nil {
		t.Fatalf("compiling the plan schema: %v", err)
	}
	for _, e := range idx {
		code, out, stderr := run("plan", "--json", e.Path())
		if code != 0 {
			t.Errorf("%s: exit %d: %s", e.Dir, code, stderr)
			continue
		}
		var v any
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Errorf("%s: output is not JSON: %v", e.Dir, err)
			continue
		}
		if err := schema.Validate(v); err != nil {
			t.Errorf("%s: plan does not validate against the schema: %v", e.Dir, err)
		}
		if m := v.(map[string]any)["mode"]; e.Mode != "other" && m != e.Mode {
			t.Errorf("%s: mode %v, index says %s", e.Dir, m, e.Mode)
		}
	}
}
