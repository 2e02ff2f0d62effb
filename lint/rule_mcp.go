package lint

import (
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/skillkit/skillkit/internal/mcp"
	"github.com/skillkit/skillkit/jsstatic"
	"github.com/skillkit/skillkit/plan"
)

var mcpRules = []Rule{
	newRule("mcp-server-unknown", plan.SevWarning,
		"code calls an MCP tool of a server the project does not configure (.mcp.json, mcp.servers in skillkit.yaml): its step goes to the agent", checkMCPServerUnknown(false)),
	newRule("mcp-server-unknown-agent", plan.SevInfo,
		"a skill that is model-run anyway (no native step, or execution: agent) calls an MCP tool of a server the project does not configure", checkMCPServerUnknown(true)),
	newRule("mcp-args", plan.SevError,
		"the arguments of an MCP tool call do not match the tool's input schema in its saved listing (skillkit mcp tools SERVER --save)", checkMCPArgs),
}

// mcpCall is a call of an MCP tool in a block of the skill.
type mcpCall struct {
	jsstatic.MCPCall
	block *plan.CodeBlock
}

// mcpCalls are the MCP tool calls of the skill's runnable JavaScript: its
// steps (Tool steps included, as the parser writes them) and its
// actions' executions.
func (p *Pass) mcpCalls() []mcpCall {
	if p.mcp != nil {
		return *p.mcp
	}
	var blocks []*plan.CodeBlock
	for _, ph := range p.Skill.Phases {
		for _, st := range ph.Steps {
			blocks = append(blocks, st.Runnable()...)
		}
	}
	for _, a := range p.Skill.Actions {
		if c := a.Execution.Code; c != nil {
			blocks = append(blocks, c)
		}
	}
	var out []mcpCall
	for _, b := range blocks {
		if b.Kind() != plan.LangJS {
			continue
		}
		if js := p.parseJS(b); js.prog != nil {
			for _, c := range js.prog.MCPCalls() {
				out = append(out, mcpCall{c, b})
			}
		}
	}
	p.mcp = &out
	return out
}

// modelRun reports whether the skill runs on a model whatever its MCP
// servers: it says execution: agent, or none of its code is native.
func modelRun(s *plan.Skill) bool {
	if s.Execution == plan.ExecutionAgent {
		return true
	}
	for _, ph := range s.Phases {
		for _, st := range ph.Steps {
			if st.Class.Kind == plan.ClassNative {
				return false
			}
		}
	}
	for _, a := range s.Actions {
		if a.Execution.Class.Kind == plan.ClassNative {
			return false
		}
	}
	return true
}

func checkMCPServerUnknown(agent bool) func(p *Pass) {
	return func(p *Pass) {
		if modelRun(p.Skill) != agent {
			return
		}
		for _, c := range p.mcpCalls() {
			server, _, _ := jsstatic.SplitMCP(c.Name)
			if slices.Contains(p.Skill.MCPServers, server) {
				continue
			}
			pos := c.block.At(c.Line, c.Col)
			p.ReportRange(pos, pos.Col+len(c.Name), "%s calls MCP server %s, which is not configured (.mcp.json, or mcp.servers in skillkit.yaml): the step goes to the agent",
				codeSpan(c.Name), codeSpan(server))
		}
	}
}

// listing finds the saved listing of a server's tools: in .mcp-tools/ of
// the skill's folder or of a folder above it (the project's, beside
// .mcp.json). Lint starts no server.
func (p *Pass) listing(server string) *mcp.Listing {
	dir, err := filepath.Abs(p.Skill.Dir)
	if err != nil {
		return nil
	}
	for {
		if l, err := mcp.LoadListing(dir, server); err == nil && l != nil {
			return l
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return nil
		}
		dir = parent
	}
}

func checkMCPArgs(p *Pass) {
	listings := map[string]*mcp.Listing{}
	for _, c := range p.mcpCalls() {
		server, tool, _ := jsstatic.SplitMCP(c.Name)
		l, seen := listings[server]
		if !seen {
			l = p.listing(server)
			listings[server] = l
		}
		if l == nil || c.Args == nil {
			continue
		}
		at := func(line, col int) plan.Pos { return c.block.At(line, col) }
		var schema map[string]any
		found := false
		for _, t := range l.Tools {
			if t.Name == tool {
				schema, _ = t.InputSchema.(map[string]any)
				found = true
			}
		}
		if !found {
			pos := at(c.Line, c.Col)
			p.ReportRange(pos, pos.Col+len(c.Name), "%s: server %s has no tool %s in its saved listing", codeSpan(c.Name), codeSpan(server), codeSpan(tool))
			continue
		}
		props, _ := schema["properties"].(map[string]any)
		required, _ := schema["required"].([]any)
		for _, r := range required {
			if name, ok := r.(string); ok {
				if _, has := c.Args[name]; !has {
					pos := at(c.Line, c.Col)
					p.ReportRange(pos, pos.Col+len(c.Name), "%s: the required argument %s is missing", codeSpan(c.Name), codeSpan(name))
				}
			}
		}
		keys := make([]string, 0, len(c.Args))
		for k := range c.Args {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			a := c.Args[k]
			prop, known := props[k].(map[string]any)
			pos := at(a.Line, a.Col)
			switch {
			case props != nil && !known:
				p.ReportRange(pos, pos.Col+len(k), "%s: %s is no argument of the tool (it takes %s)", codeSpan(c.Name), codeSpan(k), argNames(props))
			case known && a.Kind != "" && !kindFits(a.Kind, prop["type"]):
				p.ReportRange(pos, pos.Col+len(k), "%s: %s is a %s, the tool wants %v", codeSpan(c.Name), codeSpan(k), a.Kind, prop["type"])
			}
		}
	}
}

// kindFits reports whether a literal of kind fits a JSON Schema type (a
// name or a list of names); no type fits everything.
func kindFits(kind string, typ any) bool {
	var types []string
	switch t := typ.(type) {
	case string:
		types = []string{t}
	case []any:
		for _, x := range t {
			if s, ok := x.(string); ok {
				types = append(types, s)
			}
		}
	default:
		return true
	}
	for _, t := range types {
		if t == kind || t == "integer" && kind == jsstatic.KindNumber {
			return true
		}
	}
	return false
}

func argNames(props map[string]any) string {
	names := make([]string, 0, len(props))
	for k := range props {
		names = append(names, codeSpan(k))
	}
	sort.Strings(names)
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
