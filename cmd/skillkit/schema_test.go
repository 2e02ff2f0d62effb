package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"
	"github.com/skillkit/skillkit/internal/testfs"
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
	return compileFile(t, filepath.Join(repoRoot(t), "schemas", name+".json"))
}

func compileFile(t *testing.T, file string) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Base(file)
	if err := c.AddResource(name, bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(name)
	if err != nil {
		t.Fatalf("%s does not compile: %v", file, err)
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
		{"progress", filepath.Join(runs[0], "skill-state.yaml")},
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

// yamlValue reads YAML as an editor's language server sees it: through
// JSON (timestamps become strings).
func yamlValue(t *testing.T, data []byte) any {
	t.Helper()
	var y, v any
	must(t, yaml.Unmarshal(data, &y))
	j, err := json.Marshal(y)
	must(t, err)
	must(t, json.Unmarshal(j, &v))
	return v
}

// TestProgressSpecExamples validates the two example documents of the
// skill-state specification (shared/seeds/002), verbatim, against the
// progress schema: a file written to the specification is a progress file.
func TestProgressSpecExamples(t *testing.T) {
	spec := filepath.Join(repoRoot(t), "..", "shared", "seeds", "002_f55d8978bb89d29c.txt")
	data, err := os.ReadFile(spec)
	if os.IsNotExist(err) {
		t.Skipf("the specification is not at %s: skipping (it sits beside the repository in ../shared)", spec)
	}
	must(t, err)
	examples := regexp.MustCompile("(?s)## Example: [^\n]+\n\n```yaml\n(.*?)```").FindAllStringSubmatch(string(data), -1)
	if len(examples) != 2 {
		t.Fatalf("found %d examples in the specification, want 2", len(examples))
	}
	schema, handWritten := compileSchema(t, "progress"), compileFile(t, filepath.Join("testdata", "skill-state.spec.json"))
	for _, ex := range examples {
		if err := schema.Validate(yamlValue(t, []byte(ex[1]))); err != nil {
			t.Errorf("an example of the specification does not validate: %v\n%s", err, ex[1])
		}
		if err := handWritten.Validate(yamlValue(t, []byte(ex[1]))); err != nil {
			t.Errorf("an example of the specification does not validate against testdata/skill-state.spec.json: %v\n%s", err, ex[1])
		}
		checkProgressFile(t, []byte(ex[1]), -1)
	}
}

// TestProgressFilesValidate validates the progress files of runs of every
// kind (completed, failed, retried, interrupted, autonomous, hybrid)
// against skillkit's progress schema and against one written by hand from
// the specification (testdata/skill-state.spec.json), and checks what a
// schema cannot say: step numbers unique and in order, none past
// totalSteps, timestamps strings, evidence completed only on success.
func TestProgressFilesValidate(t *testing.T) {
	root := repoRoot(t)
	bad := filepath.Join(t.TempDir(), "fails")
	testfs.WriteTree(t, bad, map[string]string{
		"SKILL.md":       frontMatter("fails"),
		"phases/01-a.md": "# Phase 1: A\n\n## Execution\n\n```bash\necho oops >&2; exit 4\n```\n",
	})
	retried, fixed := filepath.Join(t.TempDir(), "retried"), filepath.Join(t.TempDir(), "fixed")
	testfs.WriteTree(t, retried, map[string]string{
		"SKILL.md": frontMatter("retried"),
		"phases/01-a.md": "# Phase 1: A\n\n## Execution\n\n### Step 1: One\n\n```bash\ntrue\n```\n\n" +
			"### Step 2: Two\n\n```bash\ntest -f " + fixed + "\n```\n\n### Step 3: Three\n\n```bash\ntrue\n```\n",
	})
	asks := filepath.Join(t.TempDir(), "asks")
	testfs.WriteTree(t, asks, map[string]string{
		"SKILL.md":       frontMatter("asks"),
		"phases/01-a.md": "# Phase 1: A\n\n## Execution\n\n```bash\ntrue\n```\n",
		"phases/02-b.md": "# Phase 2: B\n\n## Execution\n\nThink.\n",
	})
	schema, spec := compileSchema(t, "progress"), compileFile(t, filepath.Join("testdata", "skill-state.spec.json"))
	for _, tc := range []struct {
		name  string
		runs  [][]string
		code  int
		steps int
	}{
		{"completed", [][]string{{"run", filepath.Join(root, "examples", "sequential")}}, 0, -1},
		{"failed", [][]string{{"run", bad}}, 1, 1},
		{"retried", [][]string{{"run", retried}, {"!touch", fixed}, {"run", retried, "--resume", "last", "--retry"}}, 0, 3},
		{"interrupted", [][]string{{"run", asks, "--partial"}}, 1, 1},
		{"autonomous", [][]string{{"run", filepath.Join(root, "examples", "autonomous")}}, 0, -1},
		{"hybrid", [][]string{{"run", filepath.Join(root, "examples", "hybrid"), "--input", "text=a b a"}}, 0, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			work := t.TempDir()
			t.Chdir(work)
			code, stderr := 0, ""
			for _, args := range tc.runs {
				if args[0] == "!touch" {
					must(t, os.WriteFile(args[1], nil, 0o644))
					continue
				}
				code, _, stderr = run(args...)
			}
			if code != tc.code {
				t.Fatalf("exit %d, want %d: %s", code, tc.code, stderr)
			}
			files, _ := filepath.Glob(filepath.Join(work, ".skillkit", "runs", "*", "*", "skill-state.yaml"))
			if len(files) != 1 {
				t.Fatalf("progress files %v", files)
			}
			data, err := os.ReadFile(files[0])
			must(t, err)
			v := yamlValue(t, data)
			if err := schema.Validate(v); err != nil {
				t.Errorf("%s does not validate: %v\n%s", files[0], err, data)
			}
			if err := spec.Validate(v); err != nil {
				t.Errorf("%s does not validate against the specification's schema: %v\n%s", files[0], err, data)
			}
			checkProgressFile(t, data, tc.steps)
		})
	}
}

// checkProgressFile checks what a schema cannot: steps numbered 1, 2, 3 …
// (so unique), none past totalSteps, no timestamp that a YAML loader would
// read as a date, and evidence completed only when a skillkit run (one
// with a runState) completed: the specification's own failed example
// marks evidence completed, its evidence being per-step captures, where
// skillkit's is the declared outputs verified. steps, when not -1, is how
// many records there must be.
func checkProgressFile(t *testing.T, data []byte, steps int) {
	t.Helper()
	var p struct {
		CurrentStep     int                  `yaml:"currentStep"`
		TotalSteps      int                  `yaml:"totalSteps"`
		CompletedSteps  []struct{ Step int } `yaml:"completedSteps"`
		ChecklistStatus map[string]string    `yaml:"checklistStatus"`
		RunState        string               `yaml:"runState"`
	}
	var node yaml.Node
	must(t, yaml.Unmarshal(data, &node))
	must(t, node.Decode(&p))
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n.Tag == "!!timestamp" {
			t.Errorf("line %d: %q reads as a YAML timestamp, not the specification's string", n.Line, n.Value)
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(&node)
	for i, s := range p.CompletedSteps {
		if s.Step != i+1 {
			t.Errorf("completedSteps[%d] is step %d, want %d:\n%s", i, s.Step, i+1, data)
		}
	}
	if steps >= 0 && len(p.CompletedSteps) != steps {
		t.Errorf("%d completed steps, want %d:\n%s", len(p.CompletedSteps), steps, data)
	}
	if p.CurrentStep > p.TotalSteps || len(p.CompletedSteps) > p.TotalSteps {
		t.Errorf("currentStep %d, %d records, past totalSteps %d:\n%s", p.CurrentStep, len(p.CompletedSteps), p.TotalSteps, data)
	}
	if p.RunState != "" && p.ChecklistStatus["evidence"] == "completed" && p.RunState != "completed" {
		t.Errorf("evidence completed on a %s run:\n%s", p.RunState, data)
	}
}

// TestTestFilesValidate validates the committed test files, the
// examples' and those skillkit new writes, against schemas/test.json.
func TestTestFilesValidate(t *testing.T) {
	root := repoRoot(t)
	files, _ := filepath.Glob(filepath.Join(root, "examples", "*", "tests", "*.yaml"))
	golden, _ := filepath.Glob(filepath.Join(root, "scaffold", "testdata", "golden", "*", "tests", "*.yaml"))
	files = append(files, golden...)
	if len(files) < 6 {
		t.Fatalf("found %d test files, want the examples' and the scaffolds'", len(files))
	}
	schema := compileSchema(t, "test")
	for _, file := range files {
		data, err := os.ReadFile(file)
		must(t, err)
		var y, v any
		must(t, yaml.Unmarshal(data, &y))
		j, err := json.Marshal(y)
		must(t, err)
		must(t, json.Unmarshal(j, &v))
		if err := schema.Validate(v); err != nil {
			t.Errorf("%s does not validate against schemas/test.json: %v", file, err)
		}
	}
}
