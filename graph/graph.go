// Package graph draws a skill as a graph: the phase flow of a sequential
// skill, the action graph of an autonomous one, both for a hybrid, in
// mermaid (which GitHub renders as it is) or Graphviz dot.
package graph

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/skillkit/skillkit/plan"
)

// Node is a phase or an action.
type Node struct {
	ID    string
	Label string
	// Unit is what a run's record calls the phase or action (its events'
	// phase or action field); empty for a node that is no unit
	// (selectNextAction).
	Unit string
	// Loop marks the orchestrator phase of a hybrid skill, which holds the
	// action graph.
	Loop bool
}

// Edge goes from one node to another. Label is the hint that names the
// target, or says that the edge is a Next Phase link; Cond is the
// target action's preconditions, in JavaScript. A Link edge is a Next
// Phase link that does not follow the execution order, drawn dashed: the
// runner goes by number, the author's link says otherwise.
type Edge struct {
	From, To string
	Label    string
	Cond     string
	Link     bool
	// Back is an action's return to the selection, which runs again
	// after every action: drawn dashed where no action names a next one,
	// so that the loop shows as one.
	Back bool
	// distinct is the part of Cond that tells it from the conditions it
	// shares clauses with: what the edge shows.
	distinct string
}

// Graph is what both formats draw.
type Graph struct {
	Phases  []Node
	Flow    []Edge
	Actions []Node
	Loop    []Edge
	// Run is how far a run got with each node, by node id, once Paint
	// read a run's record; nil draws the skill alone.
	Run map[string]Outcome
}

// Returns lists, for each selecting function, the action ids it can return;
// callers that can read JavaScript pass it in so this package needs no JS
// parser. nil is fine: the edges then come from the catalog and the hints.
type Returns func(o *plan.Orchestrator) []string

// Build derives the graph of a skill.
func Build(s *plan.Skill, returns Returns) *Graph {
	g := &Graph{}
	for i, p := range s.Phases {
		g.Phases = append(g.Phases, Node{ID: phaseID(p), Label: phaseLabel(p), Unit: p.ID(), Loop: p.IsOrchestrator})
		if i+1 < len(s.Phases) {
			g.Flow = append(g.Flow, Edge{From: phaseID(p), To: phaseID(s.Phases[i+1])})
		}
		if next := linkedPhase(s, p); next != nil && (i+1 >= len(s.Phases) || next != s.Phases[i+1]) {
			g.Flow = append(g.Flow, Edge{From: phaseID(p), To: phaseID(next), Label: "Next Phase link", Link: true})
		}
	}
	if s.Orchestrator == nil && len(s.Actions) == 0 {
		return g
	}
	known := map[string]bool{}
	add := func(id string) {
		if id != "" && !known[id] {
			known[id] = true
			n := Node{ID: id, Label: id}
			// Only the skill's own actions are units of a run; a graph or
			// a hint may name others (selectNextAction, a missing action).
			if s.Action(id) != nil {
				n.Unit = id
			}
			g.Actions = append(g.Actions, n)
		}
	}
	for _, a := range s.Actions {
		add(a.ID)
	}

	seen := map[[2]string]bool{}
	edge := func(from, to, label string) {
		k := [2]string{from, to}
		if from == "" || to == "" || seen[k] {
			return
		}
		seen[k] = true
		add(from)
		add(to)
		g.Loop = append(g.Loop, Edge{From: from, To: to, Label: strings.TrimSpace(label), Cond: preconditions(s, to)})
	}
	if s.Catalog != nil {
		for _, e := range s.Catalog.Edges {
			edge(actionOf(e.From), actionOf(e.To), "")
		}
	}
	for _, a := range s.Actions {
		for _, h := range a.Hints {
			edge(a.ID, h.Action, h.Label)
		}
	}
	if returns != nil && s.Orchestrator != nil {
		const selector = "selectNextAction"
		ids := returns(s.Orchestrator)
		for _, id := range ids {
			edge(selector, id, "")
		}
		// Where the actions name no next action (a hybrid's loop, as a
		// rule), every one goes back to the selection; where they do, their
		// edges show the loop already.
		if !slices.ContainsFunc(g.Loop, func(e Edge) bool { return e.From != selector }) {
			for _, id := range ids {
				if s.Action(id) != nil && !slices.ContainsFunc(g.Loop, func(e Edge) bool { return e.From == id }) {
					g.Loop = append(g.Loop, Edge{From: id, To: selector, Back: true})
				}
			}
		}
	}
	distinguish(g.Loop)
	return g
}

// distinguish sets what each edge's label shows of its condition: the
// clauses (of a top-level &&) that are not in every condition it shares a
// clause with. Conditions that differ only in their last clause would
// otherwise show alike once cut to labelRunes.
func distinguish(edges []Edge) {
	clauses := make([][]string, len(edges))
	for i, e := range edges {
		if e.Cond != "" {
			clauses[i] = splitAnd(strings.ReplaceAll(e.Cond, "state.", ""))
		}
	}
	for i := range edges {
		var keep []string
		for _, c := range clauses[i] {
			shared, everywhere := false, true
			for j, other := range clauses {
				if j == i || len(other) == 0 || !overlaps(clauses[i], other) || slices.Equal(clauses[i], other) {
					continue
				}
				shared = true
				everywhere = everywhere && slices.Contains(other, c)
			}
			if !shared || !everywhere {
				keep = append(keep, c)
			}
		}
		if len(keep) > 0 && len(keep) < len(clauses[i]) {
			edges[i].distinct = "… " + strings.Join(keep, " && ")
		}
	}
}

// splitAnd splits a condition at its top-level &&, outside brackets and
// strings; a condition with a top-level || is one clause.
func splitAnd(cond string) []string {
	var parts []string
	depth, start := 0, 0
	var quote rune
	for i, r := range cond {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'', r == '"', r == '`':
			quote = r
		case r == '(' || r == '[' || r == '{':
			depth++
		case r == ')' || r == ']' || r == '}':
			depth--
		case depth == 0 && strings.HasPrefix(cond[i:], "||"):
			// && binds tighter: its operands are no clauses of the whole.
			return []string{strings.TrimSpace(cond)}
		case depth == 0 && strings.HasPrefix(cond[i:], "&&"):
			parts = append(parts, strings.TrimSpace(cond[start:i]))
			start = i + 2
		}
	}
	return append(parts, strings.TrimSpace(cond[start:]))
}

func overlaps(a, b []string) bool {
	for _, c := range a {
		if slices.Contains(b, c) {
			return true
		}
	}
	return false
}

// linkedPhase is the phase p's Next Phase link names, nil when it names
// none of the skill's phases.
func linkedPhase(s *plan.Skill, p *plan.Phase) *plan.Phase {
	if p.Next == nil {
		return nil
	}
	target := path.Join(path.Dir(p.Doc.File), strings.SplitN(p.Next.Target, "#", 2)[0])
	for _, q := range s.Phases {
		if q.Doc.File == target && q != p {
			return q
		}
	}
	return nil
}

func phaseID(p *plan.Phase) string { return "phase_" + sanitize(p.Number.Raw) }

func phaseLabel(p *plan.Phase) string {
	if p.Title == "" {
		return p.Number.Raw + " " + p.Slug
	}
	return p.Number.Raw + " " + p.Title
}

// actionOf reads the action a graph node stands for: its label when that
// is an action id (INIT[action-init]), else its id.
func actionOf(n plan.GraphNode) string {
	if strings.HasPrefix(n.Label, "action-") {
		return n.Label
	}
	if strings.HasPrefix(n.ID, "action-") || n.Label == "" {
		return n.ID
	}
	return ""
}

// preconditions joins the checkable preconditions of an action.
func preconditions(s *plan.Skill, id string) string {
	a := s.Action(id)
	if a == nil {
		return ""
	}
	var parts []string
	for _, p := range a.Preconditions {
		if p.Checkable() {
			parts = append(parts, p.JS)
		}
	}
	return strings.Join(parts, " && ")
}

func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' {
			return r
		}
		return '_'
	}, s)
}

// Mermaid renders the graph as a mermaid flowchart. The orchestrator
// phase of a hybrid skill is a subgraph holding the actions, and the phase
// flow joins the subgraph as a whole.
func (g *Graph) Mermaid() string {
	var b strings.Builder
	b.WriteString("flowchart TD\n")
	loopInPhase := ""
	for _, n := range g.Phases {
		if n.Loop {
			loopInPhase = n.ID
			continue
		}
		fmt.Fprintf(&b, "  %s[%s]\n", n.ID, mermaidText(g.Label(n)))
	}
	if len(g.Actions) > 0 {
		id := "actions"
		if loopInPhase != "" {
			id = loopInPhase
		}
		fmt.Fprintf(&b, "  subgraph %s [%s]\n", id, mermaidText(g.loopTitle()))
		for _, n := range g.Actions {
			fmt.Fprintf(&b, "    %s[%s]\n", sanitize(n.ID), mermaidText(g.Label(n)))
		}
		for _, e := range g.Loop {
			arrow := "-->"
			if e.Back {
				arrow = "-.->"
			}
			fmt.Fprintf(&b, "    %s %s%s %s\n", sanitize(e.From), arrow, mermaidEdgeLabel(e.short()), sanitize(e.To))
		}
		b.WriteString("  end\n")
	}
	for _, e := range g.Flow {
		arrow := "-->"
		if e.Link {
			arrow = "-.->"
		}
		fmt.Fprintf(&b, "  %s %s%s %s\n", e.From, arrow, mermaidEdgeLabel(e.short()), e.To)
	}
	g.mermaidClasses(&b)
	return b.String()
}

// mermaidClasses colours the nodes of a painted graph, a class per
// status.
func (g *Graph) mermaidClasses(b *strings.Builder) {
	if g.Run == nil {
		return
	}
	for _, st := range statuses {
		var ids []string
		for _, n := range g.nodes() {
			if o, ok := g.Run[n.ID]; ok && o.Status == st {
				ids = append(ids, sanitize(n.ID))
			}
		}
		if len(ids) > 0 {
			c := colours[st]
			fmt.Fprintf(b, "  classDef %s fill:%s,stroke:%s,color:%s\n  class %s %s\n",
				st.class(), c.fill, c.stroke, c.text, strings.Join(ids, ","), st.class())
		}
	}
}

func (g *Graph) loopTitle() string {
	for _, n := range g.Phases {
		if n.Loop {
			return g.Label(n)
		}
	}
	return "orchestrator loop"
}

// mermaidText quotes a label so that brackets and quotes in it are text.
func mermaidText(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, "#quot;") + `"`
}

func mermaidEdgeLabel(s string) string {
	if s == "" {
		return ""
	}
	return `|` + mermaidText(s) + `|`
}

// labelRunes is as long as an edge's label gets: a glance, not the
// condition; dot keeps the whole as the edge's tooltip.
const labelRunes = 28

// short is what an edge shows: its hint, else its condition without the
// "state." every condition starts its names with, cut to labelRunes.
func (e Edge) short() string {
	s := e.Label
	if s == "" {
		s = e.distinct
	}
	if s == "" {
		s = strings.ReplaceAll(e.Cond, "state.", "")
	}
	if r := []rune(s); len(r) > labelRunes {
		return strings.TrimSpace(string(r[:labelRunes-1])) + "…"
	}
	return s
}

// full is the hint and the condition, as written.
func (e Edge) full() string {
	if e.Label != "" && e.Cond != "" {
		return e.Label + " / " + e.Cond
	}
	return e.Label + e.Cond
}

// Dot renders the graph for Graphviz. The actions are a cluster; the
// phase flow joins the cluster as a whole (compound, lhead and ltail), so
// that it does not seem to go through one action.
func (g *Graph) Dot() string {
	var b strings.Builder
	// dot draws at 72 points an inch and renders bitmaps at 96 dpi: a
	// graph of a few actions came out 574 px wide, its edge labels too
	// small to read. 192 dpi doubles the pixels, for a screen or a page.
	b.WriteString("digraph skill {\n  rankdir=TB;\n  dpi=192;\n  fontname=\"Helvetica\";\n")
	if len(g.Actions) > 0 {
		b.WriteString("  compound=true;\n")
	}
	b.WriteString("  node [shape=box, fontname=\"Helvetica\"];\n  edge [fontname=\"Helvetica\", fontsize=10];\n")
	loop := ""
	for _, n := range g.Phases {
		if n.Loop && len(g.Actions) > 0 {
			loop = n.ID
			continue
		}
		fmt.Fprintf(&b, "  %s [label=%s%s];\n", dotString(n.ID), dotString(g.Label(n)), g.dotPaint(n.ID))
	}
	if len(g.Actions) > 0 {
		fmt.Fprintf(&b, "  subgraph cluster_loop {\n    label=%s;\n", dotString(g.loopTitle()))
		if o, ok := g.Run[loop]; ok {
			c := colours[o.Status]
			fmt.Fprintf(&b, "    style=filled;\n    color=%s;\n    fillcolor=%s;\n", dotString(c.stroke), dotString(c.back))
		}
		for _, n := range g.Actions {
			fmt.Fprintf(&b, "    %s [label=%s%s];\n", dotString(n.ID), dotString(g.Label(n)), g.dotPaint(n.ID))
		}
		for _, e := range g.Loop {
			fmt.Fprintf(&b, "    %s -> %s%s;\n", dotString(e.From), dotString(e.To), dotEdgeAttrs(e))
		}
		b.WriteString("  }\n")
	}
	for _, e := range g.Flow {
		from, to := e.From, e.To
		var attrs []string
		// A cluster cannot be an edge's end: the edge goes to the first
		// action and leaves from the last, clipped at the cluster.
		if from == loop && loop != "" {
			from = g.Actions[len(g.Actions)-1].ID
			attrs = append(attrs, "ltail=cluster_loop")
		}
		if to == loop && loop != "" {
			to = g.Actions[0].ID
			attrs = append(attrs, "lhead=cluster_loop")
		}
		if e.Link {
			attrs = append(attrs, "style=dashed", "label="+dotString(e.Label))
		}
		fmt.Fprintf(&b, "  %s -> %s", dotString(from), dotString(to))
		if len(attrs) > 0 {
			fmt.Fprintf(&b, " [%s]", strings.Join(attrs, ", "))
		}
		b.WriteString(";\n")
	}
	b.WriteString("}\n")
	return b.String()
}

// dotEdgeAttrs labels an action edge with its short label and keeps the
// whole hint and condition as the tooltip.
func dotEdgeAttrs(e Edge) string {
	if e.Back {
		return ` [style=dashed, tooltip="back to the selection"]`
	}
	if e.full() == "" {
		return ""
	}
	return fmt.Sprintf(" [label=%s, tooltip=%s]", dotString(e.short()), dotString(e.full()))
}

// dotPaint fills a node with the colour of its status in a painted graph.
func (g *Graph) dotPaint(id string) string {
	o, ok := g.Run[id]
	if !ok {
		return ""
	}
	c := colours[o.Status]
	style := "filled"
	if o.Status == Skipped || o.Status == NotReached {
		style = "filled,dashed"
	}
	return fmt.Sprintf(", style=%s, fillcolor=%s, color=%s, fontcolor=%s, tooltip=%s",
		dotString(style), dotString(c.fill), dotString(c.stroke), dotString(c.text), dotString(string(o.Status)))
}

// dotString quotes a dot string, escaping what dot reads specially.
func dotString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s) + `"`
}
