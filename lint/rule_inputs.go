package lint

import "github.com/skillkit/skillkit/plan"

// inputRules check the declarations that skillkit run checks its inputs
// against: one reading of them (plan.Skill.Inputs) for both.
var inputRules = []Rule{
	newRule("inputs-invalid", plan.SevError,
		"the front matter's inputs block or arguments list does not hold (type, default, enum)", checkInputs),
}

func checkInputs(p *Pass) {
	_, diags := p.Skill.Inputs()
	for _, d := range diags {
		p.Report(d.Pos, "%s", d.Message)
	}
}
