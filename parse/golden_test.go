package parse

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/skillkit/skillkit/plan"
)

var update = flag.Bool("update", false, "rewrite golden files with the current output")

// TestGoldenPlans pins the structure of the plan, positions included, of a
// few corpus skills: one of each mode and the Codex layout. The outline keeps
// headings and expressions but not the skills' prose, which stays in the
// corpus.
func TestGoldenPlans(t *testing.T) {
	skills(t)
	for name, dir := range map[string]string{
		"memory-capture": "catlog22__Claude-Code-Workflow/.claude/skills/memory-capture",
		"ccw-loop":       "catlog22__Claude-Code-Workflow/.claude/skills/ccw-loop",
		"ccw-loop-codex": "catlog22__Claude-Code-Workflow/.codex/skills/ccw-loop",
		"ship-codex":     "catlog22__Claude-Code-Workflow/.codex/skills/ship",
	} {
		t.Run(name, func(t *testing.T) {
			s := mustDir(t, filepath.Join(corpusDir, dir))
			var got bytes.Buffer
			outline(&got, s)
			golden := filepath.Join("testdata", "golden", name+".txt")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./parse -run Golden -update)", err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Errorf("plan of %s differs from %s; inspect with go test ./parse -run Golden -update && git diff", dir, golden)
			}
		})
	}
}

// outline writes one line per plan element with its position.
func outline(w io.Writer, s *plan.Skill) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format+"\n", args...) }
	p("skill %s mode %s entry %s files %d", s.Name, s.Mode, s.Entry, len(s.Files))
	if fm := s.FrontMatter; fm != nil {
		for _, f := range fm.Fields {
			p("front %s at %s value at %s", f.Key, f.Pos, f.ValuePos)
		}
	}
	for _, ph := range s.Phases {
		p("phase %s %q at %s orchestrator=%v", ph.Number.Raw, ph.Title, ph.Doc.TitlePos, ph.IsOrchestrator)
		for _, st := range ph.Steps {
			var code []string
			for _, c := range st.Code {
				code = append(code, fmt.Sprintf("%s@%d", c.Lang, c.Pos.Line))
			}
			p("  step %s %q at %s %s %v", st.Number, st.Title, st.Pos, st.Kind(), code)
			p("    %s: %s at %s", st.Class.Kind, st.Class.Reason, st.Class.Pos)
		}
		for _, o := range ph.Outputs {
			p("  output %s %s at %s", o.File, o.Format, o.Pos)
		}
		if ph.Next != nil {
			p("  next %s at %s", ph.Next.Target, ph.Next.Pos)
		}
	}
	if o := s.Orchestrator; o != nil {
		dec := "-"
		if o.Decision != nil {
			dec = o.Decision.Pos.String()
		}
		p("orchestrator %s decision %s declarations %d", o.Doc.File, dec, len(o.Declarations))
	}
	for _, a := range s.Actions {
		p("action %s %s at %s", a.ID, a.Execution.Kind, a.Execution.Pos)
		p("  %s: %s at %s", a.Execution.Class.Kind, a.Execution.Class.Reason, a.Execution.Class.Pos)
		for _, pc := range a.Preconditions {
			p("  pre at %s js %q any-of %d", pc.Pos, pc.JS, len(pc.AnyOf))
		}
		if a.StateUpdates != nil {
			p("  state updates at %s", a.StateUpdates.Pos)
		}
		for _, h := range a.Hints {
			p("  hint %s at %s", h.Action, h.Pos)
		}
	}
	if c := s.Catalog; c != nil {
		p("catalog %s at %s", c.File, c.Pos)
		for _, r := range c.Rows {
			js := ""
			if len(r.Preconditions) > 0 {
				js = r.Preconditions[0].JS
			}
			p("  row %s link %s at %s js %q", r.Action, r.Link, r.Pos, js)
		}
		for _, e := range c.Edges {
			p("  edge %s[%s] -> %s[%s] at %s", e.From.ID, e.From.Label, e.To.ID, e.To.Label, e.To.Pos)
		}
	}
	if ss := s.StateSchema; ss != nil {
		var fields []string
		if props, ok := ss.Schema["properties"].(map[string]any); ok {
			for k := range props {
				fields = append(fields, k)
			}
		}
		slices.Sort(fields)
		p("state %s source %s root %s fields %v initial at %s", ss.File, ss.Source, ss.Root, fields, ss.InitialPos)
	}
	for _, d := range s.Diagnostics {
		p("diagnostic %s", d)
	}
}
