package lint

import "github.com/skillkit/skillkit/plan"

var outputRules = []Rule{
	newRule("output-path-outside", plan.SevError,
		"an Output section's File leaves the work dir, or its Schema the skill folder", checkOutputPaths),
}

func checkOutputPaths(p *Pass) {
	for _, ph := range p.Skill.Phases {
		for _, o := range ph.Outputs {
			if why := o.Outside(); why != "" {
				p.Report(o.Pos, "%s: outputs are checked in the work dir, their schemas read from the skill folder", why)
			}
		}
	}
}
