package plan

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/skillkit/skillkit/jsstatic"
)

// Step classes (DESIGN §1.5): most skills in the wild are written for a
// model, and their code blocks are instructions rather than programs. A
// step or an action runs natively only when its code can run as written;
// otherwise its text and code go to the agent.
const (
	ClassNative ClassKind = "native"
	ClassAgent  ClassKind = "agent"
)

// ClassKind is native or agent.
type ClassKind string

// Class says whether a step or an action's Execution runs natively or goes
// to the agent, and why, in words a person can act on. Classify computes
// it once for the whole skill, so that plan, lint, dry run and run agree.
type Class struct {
	// Kind is ClassNative or ClassAgent.
	Kind   ClassKind `json:"kind"`
	Reason string    `json:"reason"`
	// Pos is what the reason is about: the name, the block or the step.
	Pos Pos `json:"pos"`
	// From is set when the code would be native but reads a name an
	// earlier step binds and that step goes to the agent: the name and
	// that step, as "name" and "step 2".
	From *Binding `json:"from,omitempty"`
	// Undeclared is set when the code goes to the agent only because it
	// reads (never calls) names nothing defines: were they declared, it
	// would be native. In Decision Logic that is a forgotten constant
	// (execution modes' own template reads MAX_RETRIES), which lint
	// reports as an error rather than as agent guidance.
	Undeclared bool `json:"undeclared,omitempty"`
}

// Binding is a name a step binds, and the step.
type Binding struct {
	Name string `json:"name"`
	Step string `json:"step"`
}

// Skill-wide execution settings: the front matter key (or skillkit.yaml
// key) execution.
const (
	ExecutionKey    = "execution"
	ExecutionAuto   = "auto"
	ExecutionNative = "native"
	ExecutionAgent  = "agent"
)

// HostGlobals are the names the JS host defines for skill code (DESIGN
// §3.3, docs/host-api.md): the tools, console, and the run's values. A
// test of the host keeps it in step with what the runtime defines.
var HostGlobals = []string{
	"Read", "Write", "Edit", "Bash", "Glob", "Grep", "AskUserQuestion", "Task", "Agent",
	"ExecuteScript", "console", "MCP",
	"state", "inputs", "workDir", "skillDir", "projectDir", "ARGUMENTS", "args",
}

// PureGlobals are the names pure code sees beside the JS built-ins and the
// orchestrator's declarations: preconditions, step conditions and
// selectNextAction run with state and inputs, and no host API
// (internal/script.PureEnv).
var PureGlobals = []string{"state", "inputs"}

// Reasons that are the same wherever they apply.
const (
	reasonProse      = "prose: no runnable block"
	reasonWholePhase = "no execution section: the whole phase goes to the agent"
	reasonWholeAct   = "no execution section: the whole action goes to the agent"
)

// Classify sets the Class of every step and every action's Execution.
// It parses each JavaScript block it reads once, for CodeBlock.JS.
// The parser calls it once, after it read the whole skill: a JS block's
// names may be declared by the orchestrator, or bound by an earlier
// native step of the same phase. A bad execution setting is a
// diagnostic (execution-invalid) and counts as auto.
func (s *Skill) Classify() {
	s.Execution = s.executionMode()
	c := &classifier{mode: s.Execution, servers: s.MCPServers, blocks: s.Blocks}
	global := map[string]string{}
	for _, names := range [][]string{jsstatic.Builtins, HostGlobals} {
		for _, n := range names {
			global[n] = ""
		}
	}
	if o := s.Orchestrator; o != nil {
		for _, b := range o.Declarations {
			_, top := b.parsed(c.blocks).names()
			for _, n := range top {
				global[n] = ""
			}
		}
	}
	for _, ph := range s.Phases {
		// Names bound by the phase's steps: "" for a native step's, the
		// step's title for an agent step's, which later steps cannot use.
		scope := &scope{global: global, bound: map[string]string{}}
		for _, st := range ph.Steps {
			st.Class = c.step(st, scope)
		}
	}
	for _, a := range s.Actions {
		a.Execution.Class = c.execution(a, &scope{global: global})
	}
	if o := s.Orchestrator; o != nil && o.Decision != nil {
		// Decision Logic the runtime cannot run as written is the agent's:
		// it selects from the catalog instead.
		o.Class, _ = c.block(o.Decision, &scope{global: global})
	}
}

// executionMode reads the skill's execution setting: the front matter
// first, else skillkit.yaml.
func (s *Skill) executionMode() string {
	if f := s.FrontMatter.Get(ExecutionKey); f != nil {
		return s.checkMode(f.Value, f.ValuePos)
	}
	n, _ := s.configValue(ExecutionKey)
	if n == nil {
		return ExecutionAuto
	}
	var v any
	_ = n.Decode(&v)
	return s.checkMode(v, Pos{File: ConfigFile, Line: n.Line, Col: n.Column})
}

func (s *Skill) checkMode(v any, pos Pos) string {
	switch v {
	case ExecutionAuto, ExecutionNative, ExecutionAgent:
		return v.(string)
	}
	s.Diagnostics = append(s.Diagnostics, Diagnostic{Pos: pos, Severity: SevError, Code: "execution-invalid",
		Message: fmt.Sprintf("execution %v is not auto, native or agent; auto applies", v)})
	return ExecutionAuto
}

type classifier struct {
	mode string
	// servers are the configured MCP servers: their tools are host
	// functions.
	servers []string
	blocks  *Blocks
}

// scope is what a block may read: the global names, and the names bound
// at the top level of the phase's earlier steps, each with "" when its
// step is native or the step's title when it goes to the agent. A step's
// own scope sits over its phase's (outer): copying the phase's names for
// each step would cost the square of the steps in a long phase.
type scope struct {
	global map[string]string
	bound  map[string]string
	outer  *scope
}

func (sc *scope) lookup(name string) (step string, ok bool) {
	if _, ok := sc.global[name]; ok {
		return "", true
	}
	for s := sc; s != nil; s = s.outer {
		if step, ok = s.bound[name]; ok {
			return step, true
		}
	}
	return "", false
}

func (c *classifier) step(st *Step, sc *scope) Class {
	if st.Whole {
		return Class{Kind: ClassAgent, Reason: reasonWholePhase, Pos: st.Pos}
	}
	blocks := st.Runnable()
	if len(blocks) == 0 {
		return Class{Kind: ClassAgent, Reason: reasonProse, Pos: st.Pos}
	}
	// The step's own blocks see each other's names; the phase sees them
	// only once the step as a whole is known to be native.
	local := &scope{global: sc.global, bound: map[string]string{}, outer: sc}
	var reasons []string
	var bound []string
	for _, b := range blocks {
		cl, names := c.block(b, local)
		if cl.Kind == ClassAgent {
			label := "step " + orTitle(st)
			for _, b := range blocks {
				for _, n := range c.jsNames(b) {
					sc.bound[n] = label
				}
			}
			return cl
		}
		for _, n := range names {
			local.bound[n] = ""
		}
		bound = append(bound, names...)
		if !slices.Contains(reasons, cl.Reason) {
			reasons = append(reasons, cl.Reason)
		}
	}
	for _, n := range bound {
		sc.bound[n] = ""
	}
	return Class{Kind: ClassNative, Reason: strings.Join(reasons, "; "), Pos: st.Pos}
}

func orTitle(st *Step) string {
	if st.Number != "" {
		return st.Number
	}
	return fmt.Sprintf("%q", st.Title)
}

func (c *classifier) execution(a *Action, sc *scope) Class {
	e := a.Execution
	switch {
	case e.Whole:
		return Class{Kind: ClassAgent, Reason: reasonWholeAct, Pos: e.Pos}
	case e.Code == nil:
		return Class{Kind: ClassAgent, Reason: reasonProse, Pos: e.Pos}
	}
	cl, _ := c.block(e.Code, sc)
	if cl.Kind == ClassNative && c.mode == ExecutionAuto && !e.Code.Marked(ExecutionNative) && e.Code.Kind() == LangJS {
		// skillkit calls execute(state, workDir): a parameter past
		// those (review-code's currentDimension) is one only the
		// skill's own orchestrator passes, and the code would run
		// with it undefined.
		if p := e.Code.parsed(c.blocks); p.err == nil {
			if params := p.prog.Params("execute"); len(params) > 2 {
				x := params[2]
				return Class{Kind: ClassAgent, Pos: e.Code.At(x.Line, x.Col),
					Reason: fmt.Sprintf("execute takes `%s`, which only the skill's own orchestrator passes (skillkit passes state and workDir)", x.Name)}
			}
		}
	}
	return cl
}

// block classifies one runnable block and returns the top-level names it
// binds when it is native JavaScript.
func (c *classifier) block(b *CodeBlock, sc *scope) (Class, []string) {
	switch {
	case b.Marked(ExecutionAgent):
		return Class{Kind: ClassAgent, Reason: "the block is marked agent", Pos: b.Pos}, nil
	case b.Marked(ExecutionNative):
		return Class{Kind: ClassNative, Reason: "the block is marked native", Pos: b.Pos}, c.jsNames(b)
	case c.mode == ExecutionAgent:
		return Class{Kind: ClassAgent, Reason: "the skill sets execution: agent", Pos: b.Pos}, nil
	case c.mode == ExecutionNative:
		return Class{Kind: ClassNative, Reason: "the skill sets execution: native", Pos: b.Pos}, c.jsNames(b)
	case b.Kind() == LangBash:
		return c.bashClass(b), nil
	}
	return c.jsClass(b, sc)
}

// jsNames returns the top-level names of a JS block, nil for bash or JS
// that does not parse.
func (c *classifier) jsNames(b *CodeBlock) []string {
	if b.Kind() != LangJS {
		return nil
	}
	_, top := b.parsed(c.blocks).names()
	return top
}

func (c *classifier) jsClass(b *CodeBlock, sc *scope) (Class, []string) {
	p := b.parsed(c.blocks)
	if err := p.err; err != nil {
		pos, msg := b.Body, err.Error()
		var se *jsstatic.SyntaxError
		if errors.As(err, &se) {
			pos, msg = b.At(se.Line, se.Col), se.Msg
		}
		return Class{Kind: ClassAgent, Reason: "JavaScript does not parse: " + msg, Pos: pos}, nil
	}
	free, top := p.names()
	for i, r := range free {
		step, ok := sc.lookup(r.Name)
		if ok && step == "" {
			continue
		}
		pos := b.At(r.Line, r.Col)
		if server, _, isTool := jsstatic.SplitMCP(r.Name); isTool && !ok {
			if slices.Contains(c.servers, server) {
				continue
			}
			return Class{Kind: ClassAgent, Reason: fmt.Sprintf("calls `%s`, but MCP server `%s` is not configured (.mcp.json)", r.Name, server), Pos: pos}, nil
		}
		switch {
		case ok:
			cl := Class{Kind: ClassAgent, Reason: fmt.Sprintf("reads `%s`, which %s binds, but that step goes to the agent", r.Name, step), Pos: pos}
			// From is kept for code whose only fault is such names: were
			// that step native, this one would be too.
			if !slices.ContainsFunc(free[i+1:], func(r jsstatic.Ref) bool { _, ok := sc.lookup(r.Name); return !ok }) {
				cl.From = &Binding{Name: r.Name, Step: step}
			}
			return cl, nil
		case r.Called:
			return Class{Kind: ClassAgent, Reason: fmt.Sprintf("calls `%s`, which no block declares", r.Name), Pos: pos}, nil
		}
		return Class{Kind: ClassAgent, Reason: fmt.Sprintf("reads `%s`, which nothing defines", r.Name), Pos: pos,
			Undeclared: !slices.ContainsFunc(free[i+1:], func(r jsstatic.Ref) bool {
				step, ok := sc.lookup(r.Name)
				return ok && step != "" || !ok && r.Called
			})}, nil
	}
	return Class{Kind: ClassNative, Reason: "JavaScript that parses and reads only defined names", Pos: b.Pos}, top
}

// modelVariable is a variable Claude Code substitutes in a skill's text
// before the model sees it; a shell has no value for it.
var modelVariable = regexp.MustCompile(`\$\{?(?:ARGUMENTS|CLAUDE_SKILL_DIR|CLAUDE_SESSION_ID)\b`)

// modelVariableIn is modelVariable's first match in text, looked for only
// in text that holds one of its names: the expression costs in proportion
// to the text even where it cannot match, and classifying every shell
// block of a skill ran it at each of an editor's re-lints.
func modelVariableIn(text string) []int {
	if !strings.Contains(text, "ARGUMENTS") && !strings.Contains(text, "CLAUDE_S") {
		return nil
	}
	return modelVariable.FindStringIndex(text)
}

func (c *classifier) bashClass(b *CodeBlock) Class {
	if slot, at, ok := BashPlaceholder(b.Text); ok {
		return Class{Kind: ClassAgent, Reason: fmt.Sprintf("bash holds `%s`, a placeholder for the agent", slot), Pos: b.offsetPos(at)}
	}
	if loc := modelVariableIn(b.Text); loc != nil {
		return Class{Kind: ClassAgent, Reason: fmt.Sprintf("bash holds `%s`, which the agent fills in", b.Text[loc[0]:loc[1]]), Pos: b.offsetPos(loc[0])}
	}
	if err := b.bashParsed(c.blocks); err != nil {
		pos, msg := b.Body, err.Error()
		var pe syntax.ParseError
		if errors.As(err, &pe) {
			pos, msg = b.At(int(pe.Pos.Line()), int(pe.Pos.Col())), pe.Text
		}
		return Class{Kind: ClassAgent, Reason: "bash does not parse: " + msg, Pos: pos}
	}
	return Class{Kind: ClassNative, Reason: "bash that parses, with no placeholder", Pos: b.Pos}
}

// At returns the position of a 1-based line and byte column of the
// block's text. Lines of a block in a list item keep the item's
// indentation, so the first line's column offset applies to all.
func (c *CodeBlock) At(line, col int) Pos {
	pos := c.Body
	pos.Line += line - 1
	pos.Col = max(c.Body.Col, 1) + col - 1
	return pos
}

// offsetPos is At for a byte offset into the block's text.
func (c *CodeBlock) offsetPos(off int) Pos {
	before := c.Text[:off]
	line := strings.Count(before, "\n") + 1
	return c.At(line, off-strings.LastIndex(before, "\n"))
}
