package scaffold

import (
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/skillkit/skillkit/parse"
	"github.com/skillkit/skillkit/plan"
)

// finalReturn matches the last statement of a generated selectNextAction:
// the action that completes the run.
var finalReturn = regexp.MustCompile(`^(\s*)return '(action-[A-Za-z0-9_-]+)';\s*$`)

// AddAction adds the action name to the skill folder dir and returns the
// files it wrote: the action file (an action that runs once, after the
// items are processed), a catalog row and graph node, and a line in
// selectNextAction before the action that completes the run, so that the
// new action runs. Catalog, graph and decision logic are changed only
// where they have the shape new generates.
func AddAction(dir, name string) ([]string, error) {
	name = actionName(name)
	if err := CheckName("action", name); err != nil {
		return nil, err
	}
	id := "action-" + name
	s, err := parse.Dir(dir)
	if err != nil {
		return nil, fmt.Errorf("adding action %s: %w", id, err)
	}
	if s.Orchestrator == nil && len(s.Actions) == 0 {
		return nil, invalidf("%s has no orchestrator or actions (mode %s); add a phase instead", dir, s.Mode)
	}
	if a := s.Action(id); a != nil {
		return nil, fmt.Errorf("adding action %s: %s: %w", id, a.Doc.File, ErrExists)
	}
	actionsDir := "phases/actions"
	if len(s.Actions) > 0 {
		actionsDir = path.Dir(s.Actions[0].Doc.File)
	}
	e := newEdits(dir)
	finish, err := wireDecision(e, s.Orchestrator, id)
	if err != nil {
		return nil, err
	}
	a := &actionData{Name: name, ID: id, Title: title(name), Role: roleStage, Purpose: stagePurpose,
		Effects: "context['" + id + "'] set", Pre: stagePre(id)}
	if finish != "" {
		a.Hints = append(a.Hints, hint{"On success", finish})
	}
	if s.Action("action-abort") != nil {
		a.Hints = append(a.Hints, hint{"On failure", "action-abort"})
	}
	if c := s.Catalog; c != nil {
		a.Link = relTo(path.Dir(c.File), actionsDir+"/"+id+".md")
		if err := addCatalogRow(e, c, a, finish); err != nil {
			return nil, err
		}
		if err := addGraphNode(e, s, c, a, finish); err != nil {
			return nil, err
		}
	}
	content, err := render("action.md.tmpl", a)
	if err != nil {
		return nil, err
	}
	if err := e.create(actionsDir+"/"+id+".md", content); err != nil {
		return nil, fmt.Errorf("adding action %s: %w", id, err)
	}
	return e.write()
}

// wireDecision inserts a run-once line for id before the final return of
// selectNextAction and returns the action that final return names; "" when
// the decision logic does not end that way (then it is left alone).
func wireDecision(e *edits, o *plan.Orchestrator, id string) (string, error) {
	if o == nil || o.Decision == nil {
		return "", nil
	}
	lines := strings.Split(o.Decision.Text, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		mm := finalReturn.FindStringSubmatch(lines[i])
		if mm == nil {
			if strings.TrimSpace(lines[i]) == "}" || strings.TrimSpace(lines[i]) == "" {
				continue
			}
			return "", nil
		}
		line := mm[1] + "if (!state.completed_actions.includes('" + id + "')) return '" + id + "';"
		return mm[2], e.change(o.Doc.File, lineOp{line: o.Decision.Body.Line + i, insert: []string{line}})
	}
	return "", nil
}

// addCatalogRow inserts the action's row before the finishing action's row,
// else after the last row.
func addCatalogRow(e *edits, c *plan.Catalog, a *actionData, finish string) error {
	if len(c.Rows) == 0 {
		return nil
	}
	row, err := render("row", a)
	if err != nil {
		return err
	}
	at := c.Rows[len(c.Rows)-1].Pos.Line + 1
	for _, r := range c.Rows {
		if r.Action == finish {
			at = r.Pos.Line
		}
	}
	return e.change(c.File, lineOp{line: at, insert: []string{row}})
}

// addGraphNode splices the action into the mermaid graph before the
// finishing action (X --> finish becomes X --> new --> finish), with a
// dotted edge to abort when the graph has one; without a finishing edge the
// node is added on its own line.
func addGraphNode(e *edits, s *plan.Skill, c *plan.Catalog, a *actionData, finish string) error {
	block := mermaidBlock(s, c)
	if block == nil {
		return nil
	}
	ids := map[string]bool{}
	var finishNode, abortNode string
	for _, ed := range c.Edges {
		for _, n := range []plan.GraphNode{ed.From, ed.To} {
			ids[n.ID] = true
			switch n.Label {
			case finish:
				finishNode = n.ID
			case "action-abort":
				abortNode = n.ID
			}
		}
	}
	node := nodeID(a.Name)
	for k := 2; ids[node]; k++ {
		node = fmt.Sprintf("%s_%d", nodeID(a.Name), k)
	}
	label := node + "[" + a.ID + "]"
	lines := strings.Split(block.Text, "\n")
	indent := "    "
	last := 0
	for i, l := range lines {
		if strings.TrimSpace(l) != "" {
			last = i
		}
	}
	if finishNode != "" && finish != "" {
		into := regexp.MustCompile(`^(\s*)(\S.*?)\s*-->\s*` + regexp.QuoteMeta(finishNode) + `(\[[^\]]*\])?\s*$`)
		for i, l := range lines {
			mm := into.FindStringSubmatch(l)
			if mm == nil || strings.Contains(mm[2], "-.->") {
				continue
			}
			n := block.Body.Line + i
			repl := []string{mm[1] + mm[2] + " --> " + label, mm[1] + node + " --> " + finishNode + mm[3]}
			if err := e.change(c.File, lineOp{line: n, del: 1, insert: repl}); err != nil {
				return err
			}
			if abortNode != "" {
				return e.change(c.File, lineOp{line: block.Body.Line + last + 1, insert: []string{mm[1] + node + " -.->|too many errors| " + abortNode}})
			}
			return nil
		}
	}
	return e.change(c.File, lineOp{line: block.Body.Line + last + 1, insert: []string{indent + label}})
}

// mermaidBlock finds the catalog's mermaid graph block.
func mermaidBlock(s *plan.Skill, c *plan.Catalog) *plan.CodeBlock {
	docs := s.Docs
	if s.Orchestrator != nil {
		docs = append(docs[:len(docs):len(docs)], s.Orchestrator.Doc)
	}
	for _, d := range docs {
		if d.File != c.File {
			continue
		}
		for _, cb := range d.Code {
			if cb.Lang == "mermaid" {
				return cb
			}
		}
	}
	return nil
}
