package plan

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Input is one input a skill declares, checked before a run is ready (the
// step-execution specification's Validating): a key of the front matter's
// inputs block, or a name of its arguments list.
type Input struct {
	Name string `json:"name"`
	// Type is string, number, integer or boolean; string without one.
	Type string `json:"type"`
	// Required inputs must be given unless they have a default.
	Required bool `json:"required,omitempty"`
	// Default is the value when none is given, as text (inputs reach the
	// skill as text: $SKILL_INPUT_X, inputs.x); empty and HasDefault
	// false without one.
	Default    string `json:"default,omitempty"`
	HasDefault bool   `json:"hasDefault,omitempty"`
	// Enum lists the values allowed, as text; empty allows any.
	Enum        []string `json:"enum,omitempty"`
	Description string   `json:"description,omitempty"`
	// Argument marks a name of the arguments list (Claude Code's named
	// arguments, $name): a positional argument, skillkit run SKILL --
	// VALUE…, required, or given as --input name=VALUE.
	Argument bool `json:"argument,omitempty"`
}

// InputsKey is the front matter key of the inputs block, skillkit's own.
const InputsKey = "inputs"

// InputsBlock is the front matter's inputs block, as a user writes it:
// what `skillkit schema inputs` describes.
type InputsBlock map[string]InputSpec

// InputSpec is one entry of the inputs block.
type InputSpec struct {
	Type        string `json:"type,omitempty" jsonschema:"enum=string,enum=number,enum=integer,enum=boolean,default=string"`
	Required    bool   `json:"required,omitempty"`
	Default     any    `json:"default,omitempty"`
	Enum        []any  `json:"enum,omitempty"`
	Description string `json:"description,omitempty"`
}

// inputTypes are the types an input may declare.
var inputTypes = []string{"string", "number", "integer", "boolean"}

// Inputs returns the inputs the skill declares, in the order written: the
// names of the front matter's arguments list, then the keys of its inputs
// block. A declaration that does not hold (an unknown type, a default of
// the wrong type or outside the enum, a value that is no mapping) is a
// diagnostic at the key's line, naming the field's path
// (inputs.target.type); the input is then left out.
func (s *Skill) Inputs() ([]Input, []Diagnostic) {
	fm := s.FrontMatter
	if fm == nil || fm.Error != nil {
		return nil, nil
	}
	var out []Input
	var diags []Diagnostic
	bad := func(f *Field, format string, args ...any) {
		diags = append(diags, Diagnostic{Pos: f.Pos, Severity: SevError, Code: "inputs-invalid", Message: fmt.Sprintf(format, args...)})
	}
	if f := fm.Get("arguments"); f != nil {
		var names []string
		switch v := f.Value.(type) {
		case string:
			names = strings.Fields(v)
		case []any:
			for i, n := range v {
				name, ok := n.(string)
				if !ok || strings.TrimSpace(name) == "" {
					bad(f, "arguments[%d]: want a name, got %v", i, n)
					continue
				}
				names = append(names, name)
			}
		default:
			bad(f, "arguments: want a list of names, got %v", f.Value)
		}
		for _, n := range names {
			out = append(out, Input{Name: n, Type: "string", Required: true, Argument: true})
		}
	}
	f := fm.Get(InputsKey)
	if f == nil {
		return out, diags
	}
	block, ok := f.Value.(map[string]any)
	if !ok {
		bad(f, "inputs: want a mapping of input names to their declarations, got %v", f.Value)
		return out, diags
	}
	for _, name := range slices.Sorted(maps.Keys(block)) {
		in, problem := declare(name, block[name])
		if problem != "" {
			bad(f, "inputs.%s%s", name, problem)
			continue
		}
		out = append(out, in)
	}
	return out, diags
}

// declare reads one entry of the inputs block; problem, when set, starts
// with the path below the input's name (".type: …").
func declare(name string, v any) (Input, string) {
	in := Input{Name: name, Type: "string"}
	if v == nil {
		return in, ""
	}
	m, ok := v.(map[string]any)
	if !ok {
		return in, fmt.Sprintf(": want a mapping (type, required, default, enum, description), got %v", v)
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		switch val := m[k]; k {
		case "type":
			t, _ := val.(string)
			if !slices.Contains(inputTypes, t) {
				return in, fmt.Sprintf(".type: %v is not one of %s", val, strings.Join(inputTypes, ", "))
			}
			in.Type = t
		case "required":
			b, ok := val.(bool)
			if !ok {
				return in, fmt.Sprintf(".required: want true or false, got %v", val)
			}
			in.Required = b
		case "description":
			in.Description = fmt.Sprint(val)
		case "default", "enum":
		default:
			return in, fmt.Sprintf(".%s: unknown key (type, required, default, enum, description)", k)
		}
	}
	if e, ok := m["enum"]; ok {
		list, ok := e.([]any)
		if !ok || len(list) == 0 {
			return in, fmt.Sprintf(".enum: want a list of values, got %v", e)
		}
		for i, x := range list {
			text := fmt.Sprint(x)
			if p := in.checkType(text); p != "" {
				return in, fmt.Sprintf(".enum[%d]: %s", i, p)
			}
			in.Enum = append(in.Enum, text)
		}
	}
	if d, ok := m["default"]; ok && d != nil {
		text := fmt.Sprint(d)
		if p := in.check(text); p != "" {
			return in, ".default: " + p
		}
		in.Default, in.HasDefault = text, true
	}
	return in, ""
}

// check says what is wrong with value for the input, "" when nothing.
func (in Input) check(value string) string {
	if p := in.checkType(value); p != "" {
		return p
	}
	if len(in.Enum) > 0 && !slices.Contains(in.Enum, value) {
		return fmt.Sprintf("%q is not one of %s", value, strings.Join(in.Enum, ", "))
	}
	return ""
}

// checkType says whether value reads as the input's type.
func (in Input) checkType(value string) string {
	var err error
	switch in.Type {
	case "number":
		_, err = strconv.ParseFloat(value, 64)
	case "integer":
		_, err = strconv.ParseInt(value, 10, 64)
	case "boolean":
		_, err = strconv.ParseBool(value)
	}
	if err != nil {
		return fmt.Sprintf("%q is not %s %s", value, article(in.Type), in.Type)
	}
	return ""
}

func article(typ string) string {
	if typ == "integer" {
		return "an"
	}
	return "a"
}

// CheckInputs checks what a run is given against the skill's declared
// inputs, and returns the inputs with the declared defaults filled in.
// Each problem is a line naming the input: a required input or argument
// missing, a value of the wrong type or outside its enum, and, when the
// skill declares an inputs block, a key it does not declare (with the
// nearest declared name). A skill that declares nothing takes any input:
// its prose may read them.
func (s *Skill) CheckInputs(given map[string]string, args []string) (map[string]string, []string) {
	decl, diags := s.Inputs()
	var problems []string
	for _, d := range diags {
		problems = append(problems, d.Pos.String()+": "+d.Message)
	}
	out := maps.Clone(given)
	if out == nil {
		out = map[string]string{}
	}
	// Each problem is placed at its declaration: the inputs key, or the
	// arguments key for a positional argument.
	at := func(key string) string {
		if f := s.FrontMatter.Get(key); f != nil {
			return f.Pos.String() + ": "
		}
		return ""
	}
	declared := map[string]bool{}
	positional := 0
	for _, in := range decl {
		declared[in.Name] = true
		v, ok := out[in.Name]
		if !ok && in.Argument && positional < len(args) {
			// A named argument is an input too: $SKILL_INPUT_NAME, inputs.name.
			v, ok = args[positional], true
			out[in.Name] = v
			positional++
		}
		pos := at(InputsKey)
		if in.Argument {
			pos = at("arguments")
		}
		switch {
		case ok:
			if p := in.check(v); p != "" {
				problems = append(problems, fmt.Sprintf("%sinput %s: %s", pos, in.Name, p))
			}
		case in.HasDefault:
			out[in.Name] = in.Default
		case in.Required && in.Argument:
			problems = append(problems, fmt.Sprintf("%sargument %s is required: pass it after -- (skillkit run SKILL -- VALUE) or as --input %s=VALUE", pos, in.Name, in.Name))
		case in.Required:
			problems = append(problems, fmt.Sprintf("%sinput %s is required: pass --input %s=VALUE", pos, in.Name, in.Name))
		}
	}
	if s.FrontMatter.Get(InputsKey) != nil {
		for _, k := range slices.Sorted(maps.Keys(given)) {
			if declared[k] {
				continue
			}
			msg := fmt.Sprintf("%sinput %s is not declared", at(InputsKey), k)
			if near := nearest(k, slices.Sorted(maps.Keys(declared))); near != "" {
				msg += fmt.Sprintf("; did you mean %s?", near)
			}
			problems = append(problems, msg)
		}
	}
	return out, problems
}

// nearest is the name closest to s by edit distance, when it is close
// enough to be a typo of it (about a third of its letters differ at most).
func nearest(s string, names []string) string {
	best, dist := "", len(s)/3+2
	for _, n := range names {
		if d := editDistance(s, n); d < dist {
			best, dist = n, d
		}
	}
	return best
}

// editDistance counts the edits from a to b: insertions, deletions,
// substitutions and swaps of two neighbours (the commonest typo), bytes
// being letters enough for input names.
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
