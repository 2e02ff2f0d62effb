package parse

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/skillkit/skillkit/plan"
)

// FuzzParse feeds arbitrary bytes to the parser in each role a markdown
// file can take: entry document, phase, action, orchestrator, state schema
// and catalog. The parser must never panic and every position it reports
// must lie inside the file.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"---\nname: x\n---\n# T\n",
		stepPhase,
		"# Action\n## Preconditions\n- [ ] status=pending, count<3\n  - a_b\n## Execution\n```js\nasync function execute(s){}\n```\n",
		"```typescript\ninterface XState { a: 'x' | 'y'; b?: Array<Record<string, {c: number}[]>> | null }\n```\n## Initial State\n```json\n{\"a\":\"x\"}\n```\n",
		"| Action | Preconditions |\n|---|---|\n| [a](x.md) | `s=1` |\n```mermaid\ngraph TD\nA[action-a] --> B((action-b)) & C\n```\n",
		"````markdown\n```js\n````\n```\n",
		"---\r\nname: [\r\n",
		"# P\n## Execution\n### Step 1: T\n- **Tool**: mcp__a-b__c\n- **Save as**: k\n\n```yaml\nq: [1, {x: y}]\n```\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		for _, p := range []string{"SKILL.md", "phases/01-a.md", "phases/orchestrator.md", "phases/actions/action-a.md", "phases/state-schema.md", "specs/action-catalog.md"} {
			full := filepath.Join(dir, p)
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(full, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		s, err := Dir(dir)
		if err != nil {
			t.Fatal(err)
		}
		// Lines as the parser counts them: a lone \r ends one too.
		lines := 1 + bytes.Count(NormalizeNewlines(data), []byte("\n"))
		check := func(p plan.Pos) {
			if p.Line < 0 || p.Line > lines+1 || p.Col < 0 {
				t.Fatalf("position %v outside a %d-line file", p, lines)
			}
		}
		for _, d := range s.Diagnostics {
			check(d.Pos)
		}
		for _, ph := range s.Phases {
			for _, st := range ph.Steps {
				check(st.Pos)
			}
		}
		for _, a := range s.Actions {
			for _, pc := range a.Preconditions {
				check(pc.Pos)
			}
		}
		if s.Catalog != nil {
			for _, r := range s.Catalog.Rows {
				check(r.Pos)
			}
		}
	})
}

// FuzzToJS checks the precondition normalizer on arbitrary text: it never
// panics, and what it calls JavaScript parses as an expression.
func FuzzToJS(f *testing.F) {
	for _, s := range []string{"status=pending", "a.b>3, c", "`state.x === 1`", "!x_y", "error_count>MAX_RETRIES", "state.a ? b : c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		js := toJS(s)
		if js != "" && !isExpression(js) {
			t.Fatalf("toJS(%q) = %q, which is not an expression", s, js)
		}
	})
}

// FuzzFrontMatter checks the front matter reader on arbitrary files: it
// never panics, keeps the body's line numbers (the blanked block has as
// many lines as it replaced) and reports positions inside the block.
func FuzzFrontMatter(f *testing.F) {
	for _, s := range []string{
		"---\nname: x\ndescription: y\n---\n# T\n",
		"---\nname: [\n---\n",
		"---\nname: x\n",
		"---\n- a\n- b\n---\n",
		"---\na: &x [*x]\n---\n",
		"---\nmetadata:\n  k: {a: 1, 2: b}\n...\nbody\n",
		"--- \n\n---",
		"---\nname: x\nname: y\n---\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		fm, body := splitFrontMatter("SKILL.md", src)
		if n, m := bytes.Count(src, []byte("\n")), bytes.Count(body, []byte("\n")); n != m {
			t.Fatalf("body has %d newlines, the file %d: line numbers shifted", m, n)
		}
		if fm == nil {
			return
		}
		lines := bytes.Count(src, []byte("\n")) + 1
		inside := func(p plan.Pos) {
			if p.File != "SKILL.md" || p.Line < 1 || p.Line > lines || p.Col < 0 {
				t.Fatalf("position %v outside the %d-line file", p, lines)
			}
		}
		if fm.Error != nil {
			inside(fm.Error.Pos)
		}
		for _, fl := range fm.Fields {
			inside(fl.Pos)
			inside(fl.ValuePos)
			if _, err := json.Marshal(fl.Value); err != nil {
				t.Fatalf("field %s holds %#v, which does not encode as JSON: %v", fl.Key, fl.Value, err)
			}
		}
	})
}

// FuzzConvertTS checks the TypeScript-interface converter: it never panics
// or loops, what it produces is a JSON Schema that compiles, and its notes
// point inside the block.
func FuzzConvertTS(f *testing.F) {
	for _, s := range []string{
		"interface XState { a: 'x' | 'y'; b?: Array<Record<string, {c: number}[]>> | null }",
		"export interface A extends B, C<D> { [k: string]: number; m(): void; readonly r: A }\ninterface B { b: string }",
		"type T = (a: number) => string; type U<V> = V[]; interface S { t: T; u: U<number>; q: ns.Q }",
		"interface S { tuple: [string, number]; lit: 1 | -2.5 | true; d: Date; /* c */ e: `x` }",
		"interface S { a: {",
		"interface A extends A { x: A }",
		"type X = | 'a' | 'b' & {",
		"interface S { a?: (string | null) | undefined; b?: ('x' | null)[]; c?: any }",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		block := &plan.CodeBlock{Lang: "typescript", Text: src, Pos: plan.Pos{File: "s.md", Line: 3, Col: 1}, Body: plan.Pos{File: "s.md", Line: 4, Col: 1}}
		schema, root, notes, ok := convertTS(block)
		lines := strings.Count(src, "\n") + 1
		for _, n := range notes {
			if n.Pos.Line < 4 || n.Pos.Line >= 4+lines || n.Pos.Col < 1 {
				t.Fatalf("note %q at %v, outside the block (lines 4-%d)", n.Message, n.Pos, 3+lines)
			}
		}
		if !ok {
			return
		}
		if root == "" {
			t.Fatal("a schema without a root name")
		}
		data, err := json.Marshal(schema)
		if err != nil {
			t.Fatalf("schema does not encode: %v", err)
		}
		c := jsonschema.NewCompiler()
		if err := c.AddResource("state.json", bytes.NewReader(data)); err != nil {
			t.Fatalf("schema is not JSON: %v", err)
		}
		if _, err := c.Compile("state.json"); err != nil {
			t.Fatalf("schema %s does not compile: %v", data, err)
		}
	})
}

// FuzzStepAttrs checks the step-attribute reader (Condition, Confirm,
// On error, Timeout) through a small phase document: it never panics, and
// what it accepts is within the documented values.
func FuzzStepAttrs(f *testing.F) {
	for _, s := range [][2]string{
		{"Confirm", "Overwrite report? (default: skip, timeout: 30s)"},
		{"Confirm", "Go on? (default: maybe, timeout: -3)"},
		{"On error", "retry 3 backoff 2s"},
		{"On error", "retry 99999999999999999999"},
		{"On error", "retry 1000000000 backoff 1ns"},
		{"On error", "retry 3 backoff -1s"},
		{"On error", "retry 2 backoff 2h"},
		{"On-error", "`continue`"},
		{"Timeout", "2m"},
		{"Timeout", "-1s"},
		{"Condition", "state.files.length > 0"},
		{"Condition", "status=pending, n<3"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, key, val string) {
		src := "# Phase 1: A\n## Execution\n### Step 1: Do\n- **" + key + "**: " + val + "\n- **Timeout**: 1m\n```bash\ntrue\n```\n"
		m := readMarkdown("phases/01-a.md", []byte(src))
		p := readPhase(m, plan.Number{Raw: "01", Major: 1}, "a")
		for _, st := range p.Steps {
			a := st.Attrs
			if c := a.Confirm; c != nil {
				switch c.Default {
				case plan.ConfirmYes, plan.ConfirmSkip, plan.ConfirmAbort, plan.ConfirmAgent:
				default:
					t.Fatalf("Confirm default %q", c.Default)
				}
				if c.Timeout < 0 {
					t.Fatalf("negative Confirm timeout %v", c.Timeout)
				}
			}
			if oe := a.OnError; oe != nil {
				if oe.Policy != plan.OnErrorAbort && oe.Policy != plan.OnErrorContinue && oe.Policy != plan.OnErrorRetry {
					t.Fatalf("On error policy %q", oe.Policy)
				}
				if oe.Retries < 0 || oe.Retries > plan.MaxRetries || oe.Backoff != 0 && (oe.Backoff < plan.MinBackoff || oe.Backoff > plan.MaxBackoff) {
					t.Fatalf("On error retries %d backoff %v, outside the bounds", oe.Retries, oe.Backoff)
				}
			}
			if a.Timeout != nil && a.Timeout.Duration <= 0 {
				t.Fatalf("Timeout %v", a.Timeout.Duration)
			}
			if c := a.Condition; c != nil && c.JS != "" && !isExpression(c.JS) {
				t.Fatalf("Condition %q became %q, not an expression", c.Text, c.JS)
			}
		}
		for _, d := range m.diags {
			if d.Pos.Line < 1 || d.Pos.Line > strings.Count(src, "\n")+1 {
				t.Fatalf("diagnostic %q at %v, outside the file", d.Message, d.Pos)
			}
		}
	})
}
