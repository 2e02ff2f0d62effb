package plan

import (
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// skillWith is a skill whose SKILL.md front matter is the YAML text.
func skillWith(t testing.TB, text string) *Skill {
	t.Helper()
	var node yaml.Node
	fm := &FrontMatter{Closed: true, Raw: text}
	if err := yaml.Unmarshal([]byte(text), &node); err != nil || len(node.Content) == 0 || node.Content[0].Kind != yaml.MappingNode {
		fm.Error = &Diagnostic{Message: "not a mapping"}
		return &Skill{Entry: "SKILL.md", FrontMatter: fm}
	}
	m := node.Content[0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		var v any
		if err := m.Content[i+1].Decode(&v); err != nil {
			t.Skip(err)
		}
		fm.Fields = append(fm.Fields, &Field{Key: m.Content[i].Value, Value: v, Pos: Pos{File: "SKILL.md", Line: m.Content[i].Line + 1, Col: 1}})
	}
	return &Skill{Entry: "SKILL.md", FrontMatter: fm}
}

func TestCheckInputs(t *testing.T) {
	s := skillWith(t, `inputs:
  name: {required: true}
  tone: {enum: [warm, formal], default: warm}
  count: {type: integer, default: 3}
  ratio: {type: number}
  dry: {type: boolean}
arguments: [target]
`)
	for _, tc := range []struct {
		given map[string]string
		args  []string
		want  []string // substrings, one per problem, in order
		out   map[string]string
	}{
		{given: map[string]string{"name": "Ada"}, args: []string{"here"},
			out: map[string]string{"name": "Ada", "tone": "warm", "count": "3", "target": "here"}},
		{given: map[string]string{"target": "x"},
			want: []string{"SKILL.md:2:1: input name is required"}},
		{given: map[string]string{"name": "Ada"},
			want: []string{"SKILL.md:8:1: argument target is required: pass it after --"}},
		{given: map[string]string{"name": "Ada", "target": "x", "count": "2.5", "ratio": "half", "dry": "maybe", "tone": "cold"},
			want: []string{`input count: "2.5" is not an integer`, `input dry: "maybe" is not a boolean`, `input ratio: "half" is not a number`, `input tone: "cold" is not one of warm, formal`}},
		{given: map[string]string{"name": "Ada", "target": "x", "cuont": "1", "zzzzzz": "1"},
			want: []string{"input cuont is not declared; did you mean count?", "input zzzzzz is not declared"}},
	} {
		out, problems := s.CheckInputs(tc.given, tc.args)
		slices.Sort(problems)
		if len(problems) != len(tc.want) {
			t.Errorf("%v %v: problems %q, want %q", tc.given, tc.args, problems, tc.want)
			continue
		}
		for i, w := range tc.want {
			if !strings.Contains(problems[i], w) {
				t.Errorf("%v: problem %q, want it to say %q", tc.given, problems[i], w)
			}
		}
		if strings.Contains(strings.Join(problems, " "), "zzzzzz is not declared;") {
			t.Error("a name far from every declared one got a suggestion")
		}
		for k, v := range tc.out {
			if out[k] != v {
				t.Errorf("%v: input %s = %q, want %q", tc.given, k, out[k], v)
			}
		}
	}
}

func TestInputDeclarations(t *testing.T) {
	for text, want := range map[string]string{
		"inputs: [a, b]\n":                            "inputs: want a mapping",
		"inputs:\n  a: 3\n":                           "inputs.a: want a mapping",
		"inputs:\n  a: {type: str}\n":                 "inputs.a.type: str is not one of string, number, integer, boolean",
		"inputs:\n  a: {type: integer, default: x}\n": `inputs.a.default: "x" is not an integer`,
		"inputs:\n  a: {enum: [x, y], default: z}\n":  `inputs.a.default: "z" is not one of x, y`,
		"inputs:\n  a: {enum: []}\n":                  "inputs.a.enum: want a list",
		"inputs:\n  a: {required: yes please}\n":      "inputs.a.required: want true or false",
		"inputs:\n  a: {kind: x}\n":                   "inputs.a.kind: unknown key",
		"arguments: 3\n":                              "arguments: want a list of names",
		"arguments: [a, 3]\n":                         "arguments[1]: want a name",
	} {
		_, diags := skillWith(t, text).Inputs()
		if len(diags) != 1 || !strings.Contains(diags[0].Message, want) || diags[0].Code != "inputs-invalid" || diags[0].Pos.Line == 0 {
			t.Errorf("%q: diagnostics %v, want one saying %q at a line", text, diags, want)
		}
	}
	if in, diags := skillWith(t, "inputs:\n  a:\n  b: {type: boolean, default: false, description: flag}\n").Inputs(); len(diags) != 0 || len(in) != 2 || in[1].Default != "false" || !in[1].HasDefault || in[0].Type != "string" {
		t.Errorf("inputs %+v, diagnostics %v", in, diags)
	}
}

// FuzzInputs: no front matter makes Inputs or CheckInputs panic, and a
// declared default always passes the check of its own input.
func FuzzInputs(f *testing.F) {
	f.Add("inputs:\n  a: {type: integer, default: 3, enum: [3, 4]}\narguments: [t]\n", "a", "4")
	f.Add("inputs:\n  a: {type: number}\n", "b", "x")
	f.Add("arguments: a b c\n", "a", "")
	f.Fuzz(func(t *testing.T, text, key, value string) {
		s := skillWith(t, text)
		decl, _ := s.Inputs()
		out, _ := s.CheckInputs(map[string]string{key: value}, []string{value})
		for _, in := range decl {
			if in.HasDefault && in.check(in.Default) != "" {
				t.Errorf("default %q of %s fails its own check", in.Default, in.Name)
			}
			if _, ok := out[in.Name]; in.HasDefault && !ok {
				t.Errorf("default of %s not filled", in.Name)
			}
		}
	})
}
