package parse

import (
	"encoding/json"
	"strconv"

	"go.yaml.in/yaml/v3"

	"github.com/skillkit/skillkit/plan"
)

// toolStep completes a Tool step: its arguments are the step's first YAML
// or JSON block, and its code the call, written as the JavaScript a skill
// would write (mcp__server__tool({...})) at the arguments' place, so that
// one code path classes, runs, records and lints both.
func toolStep(m *md, st *plan.Step) {
	t := st.Attrs.Tool
	if t.Name == "" {
		m.diag(t.Pos, plan.SevError, "step-attribute", "Save as without a Tool: it names where a Tool step's result goes")
		st.Attrs.Tool = nil
		return
	}
	args := map[string]any{}
	at := t.Pos
	for _, b := range st.Code {
		if b.Lang != "yaml" && b.Lang != "yml" && b.Lang != "json" {
			continue
		}
		t.Args, at = b, b.Body
		var v any
		if err := yaml.Unmarshal([]byte(b.Text), &v); err != nil {
			m.diag(b.Body, plan.SevError, "step-attribute", "the arguments of Tool "+t.Name+" do not parse: "+err.Error())
			return
		}
		if v == nil {
			break
		}
		obj, ok := v.(map[string]any)
		if !ok {
			m.diag(b.Body, plan.SevError, "step-attribute", "the arguments of Tool "+t.Name+" are not a map of argument → value")
			return
		}
		args = obj
		break
	}
	data, err := json.Marshal(args)
	if err != nil {
		m.diag(at, plan.SevError, "step-attribute", "the arguments of Tool "+t.Name+": "+err.Error())
		return
	}
	code := t.Name + "(" + string(data) + ")"
	if t.SaveAs != "" {
		code = "state[" + strconv.Quote(t.SaveAs) + "] = " + code
	}
	st.Code = append(st.Code, &plan.CodeBlock{Lang: "javascript", Info: "javascript", Text: code, Pos: at, Body: at, Closed: true})
}
