package graph

import (
	"bytes"
	"flag"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillkit/skillkit/internal/corpus"
	"github.com/skillkit/skillkit/internal/runstore"
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
		"ccw-loop":       filepath.Join(corpusDir, "catlog22__Claude-Code-Workflow/.claude/skills/ccw-loop"),
		"ccw-loop-codex": filepath.Join(corpusDir, "catlog22__Claude-Code-Workflow/.codex/skills/ccw-loop"),
		"spec-generator": filepath.Join(corpusDir, "catlog22__Claude-Code-Workflow/.claude/skills/spec-generator"),
		// A hybrid skill: the phase flow joins the loop as a whole.
		"hybrid": "../examples/hybrid",
	} {
		g := Build(mustParse(t, dir), nil)
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
	// The action names no next one: it goes back to the selection.
	if len(g.Loop) != 2 || g.Loop[0].From != "selectNextAction" || g.Loop[0].Cond != "state.n < 3" ||
		!g.Loop[1].Back || g.Loop[1].From != "action-a" || g.Loop[1].To != "selectNextAction" {
		t.Errorf("loop = %+v", g.Loop)
	}
	if !strings.Contains(g.Mermaid(), `selectNextAction -->|"n < 3"| action_a`) {
		t.Errorf("mermaid:\n%s", g.Mermaid())
	}
	if !strings.Contains(g.Dot(), `"selectNextAction" -> "action-a" [label="n < 3", tooltip="state.n < 3"]`) {
		t.Errorf("dot:\n%s", g.Dot())
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

// TestPaint colours the path a run took: what ran by its last outcome,
// what the run went past as skipped, what it stopped before as not
// reached.
func TestPaint(t *testing.T) {
	s := mustParse(t, "../examples/hybrid")
	ev := func(phase, action, to string) runstore.Event {
		return runstore.Event{Phase: phase, Action: action, To: runstore.State(to)}
	}
	cases := []struct {
		name   string
		events []runstore.Event
		want   map[string]Outcome
	}{{
		name: "failed in the loop",
		events: []runstore.Event{
			ev("01-collect", "", "loading"), {Phase: "01-collect", Step: "01-collect#1", To: "failed"},
			ev("01-collect", "", "completed"),
			ev("02-orchestrator", "", "loading"),
			ev("", "action-count", "loading"), ev("", "action-count", "completed"),
			ev("", "action-count", "loading"), ev("", "action-count", "failed"),
			ev("02-orchestrator", "", "failed"), ev("", "", "failed"),
		},
		want: map[string]Outcome{
			"phase_01": {Completed, 1}, "phase_02": {Failed, 1}, "phase_03": {NotReached, 0},
			"action-count": {Failed, 2}, "action-rank": {NotReached, 0},
		},
	}, {
		name: "interrupted in the last phase",
		events: []runstore.Event{
			ev("01-collect", "", "loading"), ev("01-collect", "", "completed"),
			ev("02-orchestrator", "", "loading"), ev("", "action-count", "loading"), ev("", "action-count", "completed"),
			ev("02-orchestrator", "", "completed"),
			ev("03-report", "", "loading"), ev("03-report", "", "executing"),
		},
		want: map[string]Outcome{
			"phase_01": {Completed, 1}, "phase_02": {Completed, 1}, "phase_03": {Started, 1},
			"action-count": {Completed, 1}, "action-rank": {Skipped, 0},
		},
	}, {
		// A try cut by a stop is drawn apart and is no repeat.
		name: "interrupted in an action, resumed",
		events: []runstore.Event{
			ev("01-collect", "", "loading"), ev("01-collect", "", "completed"),
			ev("02-orchestrator", "", "loading"), ev("", "action-count", "loading"),
			ev("", "", "interrupted"), ev("", "", "running"),
			ev("02-orchestrator", "", "loading"), ev("", "action-count", "loading"), ev("", "action-count", "completed"),
			ev("02-orchestrator", "", "completed"), ev("03-report", "", "loading"),
			ev("", "", "interrupted"),
		},
		want: map[string]Outcome{
			"phase_01": {Completed, 1}, "phase_02": {Completed, 1}, "phase_03": {Interrupted, 0},
			"action-count": {Completed, 1}, "action-rank": {Skipped, 0},
		},
	}}
	for _, c := range cases {
		g := Build(s, nil)
		g.Paint(c.events)
		if !maps.Equal(g.Run, c.want) {
			t.Errorf("%s: run = %v, want %v", c.name, g.Run, c.want)
		}
	}
	g := Build(s, nil)
	g.Paint(cases[0].events)
	if m := g.Mermaid(); !strings.Contains(m, `action_count["action-count ×2"]`) ||
		!strings.Contains(m, "class phase_02,action_count failed") {
		t.Errorf("mermaid:\n%s", m)
	}
	if d := g.Dot(); !strings.Contains(d, `"phase_03" [label="03 Report", style="filled,dashed", fillcolor="#ffffff"`) {
		t.Errorf("dot:\n%s", d)
	}
}
