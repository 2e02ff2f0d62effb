package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/invopop/jsonschema"
	"github.com/spf13/cobra"

	"github.com/skillkit/skillkit/plan"
)

// schemas are the JSON Schemas of skillkit's own formats, by name.
var schemas = map[string]func() *jsonschema.Schema{
	"plan": func() *jsonschema.Schema { return reflectSchema(&plan.Skill{}, "plan") },
}

// reflectSchema builds the schema of a Go type; field names follow the
// json tags, and fields without omitempty are required.
func reflectSchema(v any, name string) *jsonschema.Schema {
	r := &jsonschema.Reflector{DoNotReference: false}
	s := r.Reflect(v)
	s.ID = jsonschema.ID("https://skillkit.dev/schemas/" + name + ".json")
	return s
}

func newSchemaCmd() *cobra.Command {
	names := make([]string, 0, len(schemas))
	for n := range schemas {
		names = append(names, n)
	}
	slices.Sort(names)
	return &cobra.Command{
		Use:   "schema " + strings.Join(names, "|"),
		Short: "Print the JSON Schema of one of skillkit's formats",
		Long: `schema prints a JSON Schema (draft 2020-12) generated from skillkit's own Go
types, for editors and CI that check skillkit's output.`,
		Example:   "  skillkit schema plan > plan.schema.json",
		Args:      cobra.ExactArgs(1),
		ValidArgs: names,
		RunE: runE(func(c *cobra.Command, args []string) error {
			gen, ok := schemas[args[0]]
			if !ok {
				return usageErr(fmt.Errorf("unknown schema %q (want one of %s)", args[0], strings.Join(names, ", ")))
			}
			enc := json.NewEncoder(c.OutOrStdout())
			enc.SetIndent("", "  ")
			return enc.Encode(gen())
		}),
	}
}
