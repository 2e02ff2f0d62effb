package parse

import (
	"regexp"
	"strings"

	"github.com/skillkit/skillkit/plan"
)

// sectionAliases maps a normalized heading to its canonical key. Real skills
// write the same section many ways; the Chinese forms are the ones found in
// the corpus.
var sectionAliases = map[string]string{
	"objective": plan.SecObjective, "objectives": plan.SecObjective, "goal": plan.SecObjective,
	"goals": plan.SecObjective, "task objective": plan.SecObjective, "目标": plan.SecObjective,

	"input": plan.SecInput, "inputs": plan.SecInput, "输入": plan.SecInput,

	"execution": plan.SecExecution, "execution steps": plan.SecExecution, "steps": plan.SecExecution,
	"执行": plan.SecExecution, "执行步骤": plan.SecExecution,

	"output": plan.SecOutput, "outputs": plan.SecOutput, "输出": plan.SecOutput,

	"next phase": plan.SecNextPhase, "下一阶段": plan.SecNextPhase, "next step": plan.SecNextPhase,

	"purpose": plan.SecPurpose, "目的": plan.SecPurpose,

	"preconditions": plan.SecPreconditions, "precondition": plan.SecPreconditions,
	"前置条件": plan.SecPreconditions,

	"state update": plan.SecStateUpdates, "state updates": plan.SecStateUpdates,
	"状态更新": plan.SecStateUpdates,

	"next actions": plan.SecNextActions, "next actions (hints)": plan.SecNextActions,
	"next action": plan.SecNextActions, "下一步动作": plan.SecNextActions,

	"decision logic": plan.SecDecisionLogic, "决策逻辑": plan.SecDecisionLogic,

	"action catalog": plan.SecActionCatalog, "available actions": plan.SecActionCatalog,
	"动作目录": plan.SecActionCatalog,

	"initial state": plan.SecInitialState, "初始状态": plan.SecInitialState,

	"schema definition": plan.SecSchema, "state schema": plan.SecSchema, "schema": plan.SecSchema,
	"状态结构": plan.SecSchema,
}

// leadingEnumeration drops "1.", "2)" and emoji-free decoration that some
// authors put before a heading's words.
var leadingEnumeration = regexp.MustCompile(`^(?:\d+[.)]\s*)+`)

// normalizeHeading lower-cases a heading and strips what does not change its
// meaning: enumeration, a trailing colon, bold marks, surrounding space.
func normalizeHeading(h string) string {
	h = strings.TrimSpace(strings.ReplaceAll(h, "**", ""))
	if h != "" && h[0] >= '0' && h[0] <= '9' {
		h = leadingEnumeration.ReplaceAllString(h, "")
	}
	h = strings.TrimRight(h, ":： ")
	return strings.ToLower(strings.Join(strings.Fields(h), " "))
}

// sectionKey returns the canonical key of a heading, "" for an unknown one.
func sectionKey(h string) string {
	n := normalizeHeading(h)
	if k, ok := sectionAliases[n]; ok {
		return k
	}
	// "Initial State Template", "Initial State (New Cycle)".
	if strings.HasPrefix(n, "initial state") || strings.HasPrefix(n, "初始状态") {
		return plan.SecInitialState
	}
	return ""
}

// stepHeading matches "Step 2", "Step 2.1: Title", "Step 3 - Title" and
// the Chinese "步骤 2".
var stepHeading = regexp.MustCompile(`^(?i:step|步骤)\s*(\d+(?:\.\d+)*)\s*[:：.\-–—]?\s*(.*)$`)

// phaseTitle matches a "Phase N:" prefix of a phase's H1.
var phaseTitle = regexp.MustCompile(`^(?i:phase)\s+([0-9]+(?:[.-][0-9]+)?[a-z]?)\s*[:：.\-–—]?\s*(.*)$`)
