package plan

import (
	"encoding/json"
	"slices"
	"testing"
	"time"
)

func TestSectionKeyExecutionAliases(t *testing.T) {
	for _, h := range []string{"Execution", "Execution Steps", "Steps", "Execution Flow", "Execution Process",
		"Execution Phases", "Execution Protocol", "**Execution Logic:**", "2. Execution Flow", "执行", "执行步骤", "执行流程", "执行逻辑"} {
		if got := SectionKey(h); got != SecExecution {
			t.Errorf("SectionKey(%q) = %q, want %q", h, got, SecExecution)
		}
	}
	if got := SectionKey("Execution Notes"); got != "" {
		t.Errorf("SectionKey(Execution Notes) = %q, want none", got)
	}
}

// TestSectionKeyLanguages: the Chinese headings of real skills, and
// bilingual headings with a gloss, map where their English forms do.
func TestSectionKeyLanguages(t *testing.T) {
	for h, want := range map[string]string{
		"执行流程": SecExecution, "执行流程：": SecExecution, "Execution Flow (执行流程)": SecExecution,
		"执行流程（Execution Flow）": SecExecution, "下一阶段": SecNextPhase, "输入": SecInput, "输出": SecOutput,
		"初始化": SecInitialState, "初始状态": SecInitialState, "目标": SecObjective, "前置条件": SecPreconditions,
		"状态更新": SecStateUpdates, "状态结构": SecSchema, "Next Phase (Conditional)": SecNextPhase,
		"Output (write to file)": SecOutput, "Exploration Strategy (${angle} focus)": "", "核心原则": "",
	} {
		if got := SectionKey(h); got != want {
			t.Errorf("SectionKey(%q) = %q, want %q", h, got, want)
		}
	}
}

func TestResolveAction(t *testing.T) {
	s := &Skill{Actions: []*Action{{ID: "action-init"}, {ID: "action-init-run"}, {ID: "done"}}}
	for name, want := range map[string]string{
		"action-init": "action-init", "init": "action-init", "INIT": "action-init", "Action-Init": "action-init",
		"INIT_RUN": "action-init-run", "done": "done", "DONE": "done",
		"process": "", "action init": "", "": "",
	} {
		got := ""
		if a := s.ResolveAction(name); a != nil {
			got = a.ID
		}
		if got != want {
			t.Errorf("ResolveAction(%q) = %q, want %q", name, got, want)
		}
	}
	row := &CatalogRow{Action: "Initialize", Link: "../phases/actions/action-init.md#purpose"}
	if a := s.ResolveRow(row); a == nil || a.ID != "action-init" {
		t.Errorf("ResolveRow(link) = %v, want action-init", a)
	}
	if got := MissingActionFile("INIT_RUN"); got != "action-init-run" {
		t.Errorf("MissingActionFile(INIT_RUN) = %q: ResolveAction would not find that file", got)
	}
}

func TestBaseFieldsFollowBaseState(t *testing.T) {
	var names []string
	for _, f := range BaseFields {
		names = append(names, f.Name)
	}
	want := []string{"status", "started_at", "updated_at", "current_action", "completed_actions", "errors", "error_count"}
	if !slices.Equal(names, want) {
		t.Errorf("BaseFields = %v, want %v (DESIGN §1.4)", names, want)
	}
	if BaseFields[3].Type != "string|null" || BaseFields[6].Type != "integer" {
		t.Errorf("types = %+v", BaseFields)
	}
}

func TestInitialState(t *testing.T) {
	now := time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)
	s := &Skill{Name: "demo", StateSchema: &StateSchema{Initial: map[string]any{
		"status": "pending", "context": map[string]any{"name": "{skill-name}", "at": []any{"{ISO8601}", "{skill_name}"}},
	}}}
	got, _ := json.Marshal(s.InitialState(now))
	const want = `{"completed_actions":[],"context":{"at":["2025-03-04T05:06:07Z","demo"],"name":"demo"},"current_action":null,"error_count":0,"errors":[],"started_at":"2025-03-04T05:06:07Z","status":"running","updated_at":"2025-03-04T05:06:07Z"}`
	if string(got) != want {
		t.Errorf("InitialState = %s\nwant %s", got, want)
	}
	s.Actions = []*Action{{ID: "action-init"}}
	if st := s.InitialState(now); st["status"] != "pending" {
		t.Errorf("a skill with actions keeps status pending, got %v", st["status"])
	}
}

func TestStepKindLabel(t *testing.T) {
	block := func(lang string) *CodeBlock { return &CodeBlock{Lang: lang, Info: lang} }
	for _, tc := range []struct {
		code []*CodeBlock
		want string
	}{
		{nil, "agent"},
		{[]*CodeBlock{block("json")}, "agent"},
		{[]*CodeBlock{block("bash"), block("sh"), block("js")}, "bash+js"},
		{[]*CodeBlock{block("javascript"), block("bash")}, "js+bash"},
	} {
		if got := (&Step{Code: tc.code}).KindLabel(); got != tc.want {
			t.Errorf("KindLabel(%v) = %q, want %q", tc.code, got, tc.want)
		}
	}
}

// TestCandidatesOfTheCatalog: with catalog rows, the selection weighs
// the actions the rows name and no other, so an action outside the
// catalog whose precondition is prose does not make plan say the agent
// selects (the selector would not let it).
func TestCandidatesOfTheCatalog(t *testing.T) {
	code := func(js string) *Precondition { return &Precondition{Expr: Expr{Text: js, JS: js}} }
	prose := &Precondition{Expr: Expr{Text: "when a report is needed"}}
	s := &Skill{
		Orchestrator: &Orchestrator{},
		Catalog:      &Catalog{Rows: []*CatalogRow{{Action: "action-a", Preconditions: []*Precondition{code("!state.done")}}}},
		Actions: []*Action{
			{ID: "action-a"},
			{ID: "action-b", Preconditions: []*Precondition{prose}},
		},
	}
	cs := s.Candidates()
	if len(cs) != 1 || cs[0].Action.ID != "action-a" || len(cs[0].Pre) != 1 {
		t.Fatalf("candidates %+v, want action-a alone with its row's precondition", cs)
	}
	if s.selectsOnProse() {
		t.Error("an action outside the catalog makes plan say the agent selects")
	}
	s.Catalog = nil
	if !s.selectsOnProse() {
		t.Error("without a catalog, action-b's prose precondition is weighed: plan must say the agent selects")
	}
}
