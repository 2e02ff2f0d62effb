package parse

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/skillkit/skillkit/plan"
)

func convert(t *testing.T, ts string) (map[string]any, []plan.Diagnostic) {
	t.Helper()
	schema, _, notes, ok := convertTS(&plan.CodeBlock{Text: ts, Body: plan.Pos{File: "s.md", Line: 10, Col: 1}})
	if !ok {
		t.Fatalf("nothing declared in %q", ts)
	}
	return schema, notes
}

func compile(t *testing.T, schema map[string]any) *jsonschema.Schema {
	t.Helper()
	data, _ := json.Marshal(schema)
	c := jsonschema.NewCompiler()
	if err := c.AddResource("s.json", strings.NewReader(string(data))); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("s.json")
	if err != nil {
		t.Fatalf("schema does not compile: %v\n%s", err, data)
	}
	return s
}

func TestConvertTS(t *testing.T) {
	schema, notes := convert(t, `
interface Item { id: string; tags?: string[] }
export interface DemoState {
  status: 'pending' | 'running' | 'completed' | 'failed'; // the run
  count: number
  done: boolean,
  items: Item[];
  more: Array<Item>;
  byName: Record<string, number>;
  parent: Item | null;
  nested: { a: string; b?: 1 | 2 };
  anything: any;
  /* a comment */ cb: () => void;
  self?: DemoState;
}`)
	if schema["title"] != "DemoState" {
		t.Errorf("root = %v, want DemoState (named like *State)", schema["title"])
	}
	if len(notes) != 1 || notes[0].Pos.Line != 22 || !strings.Contains(notes[0].Message, "function") {
		t.Errorf("notes = %v, want one for the function type at line 22", notes)
	}
	s := compile(t, schema)
	good := `{"status":"running","count":1,"done":false,"items":[{"id":"a"}],"more":[],"byName":{"x":1},
	  "parent":null,"nested":{"a":"x","b":2},"anything":{"z":[1]},"cb":"?","self":{"status":"failed","count":0,
	  "done":true,"items":[],"more":[],"byName":{},"parent":{"id":"p"},"nested":{"a":""},"anything":null,"cb":1}}`
	var v any
	if err := json.Unmarshal([]byte(good), &v); err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(v); err != nil {
		t.Errorf("valid state refused: %v", err)
	}
	for _, bad := range []string{
		`"status":"done"`, `"count":"1"`, `"items":[{"tags":["x"]}]`, `"byName":{"x":"y"}`, `"nested":{"a":"x","b":3}`,
	} {
		doc := strings.Replace(good, `"status":"running","count":1,"done":false,"items":[{"id":"a"}],"more":[],"byName":{"x":1},`+"\n\t  "+`"parent":null,"nested":{"a":"x","b":2}`,
			`"status":"running","count":1,"done":false,"items":[{"id":"a"}],"more":[],"byName":{"x":1},"parent":null,"nested":{"a":"x","b":2},`+bad, 1)
		var bv map[string]any
		if err := json.Unmarshal([]byte(doc), &bv); err != nil {
			t.Fatalf("%s: %v", bad, err)
		}
		if err := s.Validate(bv); err == nil {
			t.Errorf("state with %s accepted", bad)
		}
	}
}

func TestConvertTSExtendsAndAliases(t *testing.T) {
	schema, notes := convert(t, `
type Level = 'low' | 'high';
interface Base { id: string; level: Level }
interface Child extends Base { extra?: number }
interface RunState { child: Child; unknownRef: Missing; gen: Map<string, number> }`)
	if len(notes) != 2 {
		t.Errorf("notes = %v, want Missing and Map<…>", notes)
	}
	s := compile(t, schema)
	var ok, bad any
	_ = json.Unmarshal([]byte(`{"child":{"id":"a","level":"low"},"unknownRef":5,"gen":{}}`), &ok)
	_ = json.Unmarshal([]byte(`{"child":{"level":"mid"},"unknownRef":5,"gen":{}}`), &bad)
	if err := s.Validate(ok); err != nil {
		t.Errorf("valid refused: %v", err)
	}
	if err := s.Validate(bad); err == nil {
		t.Error("child without id and with level mid accepted: extends not applied")
	}
}

// TestConvertTSOptionalNull holds the rule of docs/format.md: an optional
// property accepts null (review-code's initial state and code write null
// on its optional fields), a required one only when its type says so, and
// a null already in the type is not doubled.
func TestConvertTSOptionalNull(t *testing.T) {
	schema, _ := convert(t, `
interface ReviewState {
  framework?: string;
  kind?: 'a' | 'b';
  summary?: { total: number };
  maybe?: (string | null);
  tags?: string[];
  name: string;
  parent: string | null;
}`)
	s := compile(t, schema)
	props := schema["properties"].(map[string]any)
	if got := props["maybe"]; !reflect.DeepEqual(got, map[string]any{"type": []any{"string", "null"}}) {
		t.Errorf("maybe?: (string | null) = %v, want one type list with one null", got)
	}
	for _, doc := range []string{
		`{"name":"x","parent":null,"framework":null,"kind":null,"summary":null,"maybe":null,"tags":null}`,
		`{"name":"x","parent":"p","framework":"React","kind":"b","summary":{"total":1},"maybe":"m","tags":["t"]}`,
		`{"name":"x","parent":null}`,
	} {
		var v any
		_ = json.Unmarshal([]byte(doc), &v)
		if err := s.Validate(v); err != nil {
			t.Errorf("%s refused: %v", doc, err)
		}
	}
	for _, doc := range []string{`{"name":null,"parent":null}`, `{"name":"x","parent":null,"kind":"c"}`, `{"name":"x","parent":null,"framework":1}`} {
		var v any
		_ = json.Unmarshal([]byte(doc), &v)
		if err := s.Validate(v); err == nil {
			t.Errorf("%s accepted", doc)
		}
	}
}

// TestConvertCorpusSchemas converts every state-schema.md of the corpus:
// each gives a schema that compiles.
func TestConvertCorpusSchemas(t *testing.T) {
	skills(t)
	n := 0
	err := filepath.WalkDir(corpusDir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.Name() != "state-schema.md" {
			return err
		}
		skillDir := filepath.Dir(filepath.Dir(p))
		s, err := Dir(skillDir)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			return nil
		}
		src, _ := os.ReadFile(p)
		if !strings.Contains(string(src), "```typescript") {
			return nil // a json example of state.json, not a schema
		}
		if s.StateSchema == nil || s.StateSchema.Schema == nil {
			t.Errorf("%s: no schema converted", p)
			return nil
		}
		compile(t, s.StateSchema.Schema)
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 5 {
		t.Errorf("converted %d corpus schemas, want at least 5", n)
	}
}

func TestConvertTSDeepNesting(t *testing.T) {
	src := "interface XState { a: " + strings.Repeat("{ b: ", 100000) + "string" + strings.Repeat(" }", 100000) + " }"
	schema, _, notes, ok := convertTS(&plan.CodeBlock{Text: src, Body: plan.Pos{File: "s.md", Line: 2, Col: 1}})
	if !ok || schema == nil {
		t.Fatal("no schema")
	}
	if len(notes) != 1 || !strings.Contains(notes[0].Message, "nest more than") {
		t.Fatalf("notes = %v, want one about nesting", notes)
	}
}

func TestConvertTSSelfReference(t *testing.T) {
	for _, src := range []string{"type A = A", "type A = B | string; type B = A & {x: number}", "interface XState { a: A }\ntype A = A | null"} {
		schema, _, notes, ok := convertTS(&plan.CodeBlock{Text: src, Body: plan.Pos{File: "s.md", Line: 2, Col: 1}})
		if !ok {
			t.Fatalf("%s: no schema", src)
		}
		if !slices.ContainsFunc(notes, func(d plan.Diagnostic) bool { return strings.Contains(d.Message, "in terms of itself") }) {
			t.Errorf("%s: notes %v say nothing of the cycle", src, notes)
		}
		data, _ := json.Marshal(schema)
		c := jsonschema.NewCompiler()
		if err := c.AddResource("s.json", bytes.NewReader(data)); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Compile("s.json"); err != nil {
			t.Errorf("%s: schema %s does not compile: %v", src, data, err)
		}
	}
}
