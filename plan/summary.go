package plan

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// WriteSummary writes a human-readable account of the plan: mode, phases
// in order with their steps, actions with preconditions, catalog, state.
func (s *Skill) WriteSummary(w io.Writer) error {
	p := &printer{w: w}
	p.line("skill %s (%s)", s.Name, s.Mode)
	if s.Entry != "" {
		p.line("entry  %s", s.Entry)
	}
	if u := s.AgentUnit(); u != nil {
		p.line("")
		p.line("one agent unit: %s with the listing of %d file(s)", s.Entry, len(s.Files)-1)
		p.line("  %s: %s", u.Steps[0].Class.Kind, u.Steps[0].Class.Reason)
	}
	if len(s.Phases) > 0 {
		p.line("")
		p.line("phases (in order):")
		for _, ph := range s.Phases {
			kind := ""
			if ph.IsOrchestrator {
				kind = "  [orchestrator loop]"
			}
			p.line("  %-5s %s  %s%s", ph.Number.Raw, ph.Doc.File, ph.Title, kind)
			for _, st := range ph.Steps {
				p.line("        step %-4s %-8s %s", orDash(st.Number), st.KindLabel(), st.Title)
				p.line("             %s: %s", st.Class.Kind, st.Class.Reason)
			}
			for _, u := range ph.Unreached() {
				p.line("        unreached %s (line %d) under %s: neither run nor sent to the agent", u.Heading.Markdown(), u.Heading.Pos.Line, u.Under.Markdown())
			}
			for _, o := range ph.Outputs {
				p.line("        output %s %s", o.File, o.Format)
			}
		}
	}
	if o := s.Orchestrator; o != nil {
		p.line("")
		how := "declarative selection from the catalog"
		if o.Decision != nil {
			how = "selectNextAction at " + o.Decision.Pos.String()
		} else if s.selectsOnProse() {
			how += "; with an agent, the agent selects: a precondition is prose"
		}
		p.line("orchestrator  %s (%s)", o.Doc.File, how)
	}
	if len(s.Actions) > 0 {
		p.line("")
		p.line("actions:")
		for _, a := range s.Actions {
			p.line("  %-28s %-6s %s", a.ID, a.Execution.Kind, a.Doc.File)
			p.line("    %s: %s", a.Execution.Class.Kind, a.Execution.Class.Reason)
			writePre(p, a.Preconditions, "    ")
			for _, h := range a.Hints {
				p.line("    next %s: %s%s", h.Label, h.Action, s.unfiledNote(h.Action))
			}
		}
	}
	if c := s.Catalog; c != nil {
		p.line("")
		p.line("catalog  %s (%d rows, %d graph edges)", c.File, len(c.Rows), len(c.Edges))
		for _, r := range c.Rows {
			note := ""
			if s.ResolveRow(r) == nil {
				note = s.unfiledNote(r.Action)
			}
			p.line("  %s%s", r.Action, note)
			writePre(p, r.Preconditions, "    ")
		}
	}
	if ss := s.StateSchema; ss != nil {
		p.line("")
		p.line("state  %s (%s, root %s)", ss.File, orDash(ss.Source), orDash(ss.Root))
		if props, ok := ss.Schema["properties"].(map[string]any); ok {
			keys := make([]string, 0, len(props))
			for k := range props {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			p.line("  fields: %s", strings.Join(keys, ", "))
		}
		if ss.Initial != nil {
			p.line("  initial state at %s", ss.InitialPos)
		}
	}
	if len(s.Diagnostics) > 0 {
		p.line("")
		p.line("%d diagnostics (run skillkit lint for details)", len(s.Diagnostics))
	}
	return p.err
}

func writePre(p *printer, ps []*Precondition, indent string) {
	for _, pc := range ps {
		if pc.Checkable() {
			p.line("%spre  %s", indent, pc.JS)
		} else if pc.Text != "" {
			p.line("%spre  (prose, not checked) %s", indent, pc.Text)
		}
		if len(pc.AnyOf) > 0 {
			p.line("%s  any of:", indent)
			writePre(p, pc.AnyOf, indent+"    ")
		}
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// printer writes lines and keeps the first error, so the summary reads as
// a list of lines rather than a ladder of error checks.
type printer struct {
	w   io.Writer
	err error
}

func (p *printer) line(format string, args ...any) {
	if p.err != nil {
		return
	}
	_, p.err = fmt.Fprintf(p.w, format+"\n", args...)
}

// unfiledNote marks an action name with no file: a run that selects it
// hands it to the agent (UnfiledAction).
func (s *Skill) unfiledNote(name string) string {
	if s.ResolveAction(name) != nil || !IsActionName(name) {
		return ""
	}
	return "  (no file: the agent does it, from what the skill says of it)"
}

// selectsOnProse reports whether a precondition the declarative
// selection weighs (Candidates) is prose: without Decision Logic, a run
// with an agent then lets the agent select (docs/runtime.md, "The loop").
func (s *Skill) selectsOnProse() bool {
	for _, c := range s.Candidates() {
		if Prose(c.Pre) {
			return true
		}
	}
	return false
}
