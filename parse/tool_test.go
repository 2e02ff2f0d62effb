package parse

import (
	"strings"
	"testing"

	"github.com/skillkit/skillkit/plan"
)

func TestToolStep(t *testing.T) {
	phase := "# Phase 1: Find\n\n## Execution\n\n" +
		"### Step 1: Find\n- **Tool**: `mcp__memory__search_nodes`\n- **Save as**: found\n\n```yaml\nquery: call\nlimit: 3\n```\n\n" +
		"### Step 2: Graph\n- **Tool**: mcp__memory__read_graph\n\nNo arguments.\n\n" +
		"### Step 3: Bad args\n- **Tool**: mcp__memory__search_nodes\n\n```json\n[1, 2]\n```\n\n" +
		"### Step 4: Bad name\n- **Tool**: search_nodes\n\n" +
		"### Step 5: Unparsable\n- **Tool**: mcp__memory__search_nodes\n\n```yaml\nquery: [\n```\n"
	s := mustDir(t, writeSkill(t, map[string]string{
		"SKILL.md":          "---\nname: demo\ndescription: d\n---\n# Demo\n",
		"phases/01-find.md": phase,
		"skillkit.yaml":     "mcp:\n  servers:\n    memory: {command: mcp-server-memory}\n",
	}))
	steps := s.Phases[0].Steps
	code := func(st *plan.Step) string {
		if r := st.Runnable(); len(r) == 1 {
			return r[0].Text + " @ " + r[0].Pos.String()
		}
		return ""
	}
	for i, want := range []string{
		`state["found"] = mcp__memory__search_nodes({"limit":3,"query":"call"}) @ phases/01-find.md:10:1`,
		`mcp__memory__read_graph({}) @ phases/01-find.md:15:3`,
		"", "", "",
	} {
		if got := code(steps[i]); got != want {
			t.Errorf("step %d code %q, want %q", i+1, got, want)
		}
	}
	var diags []string
	for _, d := range s.Diagnostics {
		diags = append(diags, d.Pos.String()+": "+d.Message)
	}
	got := strings.Join(diags, "\n")
	for _, want := range []string{
		"phases/01-find.md:23:1: the arguments of Tool mcp__memory__search_nodes are not a map of argument → value",
		`phases/01-find.md:27:3: Tool "search_nodes" is not an MCP tool name such as mcp__server__tool`,
		"phases/01-find.md:33:1: the arguments of Tool mcp__memory__search_nodes do not parse",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("diagnostics lack %q:\n%s", want, got)
		}
	}
}

func TestSaveAsWithoutTool(t *testing.T) {
	s := mustDir(t, writeSkill(t, map[string]string{
		"SKILL.md":          "---\nname: demo\ndescription: d\n---\n# Demo\n",
		"phases/01-find.md": "# Phase 1: Find\n\n## Execution\n\n### Step 1: Find\n- **Save as**: found\n\nFind it.\n",
	}))
	if len(s.Diagnostics) != 1 || s.Diagnostics[0].Pos.String() != "phases/01-find.md:6:3" || s.Phases[0].Steps[0].Attrs.Tool != nil {
		t.Errorf("diagnostics %v, tool %+v", s.Diagnostics, s.Phases[0].Steps[0].Attrs.Tool)
	}
}
