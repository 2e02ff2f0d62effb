package plan

import (
	"strings"
	"testing"
)

func block(info, text string, line int) *CodeBlock {
	lang, _, _ := strings.Cut(info, " ")
	return &CodeBlock{Lang: lang, Info: info, Text: text, Pos: Pos{File: "phases/01-x.md", Line: line, Col: 1}, Body: Pos{File: "phases/01-x.md", Line: line + 1, Col: 1}}
}

func codeStep(n string, blocks ...*CodeBlock) *Step {
	return &Step{Number: n, Title: "step " + n, Pos: Pos{File: "phases/01-x.md", Line: 1}, Code: blocks}
}

// classify classifies one phase of the steps and returns each step's
// class as "kind: reason @ line:col".
func classify(t *testing.T, s *Skill, steps ...*Step) []string {
	t.Helper()
	s.Phases = []*Phase{{Doc: &Doc{File: "phases/01-x.md"}, Steps: steps}}
	s.Classify()
	var out []string
	for _, st := range steps {
		c := st.Class
		out = append(out, string(c.Kind)+": "+c.Reason+" @ "+c.Pos.String())
	}
	return out
}

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		name  string
		steps []*Step
		want  []string
	}{
		{"pseudo-code input", []*Step{codeStep("1", block("javascript", "const input = userInput.trim()", 10))},
			[]string{"agent: reads `userInput`, which nothing defines @ phases/01-x.md:11:15"}},
		{"undefined helper", []*Step{codeStep("1", block("js", "const flags = parseFlags(ARGUMENTS)", 10))},
			[]string{"agent: calls `parseFlags`, which no block declares @ phases/01-x.md:11:15"}},
		{"placeholder in bash", []*Step{codeStep("1", block("bash", "ls\ncat {project_path}/package.json", 10))},
			[]string{"agent: bash holds `{project_path}`, a placeholder for the agent @ phases/01-x.md:12:5"}},
		{"mustache placeholder in bash", []*Step{codeStep("1", block("bash", "cd {{PROJECT_ROOT}}", 10))},
			[]string{"agent: bash holds `{{PROJECT_ROOT}}`, a placeholder for the agent @ phases/01-x.md:11:4"}},
		{"$ARGUMENTS in bash", []*Step{codeStep("1", block("sh", `echo "$ARGUMENTS"`, 10))},
			[]string{"agent: bash holds `$ARGUMENTS`, which the agent fills in @ phases/01-x.md:11:7"}},
		{"shell variables are the shell's", []*Step{codeStep("1", block("bash", `f="${SKILL_WORKDIR}/x"; echo "$f" | awk '{ print $1 }'; find . -exec ls {} \;`, 10))},
			[]string{"native: bash that parses, with no placeholder @ phases/01-x.md:1"}},
		{"bash that does not parse", []*Step{codeStep("1", block("bash", "if then fi (", 10))},
			[]string{"agent: bash does not parse: `if` must be followed by a statement list @ phases/01-x.md:11:1"}},
		{"JavaScript that does not parse", []*Step{codeStep("1", block("js", "const x: number = 1", 10))},
			[]string{"agent: JavaScript does not parse: Unexpected token : @ phases/01-x.md:11:8"}},
		{"host API and built-ins", []*Step{codeStep("1", block("js", "const files = Glob('*.md'); Write(`${workDir}/n`, JSON.stringify(files.length + Math.max(args.length, 0)))", 10))},
			[]string{"native: JavaScript that parses and reads only defined names @ phases/01-x.md:1"}},
		{"prose", []*Step{{Title: "think", Pos: Pos{File: "phases/01-x.md", Line: 3}}},
			[]string{"agent: prose: no runnable block @ phases/01-x.md:3"}},
		{"a binding of an earlier native step", []*Step{
			codeStep("1", block("js", "const config = JSON.parse(Read('c.json'))", 10)),
			codeStep("2", block("js", "Write('out', config.name)", 20))},
			[]string{"native: JavaScript that parses and reads only defined names @ phases/01-x.md:1",
				"native: JavaScript that parses and reads only defined names @ phases/01-x.md:1"}},
		{"a binding of an agent step", []*Step{
			codeStep("1", block("js", "const config = parseFlags(userInput)", 10)),
			codeStep("2", block("js", "Write('out', config.name)", 20))},
			[]string{"agent: calls `parseFlags`, which no block declares @ phases/01-x.md:11:16",
				"agent: reads `config`, which step 1 binds, but that step goes to the agent @ phases/01-x.md:21:14"}},
		{"blocks of one step see each other", []*Step{codeStep("1", block("js", "function helper() { return 1 }", 10), block("bash", "true", 14), block("js", "helper()", 18))},
			[]string{"native: JavaScript that parses and reads only defined names; bash that parses, with no placeholder @ phases/01-x.md:1"}},
		{"one agent block makes the step agent", []*Step{codeStep("1", block("bash", "true", 10), block("js", "userInput", 14))},
			[]string{"agent: reads `userInput`, which nothing defines @ phases/01-x.md:15:1"}},
		{"block overrides", []*Step{codeStep("1", block("js agent", "Write('a', 'b')", 10)), codeStep("2", block("js native", "userInput", 20))},
			[]string{"agent: the block is marked agent @ phases/01-x.md:10:1", "native: the block is marked native @ phases/01-x.md:1"}},
		{"whole phase", []*Step{{Title: "x", Pos: Pos{File: "phases/01-x.md", Line: 1, Col: 1}, Whole: true}},
			[]string{"agent: no execution section: the whole phase goes to the agent @ phases/01-x.md:1:1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := classify(t, &Skill{}, tc.steps...)
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("classes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

func TestClassifyOrchestratorDeclarations(t *testing.T) {
	s := &Skill{Orchestrator: &Orchestrator{Declarations: []*CodeBlock{block("js", "const MAX = 3\nfunction pick(s) { return s }", 5)}}}
	s.Actions = []*Action{{ID: "action-a", Execution: Execution{Kind: ExecJS, Code: block("js", "function execute(state) { return pick(state).n < MAX ? {} : null }", 8)}}}
	classify(t, s)
	if c := s.Actions[0].Execution.Class; c.Kind != ClassNative {
		t.Errorf("action class %+v, want native: the orchestrator declares pick and MAX", c)
	}
}

// An execute with a parameter past (state, workDir) and no default, as
// review-code's execute(state, workDir, currentDimension), waits for an
// argument only the skill's own orchestrator passes: the action is the
// agent's, at that parameter. A default, or a block marked native, keeps
// it native.
func TestClassifyOrchestratorArgument(t *testing.T) {
	for _, tc := range []struct{ code, want string }{
		{"async function execute(state, workDir, currentDimension) { return {} }",
			"agent: execute takes `currentDimension`, which only the skill's own orchestrator passes (skillkit passes state and workDir) @ phases/01-x.md:9:40"},
		{"const execute = (state, workDir, {dimension}) => ({})",
			"agent: execute takes `{dimension}`, which only the skill's own orchestrator passes (skillkit passes state and workDir) @ phases/01-x.md:9:34"},
		{"function execute(state, workDir, dimension = 'security') { return {} }", "native: JavaScript that parses and reads only defined names @ phases/01-x.md:8:1"},
		{"function execute(state) { return {} }", "native: JavaScript that parses and reads only defined names @ phases/01-x.md:8:1"},
	} {
		s := &Skill{}
		s.Actions = []*Action{{ID: "action-a", Execution: Execution{Kind: ExecJS, Code: block("js", tc.code, 8)}}}
		classify(t, s)
		c := s.Actions[0].Execution.Class
		if got := string(c.Kind) + ": " + c.Reason + " @ " + c.Pos.String(); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.code, got, tc.want)
		}
	}
	s := &Skill{}
	s.Actions = []*Action{{ID: "action-a", Execution: Execution{Kind: ExecJS, Code: block("js native", "function execute(state, workDir, d) { return {} }", 8)}}}
	classify(t, s)
	if c := s.Actions[0].Execution.Class; c.Kind != ClassNative {
		t.Errorf("a block marked native: %+v", c)
	}
}

func TestClassifyExecutionSetting(t *testing.T) {
	step := func() *Step { return codeStep("1", block("js", "userInput", 10)) }
	fm := func(v any) *FrontMatter {
		return &FrontMatter{Fields: []*Field{{Key: "execution", Value: v, ValuePos: Pos{File: "SKILL.md", Line: 4, Col: 12}}}}
	}
	if got := classify(t, &Skill{FrontMatter: fm("native")}, step()); got[0] != "native: the skill sets execution: native @ phases/01-x.md:1" {
		t.Errorf("execution: native: %s", got[0])
	}
	ok := codeStep("1", block("bash", "true", 10))
	agent := &Skill{}
	agent.Configure(Settings{Config: []byte("execution: agent\n")})
	if got := classify(t, agent, ok); got[0] != "agent: the skill sets execution: agent @ phases/01-x.md:10:1" {
		t.Errorf("skillkit.yaml execution: agent: %s", got[0])
	}
	s := &Skill{FrontMatter: fm("sometimes")}
	if got := classify(t, s, step()); !strings.HasPrefix(got[0], "agent: reads `userInput`") {
		t.Errorf("a bad setting should count as auto: %s", got[0])
	}
	if len(s.Diagnostics) != 1 || s.Diagnostics[0].Code != "execution-invalid" || s.Diagnostics[0].Pos.Line != 4 {
		t.Errorf("diagnostics %v, want one execution-invalid at line 4", s.Diagnostics)
	}
}

func TestClassifyMCP(t *testing.T) {
	code := "const hits = mcp__ace-tool__search_context({ project_root_path: '.', query: 'bug' })\nstate.hits = hits"
	got := classify(t, &Skill{}, codeStep("1", block("javascript", code, 10)))
	if want := "agent: calls `mcp__ace-tool__search_context`, but MCP server `ace-tool` is not configured (.mcp.json) @ phases/01-x.md:11:14"; got[0] != want {
		t.Errorf("unconfigured:\n got %s\nwant %s", got[0], want)
	}
	got = classify(t, &Skill{MCPServers: []string{"ace-tool"}}, codeStep("1", block("javascript", code, 10)))
	if want := "native: JavaScript that parses and reads only defined names @ phases/01-x.md:1"; got[0] != want {
		t.Errorf("configured:\n got %s\nwant %s", got[0], want)
	}
	got = classify(t, &Skill{}, codeStep("1", block("javascript", "state.r = await MCP.call('memory', 'read_graph', {})", 10)))
	if !strings.HasPrefix(got[0], "native:") {
		t.Errorf("MCP.call: %s", got[0])
	}
}
