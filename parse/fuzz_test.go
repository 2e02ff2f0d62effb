package parse

import (
	"os"
	"path/filepath"
	"testing"

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
		lines := 1
		for _, c := range data {
			if c == '\n' {
				lines++
			}
		}
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
