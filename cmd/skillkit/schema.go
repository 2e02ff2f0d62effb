package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/invopop/jsonschema"
	"github.com/spf13/cobra"

	"github.com/skillkit/skillkit/internal/runstore"
	"github.com/skillkit/skillkit/internal/skilltest"
	"github.com/skillkit/skillkit/lint"
	"github.com/skillkit/skillkit/plan"
)

// schemas are the JSON Schemas of skillkit's own formats, by name, each
// generated from the Go type that reads or writes the format.
var schemas = map[string]func() *jsonschema.Schema{
	"plan": func() *jsonschema.Schema {
		return reflectSchema(&plan.Skill{}, "plan", "json", false, "The output of skillkit plan --json.")
	},
	"progress": func() *jsonschema.Schema {
		return reflectSchema(&runstore.Progress{}, "progress", "json", false,
			"skill-state.yaml in a run directory (YAML, same fields): the skill-state specification's fields, required, and skillkit's own beside them.")
	},
	"config": func() *jsonschema.Schema {
		return reflectSchema(&lint.Config{}, "config", "yaml", false, "skillkit.yaml: lint rule severities, ignore globs, profile.")
	},
	"test": func() *jsonschema.Schema {
		return reflectSchema(&skilltest.Case{}, "test", "yaml", false, "A skill's test file, tests/NAME.yaml, that skillkit test runs (docs/testing.md).")
	},
	"inputs": func() *jsonschema.Schema {
		return reflectSchema(&plan.InputsBlock{}, "inputs", "json", false, "The inputs block of a skill's front matter: each input's type, whether it is required, its default and allowed values (docs/format.md).")
	},
	"state": func() *jsonschema.Schema {
		return reflectSchema(&plan.BaseState{}, "state", "json", true, "The base fields of state.json that the runtime maintains; skills add their own.")
	},
}

// reflectSchema builds the schema of a Go type: field names from the tag
// named, fields without omitempty required, other fields refused unless
// open.
func reflectSchema(v any, name, tag string, open bool, description string) *jsonschema.Schema {
	r := &jsonschema.Reflector{FieldNameTag: tag, AllowAdditionalProperties: open}
	if tag == "yaml" || name == "progress" {
		// yaml tags have no omitempty on these fields, and the progress
		// file requires only the specification's: jsonschema tags say
		// what is required.
		r.RequiredFromJSONSchemaTags = true
	}
	s := r.Reflect(v)
	s.ID = jsonschema.ID("https://skillkit.dev/schemas/" + name + ".json")
	s.Title = "skillkit " + name
	s.Description = description
	return s
}

func schemaNames() []string {
	names := make([]string, 0, len(schemas))
	for n := range schemas {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

func newSchemaCmd() *cobra.Command {
	names := schemaNames()
	return &cobra.Command{
		Use:   "schema " + strings.Join(names, "|") + " [SKILL]",
		Short: "Print the JSON Schema of one of skillkit's formats",
		Long: `schema prints a JSON Schema (draft 2020-12) generated from skillkit's own Go
types, for editors and CI that check skillkit's files:

  plan     the output of skillkit plan --json
  progress skill-state.yaml, a run's progress
  config   skillkit.yaml, the lint configuration
  state    the base fields of state.json
  test     a skill's test file, tests/NAME.yaml (skillkit test)

With a SKILL, schema state prints the schema converted from that skill's
state-schema.md instead: what skillkit run validates state.json against.
The generated schemas are also committed under schemas/.`,
		Example: `  skillkit schema plan > plan.schema.json
  skillkit schema state .claude/skills/review-code`,
		Args:      cobra.RangeArgs(1, 2),
		ValidArgs: names,
		RunE: runE(func(c *cobra.Command, args []string) error {
			if len(args) == 2 {
				if args[0] != "state" {
					return usageErr(fmt.Errorf("only schema state takes a SKILL"))
				}
				return skillStateSchema(c.OutOrStdout(), args[1])
			}
			gen, ok := schemas[args[0]]
			if !ok {
				return usageErr(fmt.Errorf("unknown schema %q (want one of %s)", args[0], strings.Join(names, ", ")))
			}
			return writeJSON(c.OutOrStdout(), gen())
		}),
	}
}

func skillStateSchema(w io.Writer, dir string) error {
	s, err := readSkill(dir)
	if err != nil {
		return err
	}
	if s.StateSchema == nil || s.StateSchema.Schema == nil {
		return usageErr(fmt.Errorf("%s has no state schema (a typescript or JSON Schema block in state-schema.md)", dir))
	}
	return writeJSON(w, s.StateSchema.Schema)
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
