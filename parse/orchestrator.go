package parse

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/skillkit/skillkit/plan"
)

// readOrchestrator fills an orchestrator: the block defining
// selectNextAction and every JS block (their declarations are in scope).
func readOrchestrator(m *md) *plan.Orchestrator {
	o := &plan.Orchestrator{Doc: m.doc}
	dl := m.section(plan.SecDecisionLogic)
	for _, c := range m.doc.Code {
		if c.Kind() != plan.LangJS {
			continue
		}
		o.Declarations = append(o.Declarations, c)
		if !strings.Contains(c.Text, "selectNextAction") || !strings.Contains(c.Text, "function") {
			continue
		}
		inDL := dl != nil && c.Pos.Line > dl.Pos.Line && c.Pos.Line <= dl.EndLine
		if o.Decision == nil || inDL && !(o.Decision.Pos.Line > dl.Pos.Line && o.Decision.Pos.Line <= dl.EndLine) {
			o.Decision = c
		}
	}
	return o
}

// readCatalog reads the first table with an Action column in lines
// from..to, and the mermaid graph blocks there. nil when there is no table
// and no graph.
func readCatalog(m *md, from, to int) *plan.Catalog {
	c := &plan.Catalog{File: m.doc.File, Pos: m.at(from, 1)}
	c.Rows = readCatalogTable(m, from, to)
	for _, cb := range m.codeIn(from, to) {
		if cb.Lang == "mermaid" {
			c.Edges = append(c.Edges, readMermaid(cb)...)
		}
	}
	if len(c.Rows) == 0 && len(c.Edges) == 0 {
		return nil
	}
	if len(c.Rows) > 0 {
		// The header row is two lines above the first row.
		c.Pos = m.at(c.Rows[0].Pos.Line-2, 1)
	}
	return c
}

// splitRow splits a table row on unescaped pipes, outside code spans.
func splitRow(l string) []string {
	l = strings.TrimSpace(l)
	l = strings.TrimPrefix(l, "|")
	if strings.HasSuffix(l, "|") && !strings.HasSuffix(l, `\|`) {
		l = l[:len(l)-1]
	}
	var cells []string
	var b strings.Builder
	inCode := false
	for i := 0; i < len(l); i++ {
		ch := l[i]
		switch {
		case ch == '\\' && i+1 < len(l) && l[i+1] == '|':
			b.WriteByte('|')
			i++
		case ch == '`':
			inCode = !inCode
			b.WriteByte(ch)
		case ch == '|' && !inCode:
			cells = append(cells, strings.TrimSpace(b.String()))
			b.Reset()
		default:
			b.WriteByte(ch)
		}
	}
	return append(cells, strings.TrimSpace(b.String()))
}

var delimiterRow = regexp.MustCompile(`^\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$`)

// markdownLink matches [text](target) in a table cell.
var markdownLink = regexp.MustCompile(`\[([^\]]*)\]\(([^)\s]*)\)`)

func readCatalogTable(m *md, from, to int) []*plan.CatalogRow {
	for n := from; n < to; n++ {
		if !strings.Contains(m.line(n), "|") || !delimiterRow.MatchString(strings.TrimSpace(m.line(n+1))) || m.inCode(n) {
			continue
		}
		cols := map[string]int{}
		for i, h := range splitRow(m.line(n)) {
			h = strings.ToLower(strings.Trim(h, "* "))
			switch {
			case h == "action" || h == "action id" || h == "动作" || h == "id":
				cols["action"] = i
			case strings.HasPrefix(h, "precondition") || h == "前置条件":
				cols["pre"] = i
			case h == "purpose" || h == "用途" || h == "目的" || h == "description":
				cols["purpose"] = i
			case h == "effects" || h == "effect" || h == "效果":
				cols["effects"] = i
			case h == "priority" || h == "优先级":
				cols["priority"] = i
			}
		}
		ai, ok := cols["action"]
		if !ok {
			n++
			continue
		}
		var rows []*plan.CatalogRow
		for r := n + 2; r <= to; r++ {
			line := m.line(r)
			if !strings.HasPrefix(strings.TrimSpace(line), "|") {
				break
			}
			cells := splitRow(line)
			cell := func(key string) string {
				if i, ok := cols[key]; ok && i < len(cells) {
					return cells[i]
				}
				return ""
			}
			if ai >= len(cells) {
				continue
			}
			row := &plan.CatalogRow{Action: strings.Trim(cells[ai], "`* "), Pos: m.at(r, strings.Index(line, "|")+1)}
			if mm := markdownLink.FindStringSubmatch(cells[ai]); mm != nil {
				row.Action = strings.Trim(mm[1], "` ")
				row.Link = mm[2]
			}
			row.Purpose, row.Effects = cell("purpose"), cell("effects")
			if pre := strings.TrimSpace(cell("pre")); pre != "" && pre != "-" && pre != "—" {
				row.Preconditions = []*plan.Precondition{{Expr: plan.Expr{Text: pre, JS: toJS(pre), Pos: row.Pos}}}
			}
			if p, err := strconv.Atoi(strings.TrimSpace(cell("priority"))); err == nil {
				row.Priority = &p
			}
			rows = append(rows, row)
		}
		return rows
	}
	return nil
}

// mermaidNode matches a node reference: ID, ID[label], ID([label]),
// ID{label}, ID((label)), ID>label].
var mermaidNode = regexp.MustCompile(`^\s*([A-Za-z0-9_\-.]+)\s*(?:(\[\[|\[\(|\(\[|\(\(|\[|\(|\{\{|\{|>)\s*"?([^\]\)\}"]*)"?\s*(?:\]\]|\)\]|\]\)|\)\)|\]|\)|\}\}|\}))?`)

// mermaidArrow splits a line on edge arrows, with an optional |label|.
var mermaidArrow = regexp.MustCompile(`\s*(?:-{2,}>|-\.+->|={2,}>|--\s[^-]*?\s-->|-{2,}\s[^-]*?\s-{2,}>)\s*(?:\|[^|]*\|)?\s*`)

// readMermaid reads A[label] --> B[label] edges of a graph/flowchart
// block. Node labels seen anywhere in the block are applied to every
// reference of that id.
func readMermaid(cb *plan.CodeBlock) []*plan.GraphEdge {
	lines := strings.Split(cb.Text, "\n")
	if len(lines) == 0 {
		return nil
	}
	head := strings.ToLower(strings.TrimSpace(lines[0]))
	if !strings.HasPrefix(head, "graph") && !strings.HasPrefix(head, "flowchart") {
		return nil
	}
	labels := map[string]string{}
	var edges []*plan.GraphEdge
	for i, raw := range lines {
		l := strings.TrimSpace(raw)
		// indent is what TrimSpace took off the front: node columns are
		// the file's.
		indent := strings.Index(raw, l)
		if l == "" || strings.HasPrefix(l, "%%") || i == 0 {
			continue
		}
		locs := mermaidArrow.FindAllStringIndex(l, -1)
		if len(locs) == 0 {
			if n, ok := mermaidRef(l, cb, i); ok && n.Label != "" {
				labels[n.ID] = n.Label
			}
			continue
		}
		var parts []string
		prev := 0
		for _, loc := range locs {
			parts = append(parts, l[prev:loc[0]])
			prev = loc[1]
		}
		parts = append(parts, l[prev:])
		var nodes []plan.GraphNode
		for _, p := range parts {
			// "A & B --> C": each of A and B.
			var group []plan.GraphNode
			for _, q := range strings.Split(p, "&") {
				if n, ok := mermaidRef(q, cb, i); ok {
					if n.Label != "" {
						labels[n.ID] = n.Label
					}
					n.Pos.Col += indent + strings.Index(l, strings.TrimSpace(q))
					group = append(group, n)
				}
			}
			if len(group) == 0 {
				nodes = nil
				break
			}
			for _, from := range nodes {
				for _, to := range group {
					edges = append(edges, &plan.GraphEdge{From: from, To: to})
				}
			}
			nodes = group
		}
	}
	for _, e := range edges {
		if e.From.Label == "" {
			e.From.Label = labels[e.From.ID]
		}
		if e.To.Label == "" {
			e.To.Label = labels[e.To.ID]
		}
	}
	return edges
}

func mermaidRef(s string, cb *plan.CodeBlock, line int) (plan.GraphNode, bool) {
	mm := mermaidNode.FindStringSubmatch(s)
	if mm == nil {
		return plan.GraphNode{}, false
	}
	switch strings.ToLower(mm[1]) {
	case "style", "classdef", "class", "click", "linkstyle", "subgraph", "end", "direction":
		return plan.GraphNode{}, false
	}
	p := cb.Body
	p.Line += line
	p.Col = 1
	return plan.GraphNode{ID: mm[1], Label: strings.TrimSpace(mm[3]), Pos: p}, true
}
