package lint

import (
	"fmt"
	"strings"
	"testing"
)

// specOrchestrator is the orchestrator template of the execution-modes
// specification (seed 004), verbatim: its Decision Logic reads
// MAX_RETRIES, which nothing declares.
const specOrchestrator = "# Orchestrator\n\n## Role\n\nSelect and execute the next action based on current state.\n\n" +
	"## State Reading\n\nRead state file: `{workDir}/state.json`\n\n" +
	"## Decision Logic\n\n```javascript\nfunction selectNextAction(state) {\n" +
	"  // 1. Check termination conditions\n" +
	"  if (state.status === 'completed') return null;\n" +
	"  if (state.error_count > MAX_RETRIES) return 'action-abort';\n\n" +
	"  // 2. Select action based on state\n" +
	"  if (!state.initialized) return 'action-init';\n" +
	"  if (state.pending_items.length > 0) return 'action-process';\n" +
	"  if (state.needs_review) return 'action-review';\n\n" +
	"  // 3. Default action\n  return 'action-complete';\n}\n```\n\n" +
	"## Execution Loop\n\n```\nwhile (true) {\n  state = readState();\n  action = selectNextAction(state);\n  if (!action) break;\n" +
	"  result = executeAction(action, state);\n  updateState(result);\n}\n```\n"

// specCatalog is the specification's action catalog, verbatim: its
// action-abort row holds while error_count>MAX, MAX declared nowhere.
const specCatalog = "# Action Catalog\n\n## Available Actions\n\n" +
	"| Action | Purpose | Preconditions | Effects |\n|--------|---------|---------------|---------|\n" +
	"| action-init | Initialize state | status=pending | status=running |\n" +
	"| action-process | Process pending items | pending_items.length>0 | pending_items-- |\n" +
	"| action-review | User review | needs_review=true | needs_review=false |\n" +
	"| action-complete | Complete task | pending_items.length=0 | status=completed |\n" +
	"| action-abort | Abort task | error_count>MAX | status=failed |\n"

// specSkill is a skill made of the specification's templates, with one
// native action per catalog row.
func specSkill(orchestrator, catalog string) map[string]string {
	files := map[string]string{
		"demo/SKILL.md":                demoSkill,
		"demo/phases/orchestrator.md":  orchestrator,
		"demo/specs/action-catalog.md": catalog,
		"demo/phases/state-schema.md": "# State Schema\n\n## Structure Definition\n\n```typescript\ninterface SkillState {\n" +
			"  status: 'pending' | 'running' | 'completed' | 'failed';\n  current_action: string | null;\n  completed_actions: string[];\n" +
			"  pending_items: any[];\n  initialized?: boolean;\n  needs_review?: boolean;\n" +
			"  errors: Array<{ action: string; message: string; timestamp: string; }>;\n  error_count: number;\n}\n```\n",
	}
	for _, a := range []string{"init", "process", "review", "complete", "abort"} {
		files["demo/phases/actions/action-"+a+".md"] = fmt.Sprintf("# Action: action-%s\n\n## Purpose\n\n%s.\n\n## Execution\n\n"+
			"```javascript\nasync function execute(state) {\n  return { completed_actions: [...state.completed_actions, 'action-%s'] };\n}\n```\n", a, a, a)
	}
	return files
}

// The specification's own templates read constants nobody declares:
// lint says so at the name, in the Decision Logic and in the catalog,
// instead of the run throwing (MAX_RETRIES) or the row never holding
// (MAX).
func TestSpecTemplatesUndeclaredConstants(t *testing.T) {
	res := lintTree(t, specSkill(specOrchestrator, specCatalog))
	var got []string
	for _, f := range res.Findings {
		if f.Rule == "name-undeclared" {
			got = append(got, fmt.Sprintf("%s:%d:%d %s", f.File, f.Line, f.Col, f.Severity))
		}
	}
	want := []string{
		"demo/phases/orchestrator.md:17:27 error",
		"demo/specs/action-catalog.md:11:43 error",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("name-undeclared findings:\n%s\nwant:\n%s\nall: %v", strings.Join(got, "\n"), strings.Join(want, "\n"), res.Findings)
	}

	// Declared in the orchestrator, both constants are fine.
	declared := strings.Replace(specOrchestrator, "```javascript\n", "```javascript\nconst MAX_RETRIES = 3;\nconst MAX = 3;\n", 1)
	for _, f := range lintTree(t, specSkill(declared, specCatalog)).Findings {
		if f.Rule == "name-undeclared" {
			t.Errorf("declared constants: %v", f)
		}
	}
}
