package plan

import (
	"fmt"
	"strings"
)

// UnfiledAction is the action a name refers to when the skill has no file
// for it (lint's action-missing): real skills name actions in hints,
// graphs and catalogs that exist only as those words ("On failure:
// action-abort"), often on a path a run never takes. A run that does
// select one hands the agent what the skill says of it: its catalog row
// (purpose, preconditions, effects), the hints that name it, the graph's
// edges to and from it. at is where the selection named it: without an
// agent, the run stops there. Nil for a string that is no action name.
func (s *Skill) UnfiledAction(name string, at Pos) *Action {
	if !IsActionName(name) {
		return nil
	}
	id := MissingActionFile(name)
	a := &Action{ID: id, Title: "no action file"}
	var said []string
	if c := s.Catalog; c != nil {
		for _, r := range c.Rows {
			if s.ResolveRow(r) != nil || !IsActionName(r.Action) || MissingActionFile(r.Action) != id {
				continue
			}
			if a.Purpose == "" {
				a.Purpose = r.Purpose
			}
			a.Preconditions = append(a.Preconditions, r.Preconditions...)
			row := fmt.Sprintf("- its row in the action catalog (%s)", r.Pos)
			if r.Purpose != "" {
				row += "; purpose: " + r.Purpose
			}
			if r.Effects != "" {
				row += "; effects: " + r.Effects
			}
			said = append(said, row)
		}
		for _, e := range c.Edges {
			from, to := e.From.Action(), e.To.Action()
			if from == id || to == id {
				said = append(said, fmt.Sprintf("- the graph's edge %s --> %s (%s)", nodeName(e.From), nodeName(e.To), e.From.Pos))
			}
		}
	}
	for _, other := range s.Actions {
		for _, h := range other.Hints {
			if IsActionName(h.Action) && MissingActionFile(h.Action) == id {
				said = append(said, fmt.Sprintf("- a Next Actions hint of %s (%s): %s: %s", other.ID, h.Pos, h.Label, h.Action))
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "The skill names the action %s (%s) but has no file for it (%s.md). What the skill says of it:\n", name, at, id)
	if len(said) == 0 {
		said = []string{"- nothing more than its name"}
	}
	b.WriteString(strings.Join(said, "\n"))
	b.WriteString("\n\nDo what the skill means by this action, from its name, what is said of it above, the skill's instructions and the state.")
	a.Execution = Execution{
		Kind: ExecProse, Text: b.String(), Pos: at, Whole: true,
		Class: Class{Kind: ClassAgent, Reason: "no action file: the agent does it from what the skill says of it", Pos: at},
	}
	return a
}

// nodeName is a graph node as the author wrote it: its label, else its id.
func nodeName(n GraphNode) string {
	if l := strings.TrimSpace(n.Label); l != "" {
		return l
	}
	return n.ID
}
