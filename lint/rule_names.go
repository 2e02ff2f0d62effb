package lint

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/skillkit/skillkit/jsstatic"
	"github.com/skillkit/skillkit/plan"
)

var nameRules = []Rule{
	newRule("name-undeclared", plan.SevError,
		"a precondition, catalog precondition, step condition or decision logic (native, or the agent's only for such names) reads a name nothing declares: evaluating it throws", checkUndeclared(false)),
	newRule("name-undeclared-agent", plan.SevInfo,
		"decision logic that goes to the agent for another reason too reads a name nothing declares", checkUndeclared(true)),
	newRule("step-agent-binding", plan.SevInfo,
		"a step reads a name an earlier step binds, and that step goes to the agent, so this one does too", checkAgentBinding),
	newRule("output-unwritten", plan.SevError,
		"a phase declares an output that no step can write: no native step names it and no step goes to the agent", checkOutputUnwritten),
}

// pureScope is the set of names pure code may read (plan.PureGlobals, the
// JS built-ins, the orchestrator's top-level declarations), once per pass.
func (p *Pass) pureScope() map[string]bool {
	if p.pure != nil {
		return p.pure
	}
	scope := map[string]bool{}
	for _, names := range [][]string{jsstatic.Builtins, plan.PureGlobals} {
		for _, n := range names {
			scope[n] = true
		}
	}
	if o := p.Skill.Orchestrator; o != nil {
		for _, c := range o.Declarations {
			if b := p.parseJS(c); b.prog != nil && !b.template {
				for _, n := range b.prog.TopLevelNames() {
					scope[n] = true
				}
			}
		}
	}
	p.pure = scope
	return scope
}

// checkUndeclared reports names pure code reads and nothing declares: in
// expressions the runtime evaluates (preconditions, catalog cells, step
// conditions) and in decision logic, by the decision logic's class (agent
// set: the agent's, where it is a note; else native code, where it
// throws). Decision logic that goes to the agent only for such names
// counts as native: the names are forgotten constants, not guidance.
func checkUndeclared(agent bool) func(p *Pass) {
	return func(p *Pass) {
		scope := p.pureScope()
		if o := p.Skill.Orchestrator; o != nil && o.Decision != nil && (o.Class.Kind == plan.ClassAgent && !o.Class.Undeclared) == agent {
			outcome := undeclaredOutcome(agent)
			if o.Class.Undeclared {
				outcome = ": declare it in the orchestrator's code (until then the agent selects every next action)"
			}
			if b := p.parseJS(o.Decision); b.prog != nil && !b.template {
				for _, r := range b.prog.FreeNames() {
					if !scope[r.Name] {
						pos := o.Decision.At(r.Line, r.Col)
						p.ReportRange(pos, pos.Col+len(r.Name), "selectNextAction reads `%s`, which nothing declares%s", r.Name, outcome)
					}
				}
			}
		}
		if agent {
			return
		}
		for _, e := range p.Skill.Exprs() {
			if !e.Checkable() {
				continue
			}
			prog := p.parseExpr(e)
			if prog == nil {
				continue
			}
			for _, r := range prog.FreeNames() {
				if !scope[r.Name] {
					pos, end := p.tokenAt(e.Pos, r.Name)
					p.ReportRange(pos, end, "%q reads `%s`, which nothing declares%s", e.Text, r.Name, undeclaredOutcome(false))
				}
			}
		}
	}
}

func undeclaredOutcome(agent bool) string {
	if agent {
		return " (the agent selects the next action instead of this code)"
	}
	return ": evaluating it throws a ReferenceError; pure code sees only state, inputs, JavaScript's built-ins and the orchestrator's declarations"
}

// checkAgentBinding reports steps that would run natively but for names
// an agent step binds: one finding per agent step, at the first step that
// reads its names, counting the others (the cause is that one step).
func checkAgentBinding(p *Pass) {
	for _, ph := range p.Skill.Phases {
		var order []string
		first := map[string]*plan.Step{}
		more := map[string]int{}
		for _, st := range ph.Steps {
			b := st.Class.From
			if b == nil {
				continue
			}
			if first[b.Step] == nil {
				first[b.Step] = st
				order = append(order, b.Step)
			} else {
				more[b.Step]++
			}
		}
		for _, src := range order {
			st := first[src]
			b := st.Class.From
			others := ""
			if n := more[src]; n > 0 {
				others = fmt.Sprintf(" (%s read names %s binds)", plural(n, "more step"), src)
			}
			p.ReportRange(st.Class.Pos, st.Class.Pos.Col+len(b.Name),
				"reads `%s`, which %s binds, but %s goes to the agent, so its bindings do not exist for native code: this step, native otherwise, goes to the agent too%s; compute `%s` here or make %s native",
				b.Name, src, src, others, b.Name, src)
		}
	}
}

func checkOutputUnwritten(p *Pass) {
	for _, ph := range p.Skill.Phases {
		// An orchestrator phase's outputs are its actions' to write.
		if ph.IsOrchestrator || len(ph.Steps) == 0 || len(ph.Outputs) == 0 || slices.ContainsFunc(ph.Steps, func(st *plan.Step) bool { return st.Class.Kind == plan.ClassAgent }) {
			continue
		}
		for _, o := range ph.Outputs {
			if strings.ContainsAny(o.File, "{}<>*") {
				continue // a name the run fills in, not one code could name
			}
			if !slices.ContainsFunc(ph.Steps, func(st *plan.Step) bool { return namesFile(st, o.File) }) {
				p.ReportRange(o.Pos, 0, "output %s is declared, but every step of the phase is native and none names it: the run fails its output check; write it in a step, or leave the step to the agent", o.File)
			}
		}
	}
}

// namesFile reports whether a step's code names a file, by its path or
// its base name.
func namesFile(st *plan.Step, file string) bool {
	for _, c := range st.Code {
		if strings.Contains(c.Text, file) || strings.Contains(c.Text, path.Base(file)) {
			return true
		}
	}
	return false
}
