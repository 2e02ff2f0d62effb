package orchestrator_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillkit/skillkit/internal/orchestrator"
	lifecycle "github.com/skillkit/skillkit/internal/run"

	"github.com/skillkit/skillkit/internal/corpus"
	"github.com/skillkit/skillkit/internal/testfs"
	"github.com/skillkit/skillkit/jsstatic"
	"github.com/skillkit/skillkit/lint"
	"github.com/skillkit/skillkit/plan"
)

// selectable is an action name a skill can make the run select, and
// whether the runtime's resolution finds an action file for it (else the
// run hands it to the agent as an unfiled action, or refuses prose).
type selectable struct {
	name, where string
	accepted    bool
}

// selectableNames lists every action name of a skill that selection can
// meet: catalog Action cells, string literals selectNextAction returns,
// mermaid graph nodes written as action ids, and Next Actions hints. Each
// goes through the runtime's own resolution (the selection's candidates,
// plan.Skill.Candidates, for catalog rows; resolve for the rest).
func selectableNames(s *plan.Skill) []selectable {
	var out []selectable
	add := func(name, where string, a *plan.Action) {
		out = append(out, selectable{name: name, where: where, accepted: a != nil && a.Doc != nil})
	}
	byName := func(name, where string) {
		a, _ := orchestrator.Resolve(s, name, plan.Pos{File: where})
		add(name, where, a)
	}
	// A row whose Action cell is prose names no action: no candidate.
	for _, c := range s.Candidates() {
		if c.Row != nil {
			add(c.Row.Action, "catalog", c.Action)
		}
	}
	if c := s.Catalog; c != nil {
		for _, e := range c.Edges {
			for _, n := range []plan.GraphNode{e.From, e.To} {
				if name := n.Action(); name != "" {
					byName(name, "graph")
				}
			}
		}
	}
	for _, a := range s.Actions {
		for _, h := range a.Hints {
			byName(h.Action, "hint")
		}
	}
	if o := s.Orchestrator; o != nil && o.Decision != nil {
		if prog, err := jsstatic.Parse(o.Decision.Text); err == nil {
			for _, lit := range prog.FunctionReturns("selectNextAction").Strings {
				if plan.IsActionName(lit.Value) {
					byName(lit.Value, "selectNextAction")
				}
			}
		}
	}
	return out
}

// checkNamesAgree lints each skill and checks every selectable name: lint
// reports action-missing for it exactly when the runtime finds no file
// for it. It
// returns how many names it checked.
func checkNamesAgree(t *testing.T, dirs []string) (names, skills int) {
	t.Helper()
	for _, dir := range dirs {
		s := load(t, dir)
		found, err := lint.Check(s, dir)
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		missing := map[string]bool{}
		for _, f := range found {
			if f.Rule == "action-missing" {
				missing[f.Message] = true
			}
		}
		reported := func(name string) bool {
			for m := range missing {
				if strings.Contains(m, "names action "+name+", but") {
					return true
				}
			}
			return false
		}
		list := selectableNames(s)
		for _, n := range list {
			if lintOK := !reported(n.name); lintOK != n.accepted {
				t.Errorf("%s: %s name %q: lint clean = %v, runtime accepts = %v", dir, n.where, n.name, lintOK, n.accepted)
			}
		}
		names += len(list)
		if len(list) > 0 {
			skills++
		}
	}
	return names, skills
}

func globDirs(t *testing.T, patterns ...string) []string {
	var out []string
	for _, p := range patterns {
		m, err := filepath.Glob(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m...)
	}
	return out
}

// TestActionNamesAgreeExamples checks the examples and the test skills of
// lint and the orchestrator (action-missing's bad example among them).
func TestActionNamesAgreeExamples(t *testing.T) {
	dirs := globDirs(t, "../../examples/*/", "../../lint/testdata/*/*/demo", "testdata/*")
	names, skills := checkNamesAgree(t, dirs)
	t.Logf("checked %d action names in %d of %d example and test skills", names, skills, len(dirs))
	if names == 0 {
		t.Fatal("no action name checked")
	}
}

// TestActionNamesAgreeCorpus checks every corpus skill.
func TestActionNamesAgreeCorpus(t *testing.T) {
	var dirs []string
	for _, e := range corpus.Skills(t) {
		dirs = append(dirs, e.Path())
	}
	names, skills := checkNamesAgree(t, dirs)
	t.Logf("checked %d action names in %d of %d corpus skills", names, skills, len(dirs))
	if names == 0 {
		t.Fatal("no action name checked although the corpus is present")
	}
}

// TestAliasLoopLintsAndRuns: a skill whose selectNextAction returns 'INIT'
// and 'finish', whose catalog names INIT and links its other row, and
// whose hooks sit in metadata.hooks, lints clean and runs to completion
// with its hook run. Lint used to accept the names while the run refused
// them, and to refuse the hooks the run read.
func TestAliasLoopLintsAndRuns(t *testing.T) {
	s := load(t, "testdata/alias-loop")
	found, err := lint.Check(s, "testdata")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		t.Errorf("lint: %s", f)
	}
	res, err := run(t, options(t, s))
	if err != nil {
		t.Fatal(err)
	}
	if got := actions(state(t, res.Dir)); got != "action-init action-finish" {
		t.Errorf("completed_actions = %q", got)
	}
	if got := testfs.ReadFile(t, filepath.Join(res.Dir, "hooks.log")); got != "ended completed\n" {
		t.Errorf("hooks.log = %q, want the post_run hook's line", got)
	}
}

// TestMalformedHooksRefusedAlike: a metadata.hooks map with an unknown
// hook point is a lint error and refuses the run, at the same position
// with the same words.
func TestMalformedHooksRefusedAlike(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "bad-hooks")
	testfs.WriteTree(t, dir, map[string]string{
		"SKILL.md":                      "---\nname: bad-hooks\ndescription: Declares a hook at a point that does not exist.\nmetadata:\n  hooks:\n    post_run: echo ok\n    before_all: echo start\n---\n\n# Bad hooks\n",
		"phases/actions/action-done.md": "# Action: Done\n\n## Execution\n\n```javascript\nfunction execute(state) {\n  return { stateUpdates: { status: 'completed' } };\n}\n```\n",
	})
	s := load(t, dir)
	found, err := lint.Check(s, filepath.Dir(dir))
	if err != nil {
		t.Fatal(err)
	}
	var lintSays string
	for _, f := range found {
		if f.Rule == "hooks-invalid" {
			lintSays = fmt.Sprintf("SKILL.md:%d:%d: %s", f.Line, f.Col, f.Message)
		} else if f.Rule == "frontmatter-metadata" {
			t.Errorf("lint: %s (a hooks map is no string, and need not be)", f)
		}
	}
	const want = `SKILL.md:7:17: metadata.hooks.before_all: unknown hook point "before_all"`
	if !strings.HasPrefix(lintSays, want) {
		t.Fatalf("lint says %q, want it to start %q", lintSays, want)
	}
	_, err = lifecycle.Run(t.Context(), options(t, s))
	if err == nil || !strings.Contains(err.Error(), lintSays) {
		t.Fatalf("run error = %v, want it to hold lint's %q", err, lintSays)
	}
}
