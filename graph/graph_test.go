package graph

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillkit/skillkit/internal/corpus"
	"github.com/skillkit/skillkit/parse"
	"github.com/skillkit/skillkit/plan"
)

var update = flag.Bool("update", false, "rewrite golden files")

var corpusDir = corpus.Root()

func corpusSkills(t *testing.T) []string {
	t.Helper()
	var dirs []string
	for _, e := range corpus.Skills(t) {
		dirs = append(dirs, e.Path())
	}
	return dirs
}

func mustParse(t *testing.T, dir string) *plan.Skill {
	t.Helper()
	s, err := parse.Dir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestGolden(t *testing.T) {
	corpusSkills(t)
	for name, dir := range map[string]string{
		"ccw-loop":       "catlog22__Claude-Code-Workflow/.claude/skills/ccw-loop",
		"ccw-loop-codex": "catlog22__Claude-Code-Workflow/.codex/skills/ccw-loop",
		"spec-generator": "catlog22__Claude-Code-Workflow/.claude/skills/spec-generator",
	} {
		g := Build(mustParse(t, filepath.Join(corpusDir, dir)), nil)
		for ext, got := range map[string]string{".mmd": g.Mermaid(), ".dot": g.Dot()} {
			golden := filepath.Join("testdata", name+ext)
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test ./graph -update)", err)
			}
			if got != string(want) {
				t.Errorf("%s differs from %s:\n%s", dir, golden, got)
			}
		}
	}
}

func TestPhaseFlowFollowsOrder(t *testing.T) {
	g := Build(mustParse(t, corpus.Skill(t, "catlog22__Claude-Code-Workflow/.claude/skills/spec-generator")), nil)
	var flow []string
	for _, e := range g.Flow {
		link := ""
		if e.Link {
			link = "(link)"
		}
		flow = append(flow, e.From+">"+e.To+link)
	}
	// Execution order first; 01's link to 02 (skipping 01-5) and 06-5's
	// link back to 06 are the author's and drawn as links.
	if !strings.Contains(strings.Join(flow, " "), "phase_01>phase_01_5 phase_01>phase_02(link) phase_01_5>phase_02") ||
		!strings.Contains(strings.Join(flow, " "), "phase_06_5>phase_06(link)") {
		t.Errorf("flow = %v", flow)
	}
}

func TestReturnsBecomeEdges(t *testing.T) {
	s := &plan.Skill{
		Orchestrator: &plan.Orchestrator{Doc: &plan.Doc{File: "phases/orchestrator.md"}},
		Actions:      []*plan.Action{{ID: "action-a", Preconditions: []*plan.Precondition{{Expr: plan.Expr{JS: "state.n < 3"}}}}},
	}
	g := Build(s, func(*plan.Orchestrator) []string { return []string{"action-a"} })
	if len(g.Loop) != 1 || g.Loop[0].From != "selectNextAction" || g.Loop[0].Label != "state.n < 3" {
		t.Errorf("loop = %+v", g.Loop)
	}
	if !strings.Contains(g.Mermaid(), `selectNextAction -->|"state.n < 3"| action_a`) {
		t.Errorf("mermaid:\n%s", g.Mermaid())
	}
}

// TestDotAcceptedByGraphviz runs Graphviz's dot on the graph of every
// corpus skill and every example.
func TestDotAcceptedByGraphviz(t *testing.T) {
	dirs := corpusSkills(t)
	examples, _ := filepath.Glob("../examples/*/SKILL.md")
	for _, e := range examples {
		dirs = append(dirs, filepath.Dir(e))
	}
	dot, err := exec.LookPath("dot")
	if err != nil {
		t.Skip("Graphviz dot not installed: skipping (apt-get install graphviz)")
	}
	for _, dir := range dirs {
		s := mustParse(t, dir)
		if len(s.Phases) == 0 && len(s.Actions) == 0 {
			continue
		}
		cmd := exec.Command(dot, "-Tsvg", "-o", os.DevNull)
		cmd.Stdin = strings.NewReader(Build(s, nil).Dot())
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil || stderr.Len() > 0 {
			t.Errorf("%s: dot: %v %s", dir, err, stderr.String())
		}
	}
}
