package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"
	"go.yaml.in/yaml/v3"
)

// schemaDir holds the committed schemas, for editors and CI that cannot
// run skillkit.
const schemaDir = "../../schemas"

// TestSchemasCurrent fails when a committed schema differs from what the
// Go types generate (go test ./cmd/skillkit -run SchemasCurrent -update).
func TestSchemasCurrent(t *testing.T) {
	for _, name := range schemaNames() {
		var got bytes.Buffer
		if err := writeJSON(&got, schemas[name]()); err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(schemaDir, name+".json")
		if *update {
			must(t, os.MkdirAll(schemaDir, 0o755))
			must(t, os.WriteFile(file, got.Bytes(), 0o644))
		}
		want, err := os.ReadFile(file)
		if err != nil || !bytes.Equal(want, got.Bytes()) {
			t.Errorf("schemas/%s.json is not what the code generates (go test ./cmd/skillkit -run SchemasCurrent -update)", name)
		}
	}
}

func compileSchema(t *testing.T, name string) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	data, err := os.ReadFile(filepath.Join(repoRoot(t), "schemas", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AddResource(name+".json", bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(name + ".json")
	if err != nil {
		t.Fatalf("schemas/%s.json does not compile: %v", name, err)
	}
	return s
}

// TestSchemasAcceptRealFiles validates real files against the committed
// schemas: a run's skill-state.yaml and state.json, and a lint config.
func TestSchemasAcceptRealFiles(t *testing.T) {
	root := repoRoot(t)
	example := filepath.Join(root, "examples", "autonomous")
	work := t.TempDir()
	t.Chdir(work)
	if code, _, stderr := run("run", example); code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	runs, _ := filepath.Glob(filepath.Join(work, ".skillkit", "runs", "*", "*"))
	if len(runs) != 1 {
		t.Fatalf("runs = %v", runs)
	}
	for _, tc := range []struct{ schema, file string }{
		{"run", filepath.Join(runs[0], "skill-state.yaml")},
		{"state", filepath.Join(runs[0], "state.json")},
	} {
		data, err := os.ReadFile(tc.file)
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if strings.HasSuffix(tc.file, ".yaml") {
			var y any
			must(t, yaml.Unmarshal(data, &y))
			// Through JSON, as an editor's YAML language server sees it.
			j, err := json.Marshal(y)
			must(t, err)
			must(t, json.Unmarshal(j, &v))
		} else {
			must(t, json.Unmarshal(data, &v))
		}
		if err := compileSchema(t, tc.schema).Validate(v); err != nil {
			t.Errorf("%s does not validate against schemas/%s.json: %v", tc.file, tc.schema, err)
		}
	}
	var cfg any
	must(t, yaml.Unmarshal([]byte("profile: agentskills\nrules:\n  link-broken: off\nignore: [\"templates/**\"]\n"), &cfg))
	if err := compileSchema(t, "config").Validate(cfg); err != nil {
		t.Errorf("a valid skillkit.yaml is refused: %v", err)
	}
	must(t, yaml.Unmarshal([]byte("profile: vscode\n"), &cfg))
	if compileSchema(t, "config").Validate(cfg) == nil {
		t.Error("an unknown profile is accepted")
	}
}
