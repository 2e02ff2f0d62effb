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
	// Loop marks the orchestrator phase of a hybrid skill, which holds the
	// action graph.
	Loop bool
}

// Edge goes from one node to another; Label is the target action's
// preconditions, or the hint that names it. A Link edge is a Next Phase
// link that does not follow the execution order, drawn dashed: the runner
// goes by number, the author's link says otherwise.
type Edge struct {
	From, To string
	Label    string
	Link     bool
}

// Graph is what both formats draw.
type Graph struct {
	Phases  []Node
	Flow    []Edge
	Actions []Node
	Loop    []Edge
}

// Returns lists, for each selecting function, the action ids it can return;
// callers that can read JavaScript pass it in so this package needs no JS
// parser. nil is fine: the edges then come from the catalog and the hints.
type Returns func(o *plan.Orchestrator) []string

// Build derives the graph of a skill.
func Build(s *plan.Skill, returns Returns) *Graph {
	g := &Graph{}
	for i, p := range s.Phases {
		g.Phases = append(g.Phases, Node{ID: phaseID(p), Label: phaseLabel(p), Loop: p.IsOrchestrator})
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
			g.Actions = append(g.Actions, Node{ID: id, Label: id})
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
		g.Loop = append(g.Loop, Edge{From: from, To: to, Label: label})
	}
	if s.Catalog != nil {
		for _, e := range s.Catalog.Edges {
			from, to := actionOf(e.From), actionOf(e.To)
			edge(from, to, preconditions(s, to))
		}
	}
	for _, a := range s.Actions {
		for _, h := range a.Hints {
			label := h.Label
			if pre := preconditions(s, h.Action); pre != "" {
				label = strings.TrimSpace(label + " / " + pre)
			}
			edge(a.ID, h.Action, label)
		}
	}
	if returns != nil && s.Orchestrator != nil {
		const selector = "selectNextAction"
		for _, id := range returns(s.Orchestrator) {
			edge(selector, id, preconditions(s, id))
		}
	}
	return g
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

// Mermaid renders the graph as a mermaid flowchart.
func (g *Graph) Mermaid() string {
	var b strings.Builder
	b.WriteString("flowchart TD\n")
	loopInPhase := ""
	for _, n := range g.Phases {
		if n.Loop {
			loopInPhase = n.ID
			continue
		}
		fmt.Fprintf(&b, "  %s[%s]\n", n.ID, mermaidText(n.Label))
	}
	if len(g.Actions) > 0 {
		id := "actions"
		if loopInPhase != "" {
			id = loopInPhase
		}
		fmt.Fprintf(&b, "  subgraph %s [%s]\n", id, mermaidText(g.loopTitle()))
		for _, n := range g.Actions {
			fmt.Fprintf(&b, "    %s[%s]\n", sanitize(n.ID), mermaidText(n.Label))
		}
		for _, e := range g.Loop {
			fmt.Fprintf(&b, "    %s -->%s %s\n", sanitize(e.From), mermaidEdgeLabel(e.Label), sanitize(e.To))
		}
		b.WriteString("  end\n")
	}
	for _, e := range g.Flow {
		arrow := "-->"
		if e.Link {
			arrow = "-.->"
		}
		fmt.Fprintf(&b, "  %s %s%s %s\n", e.From, arrow, mermaidEdgeLabel(e.Label), e.To)
	}
	return b.String()
}

func (g *Graph) loopTitle() string {
	for _, n := range g.Phases {
		if n.Loop {
			return n.Label
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
	return `|"` + strings.ReplaceAll(s, `"`, "#quot;") + `"|`
}

// Dot renders the graph for Graphviz.
func (g *Graph) Dot() string {
	var b strings.Builder
	b.WriteString("digraph skill {\n  rankdir=TB;\n  node [shape=box, fontname=\"Helvetica\"];\n")
	for _, n := range g.Phases {
		if !n.Loop || len(g.Actions) == 0 {
			fmt.Fprintf(&b, "  %s [label=%s];\n", dotID(n.ID), dotString(n.Label))
		}
	}
	if len(g.Actions) > 0 {
		fmt.Fprintf(&b, "  subgraph cluster_loop {\n    label=%s;\n", dotString(g.loopTitle()))
		for _, n := range g.Actions {
			fmt.Fprintf(&b, "    %s [label=%s];\n", dotID(n.ID), dotString(n.Label))
		}
		for _, e := range g.Loop {
			fmt.Fprintf(&b, "    %s -> %s", dotID(e.From), dotID(e.To))
			if e.Label != "" {
				fmt.Fprintf(&b, " [label=%s]", dotString(e.Label))
			}
			b.WriteString(";\n")
		}
		b.WriteString("  }\n")
	}
	loopNode := g.loopEntry()
	for _, e := range g.Flow {
		fmt.Fprintf(&b, "  %s -> %s", dotID(g.endpoint(e.From, loopNode)), dotID(g.endpoint(e.To, loopNode)))
		if e.Link {
			fmt.Fprintf(&b, " [style=dashed, label=%s]", dotString(e.Label))
		}
		b.WriteString(";\n")
	}
	b.WriteString("}\n")
	return b.String()
}

// loopEntry is the node that stands for the orchestrator phase in dot,
// where a cluster cannot be an edge's end: the first action.
func (g *Graph) loopEntry() string {
	if len(g.Actions) == 0 {
		return ""
	}
	return g.Actions[0].ID
}

func (g *Graph) endpoint(id, loopNode string) string {
	i := slices.IndexFunc(g.Phases, func(n Node) bool { return n.ID == id })
	if i >= 0 && g.Phases[i].Loop && loopNode != "" {
		return loopNode
	}
	return id
}

func dotID(s string) string { return dotString(s) }

// dotString quotes a dot string, escaping what dot reads specially.
func dotString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s) + `"`
}
