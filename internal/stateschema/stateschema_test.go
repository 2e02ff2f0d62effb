package stateschema

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func schema(t *testing.T, src string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(src), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func validate(t *testing.T, s *Schema, value string) []string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(value), &v); err != nil {
		t.Fatal(err)
	}
	vs, err := s.Validate(v)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, x := range vs {
		out = append(out, x.String())
	}
	return out
}

// Without $schema a schema is read as draft 2020-12 (prefixItems is a
// keyword); one that names draft-07 is read as draft-07 (items as a list
// is a tuple, prefixItems is nothing).
func TestDrafts(t *testing.T) {
	s, err := Compile("d2020", schema(t, `{"properties":{"pair":{"prefixItems":[{"type":"string"}]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := validate(t, s, `{"pair":[1]}`); len(got) != 1 || got[0] != "pair.0: expected string, but got number [type]" {
		t.Errorf("2020-12 violations = %q", got)
	}
	s7, err := Compile("d7", schema(t, `{"$schema":"http://json-schema.org/draft-07/schema#","properties":{"pair":{"items":[{"type":"string"}],"prefixItems":[{"type":"number"}]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := validate(t, s7, `{"pair":["a"]}`); got != nil {
		t.Errorf("draft-07 violations = %q, want none (prefixItems is no draft-07 keyword)", got)
	}
}

func TestValidateNamesFieldAndRule(t *testing.T) {
	s, err := Compile("state", schema(t, `{"type":"object","required":["status"],"properties":{
		"status":{"enum":["running","completed"]},
		"context":{"type":"object","properties":{"a/b":{"type":"integer"}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(validate(t, s, `{"context":{"a/b":"x"}}`), "\n")
	want := "(the state): missing properties: 'status' [required]\ncontext.a/b: expected integer, but got string [type]"
	if got != want {
		t.Errorf("violations:\n%s\nwant:\n%s", got, want)
	}
	if got := validate(t, s, `{"status":"running"}`); got != nil {
		t.Errorf("a valid state has violations %q", got)
	}
}

func TestCompileRefusesOutsideReferences(t *testing.T) {
	if _, err := Compile("state", schema(t, `{"$ref":"https://example.com/s.json"}`)); err == nil || !strings.Contains(err.Error(), "not followed") {
		t.Errorf("err = %v, want references outside the schema refused", err)
	}
}

func TestNavLookup(t *testing.T) {
	n := &Nav{Closed: true, Root: schema(t, `{"type":"object","properties":{
		"context":{"anyOf":[{"$ref":"#/$defs/Ctx"},{"type":"null"}]}},
		"$defs":{"Ctx":{"type":"object","properties":{"items":{"type":"array"}}}}}`)}
	for _, tc := range []struct {
		path string
		bad  int
		sub  bool
	}{
		{"context.items", -1, true},
		{"context.items.length", -1, false},
		{"context.nope", 1, false},
		{"nope", 0, false},
		{"error_count", -1, false}, // a base field: the runtime keeps it
	} {
		bad, sub := n.Lookup(strings.Split(tc.path, "."))
		if bad != tc.bad || (sub != nil) != tc.sub {
			t.Errorf("Lookup(%s) = %d, %v; want %d, sub %v", tc.path, bad, sub, tc.bad, tc.sub)
		}
	}
}

// TestCompileFileStaysInTheSkill: an output schema's references resolve
// to files of the skill only: file:// URLs, paths climbing out, links out
// and the network are refused without opening anything (N7).
func TestCompileFileStaysInTheSkill(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.json"), []byte(`Xsecret`), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "skill")
	files := map[string]string{
		"schemas/ok.json":    `{"$ref": "defs.json"}`,
		"schemas/defs.json":  `{"type": "array"}`,
		"schemas/file.json":  `{"$ref": "file://` + filepath.ToSlash(outside) + `/secret.json"}`,
		"schemas/climb.json": `{"$ref": "../../../../../../` + filepath.ToSlash(outside) + `/secret.json"}`,
		"schemas/link.json":  `{"$ref": "out.json"}`,
		"schemas/net.json":   `{"$ref": "http://127.0.0.1:1/s.json"}`,
	}
	for name, text := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(outside, "secret.json"), filepath.Join(dir, "schemas", "out.json")); err != nil {
		t.Fatal(err)
	}
	sch, err := CompileFile(dir, "schemas/ok.json")
	if err != nil {
		t.Fatalf("a reference inside the skill: %v", err)
	}
	if vs, _ := sch.Validate([]any{}); vs != nil {
		t.Errorf("the reference was not followed: %v", vs)
	}
	for _, name := range []string{"file", "climb", "link", "net"} {
		_, err := CompileFile(dir, "schemas/"+name+".json")
		if err == nil {
			t.Errorf("%s: compiled, want the reference refused", name)
		} else if strings.Contains(err.Error(), "'X'") || strings.Contains(err.Error(), "invalid character 'X'") {
			t.Errorf("%s: the file outside was read: %v", name, err)
		}
	}
}
