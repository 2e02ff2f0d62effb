package scaffold

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dop251/goja/parser"
	"github.com/santhosh-tekuri/jsonschema/v5"
	"mvdan.cc/sh/v3/syntax"

	"github.com/skillkit/skillkit/internal/mcp"
	"github.com/skillkit/skillkit/internal/script"
	"github.com/skillkit/skillkit/parse"
	"github.com/skillkit/skillkit/plan"
)

var update = flag.Bool("update", false, "rewrite the golden trees in testdata/golden")

// newCase is one generated skill; the skill is named like the case so that
// its golden folder's name is the skill's name.
type newCase struct {
	name    string
	mode    plan.Mode
	phases  []string
	actions []string
	mcp     bool
	// want: numbered files in order, action ids sorted.
	wantPhases  []string
	wantActions []string
}

var newCases = []newCase{
	{name: "sequential-default", mode: plan.ModeSequential,
		wantPhases: []string{"01-collect.md", "02-analyze.md", "03-report.md"}},
	{name: "sequential-custom", mode: plan.ModeSequential, phases: []string{"fetch", "clean", "chart", "publish"},
		wantPhases: []string{"01-fetch.md", "02-clean.md", "03-chart.md", "04-publish.md"}},
	{name: "sequential-one", mode: plan.ModeSequential, phases: []string{"only"},
		wantPhases: []string{"01-only.md"}},
	{name: "autonomous-default", mode: plan.ModeAutonomous,
		wantActions: []string{"action-abort", "action-complete", "action-init", "action-process", "action-review"}},
	{name: "autonomous-custom", mode: plan.ModeAutonomous, actions: []string{"scan", "review", "fix", "action-verify", "abort"},
		wantActions: []string{"action-abort", "action-fix", "action-review", "action-scan", "action-verify"}},
	{name: "autonomous-two", mode: plan.ModeAutonomous, actions: []string{"start", "finish"},
		wantActions: []string{"action-finish", "action-start"}},
	{name: "autonomous-single", mode: plan.ModeAutonomous, actions: []string{"run"},
		wantActions: []string{"action-run"}},
	{name: "hybrid-default", mode: plan.ModeHybrid,
		wantPhases:  []string{"01-init.md", "02-orchestrator.md", "03-finalize.md"},
		wantActions: []string{"action-abort", "action-complete", "action-init", "action-process", "action-review"}},
	{name: "hybrid-custom", mode: plan.ModeHybrid, phases: []string{"prepare", "check", "publish"}, actions: []string{"load", "transform", "store"},
		wantPhases:  []string{"01-prepare.md", "02-orchestrator.md", "03-check.md", "04-publish.md"},
		wantActions: []string{"action-load", "action-store", "action-transform"}},
	{name: "sequential-mcp", mode: plan.ModeSequential, phases: []string{"collect", "report"}, mcp: true,
		wantPhases: []string{"01-collect.md", "02-report.md"}},
	{name: "hybrid-one", mode: plan.ModeHybrid, phases: []string{"setup"}, actions: []string{"go"},
		wantPhases:  []string{"01-setup.md", "02-orchestrator.md"},
		wantActions: []string{"action-go"}},
}

func TestNew(t *testing.T) {
	for _, tc := range newCases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			files, err := New(Options{Name: tc.name, Mode: tc.mode, Phases: tc.phases, Actions: tc.actions, Dir: dir, MCP: tc.mcp})
			if err != nil {
				t.Fatal(err)
			}
			root := filepath.Join(dir, tc.name)
			tree := readTree(t, root)
			if len(files) != len(tree) {
				t.Errorf("New returned %d files, the folder holds %d", len(files), len(tree))
			}
			for _, f := range files {
				rel, _ := filepath.Rel(root, f)
				if _, ok := tree[filepath.ToSlash(rel)]; !ok {
					t.Errorf("New returned %s, which is not in the folder", f)
				}
			}
			s := checkSkill(t, root, tc.mode)
			var phases []string
			for _, p := range s.Phases {
				phases = append(phases, path.Base(p.Doc.File))
			}
			if !slices.Equal(phases, tc.wantPhases) {
				t.Errorf("phases = %v, want %v", phases, tc.wantPhases)
			}
			var actions []string
			for _, a := range s.Actions {
				actions = append(actions, a.ID)
			}
			if !slices.Equal(actions, tc.wantActions) {
				t.Errorf("actions = %v, want %v", actions, tc.wantActions)
			}
			golden(t, tc.name, tree)
		})
	}
}

// checkSkill parses a generated skill and checks everything the parser,
// lint and the runners will rely on. It returns the plan.
func checkSkill(t *testing.T, root string, mode plan.Mode) *plan.Skill {
	t.Helper()
	servers, err := mcp.Load("", root, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := parse.DirWith(root, parse.Options{MCPServers: servers.Names()})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range s.Diagnostics {
		t.Errorf("parse diagnostic: %s", d)
	}
	if s.Mode != mode {
		t.Errorf("mode = %s, want %s", s.Mode, mode)
	}
	checkFrontMatter(t, s)
	checkPhases(t, s)
	checkCode(t, s)
	if mode != plan.ModeSequential {
		checkLoopShape(t, s)
		checkLoopRuns(t, s)
	}
	if mode != plan.ModeAutonomous {
		runSteps(t, s)
	}
	return s
}

func checkFrontMatter(t *testing.T, s *plan.Skill) {
	t.Helper()
	fm := s.FrontMatter
	if fm == nil || fm.Error != nil || !fm.Closed {
		t.Fatalf("SKILL.md front matter missing or broken: %+v", fm)
	}
	allowed := []string{"name", "description", "license", "compatibility", "metadata", "allowed-tools"}
	for _, f := range fm.Fields {
		if !slices.Contains(allowed, f.Key) {
			t.Errorf("front matter key %s is not an Agent Skills key", f.Key)
		}
	}
	if got := fm.Get("name").String(); got != filepath.Base(s.Dir) || CheckName("skill", got) != nil {
		t.Errorf("name = %q, want the folder's name %q", got, filepath.Base(s.Dir))
	}
	if d := fm.Get("description").String(); d == "" || len(d) > MaxDescriptionLen || strings.ContainsAny(d, "<>") {
		t.Errorf("description %q breaks the Agent Skills rules", d)
	}
}

// checkPhases: every numbered phase (but a hybrid's orchestrator) has one
// runnable bash step and a JSON output; the Next Phase links chain the
// phases in order.
func checkPhases(t *testing.T, s *plan.Skill) {
	t.Helper()
	for i, p := range s.Phases {
		var want string
		if i+1 < len(s.Phases) {
			want = path.Base(s.Phases[i+1].Doc.File)
		}
		switch {
		case want == "" && p.Next != nil:
			t.Errorf("%s: last phase links to %s", p.Doc.File, p.Next.Target)
		case want != "" && (p.Next == nil || p.Next.Target != want):
			t.Errorf("%s: Next Phase = %+v, want %s", p.Doc.File, p.Next, want)
		}
		if p.HeadingNumber != p.Number.String() {
			t.Errorf("%s: heading number %s, file number %s", p.Doc.File, p.HeadingNumber, p.Number)
		}
		if len(p.Outputs) != 1 || p.Outputs[0].Format != "json" {
			t.Errorf("%s: outputs = %+v, want one JSON file", p.Doc.File, p.Outputs)
		}
		if p.IsOrchestrator {
			continue
		}
		if len(p.Steps) == 2 && p.Steps[1].Attrs.Tool != nil {
			// --mcp's Tool step, native: the memory server is configured.
			if tool := p.Steps[1]; tool.Attrs.Tool.Name != "mcp__memory__create_entities" || tool.Class.Kind != plan.ClassNative {
				t.Errorf("%s: Tool step %+v, %s", p.Doc.File, tool.Attrs.Tool, tool.Class.Reason)
			}
		} else if len(p.Steps) != 1 || p.Steps[0].Kind() != plan.StepCode || p.Steps[0].Runnable()[0].Kind() != plan.LangBash {
			t.Errorf("%s: want one runnable bash step, got %d steps", p.Doc.File, len(p.Steps))
		}
		for _, sec := range []string{plan.SecObjective, plan.SecInput, plan.SecExecution, plan.SecOutput} {
			if !slices.ContainsFunc(p.Doc.Sections, func(x *plan.Section) bool { return x.Key == sec }) {
				t.Errorf("%s: no %s section", p.Doc.File, sec)
			}
		}
	}
}

// checkCode parses every runnable block the way lint does.
func checkCode(t *testing.T, s *plan.Skill) {
	t.Helper()
	docs := slices.Clone(s.Docs)
	for _, p := range s.Phases {
		docs = append(docs, p.Doc)
	}
	for _, a := range s.Actions {
		docs = append(docs, a.Doc)
	}
	if s.Orchestrator != nil {
		docs = append(docs, s.Orchestrator.Doc)
	}
	for _, d := range docs {
		for _, c := range d.Code {
			switch c.Kind() {
			case plan.LangJS:
				// Action blocks may return at top level: they run as a
				// function body.
				if _, err := parser.ParseFile(nil, c.Pos.String(), "(async function() {\n"+c.Text+"\n})", 0); err != nil {
					t.Errorf("%s: JS does not parse: %v", c.Pos, err)
				}
			case plan.LangBash:
				if _, err := syntax.NewParser().Parse(strings.NewReader(c.Text), c.Pos.String()); err != nil {
					t.Errorf("%s: bash does not parse: %v", c.Pos, err)
				}
			}
		}
	}
}

// checkLoopShape: schema, initial state, catalog and graph agree with the
// action files.
func checkLoopShape(t *testing.T, s *plan.Skill) {
	t.Helper()
	ss := s.StateSchema
	if ss == nil || ss.Source != "typescript" || ss.Root != typeName(s.Name)+"State" {
		t.Fatalf("state schema = %+v, want a typescript root %sState", ss, typeName(s.Name))
	}
	validate(t, ss.Schema, initialState(t, s), "initial state")
	if s.Orchestrator == nil || s.Orchestrator.Decision == nil {
		t.Fatal("no Decision Logic")
	}
	c := s.Catalog
	if c == nil || c.File != "specs/action-catalog.md" {
		t.Fatalf("catalog = %+v", c)
	}
	if len(c.Rows) != len(s.Actions) {
		t.Errorf("catalog has %d rows for %d actions", len(c.Rows), len(s.Actions))
	}
	for _, r := range c.Rows {
		a := s.Action(r.Action)
		if a == nil {
			t.Errorf("%s: catalog row for %s, which has no file", r.Pos, r.Action)
			continue
		}
		if got := path.Join(path.Dir(c.File), r.Link); path.Clean(got) != a.Doc.File {
			t.Errorf("%s: link %s does not reach %s", r.Pos, r.Link, a.Doc.File)
		}
		var js []string
		for _, p := range a.Preconditions {
			if !p.Checkable() {
				t.Errorf("%s: precondition %q is not checkable", p.Pos, p.Text)
			}
			js = append(js, p.JS)
		}
		if len(r.Preconditions) != 1 || r.Preconditions[0].JS != strings.Join(js, " && ") {
			t.Errorf("%s: catalog preconditions %+v differ from %s's %q", r.Pos, r.Preconditions, a.ID, js)
		}
		if a.Execution.Kind != plan.ExecJS || !strings.Contains(a.Execution.Code.Text, "async function execute(state, workDir)") {
			t.Errorf("%s: execution is not an execute(state, workDir) JS block", a.Doc.File)
		}
		if a.StateUpdates == nil {
			t.Errorf("%s: no State Updates block", a.Doc.File)
		}
		for _, h := range a.Hints {
			if s.Action(h.Action) == nil {
				t.Errorf("%s: hint names %s, which has no file", h.Pos, h.Action)
			}
		}
	}
	labels := map[string]bool{}
	for _, e := range c.Edges {
		labels[e.From.Label], labels[e.To.Label] = true, true
	}
	for _, a := range s.Actions {
		if !labels[a.ID] && len(s.Actions) > 1 {
			t.Errorf("graph has no node for %s", a.ID)
		}
		delete(labels, a.ID)
	}
	for l := range labels {
		t.Errorf("graph node %q is no action", l)
	}
}

func initialState(t *testing.T, s *plan.Skill) map[string]any {
	t.Helper()
	b, err := json.Marshal(s.StateSchema.Initial)
	if err != nil {
		t.Fatal(err)
	}
	b = []byte(strings.ReplaceAll(string(b), "{ISO8601}", "2026-01-02T03:04:05Z"))
	var st map[string]any
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	return st
}

func validate(t *testing.T, schema map[string]any, v any, what string) {
	t.Helper()
	b, _ := json.Marshal(schema)
	c := jsonschema.NewCompiler()
	if err := c.AddResource("state.json", strings.NewReader(string(b))); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("state.json")
	if err != nil {
		t.Fatalf("schema does not compile: %v", err)
	}
	if err := sch.Validate(v); err != nil {
		t.Errorf("%s does not fit the schema: %v", what, err)
	}
}

// checkLoopRuns drives the loop the way DESIGN §3.5 says the runtime does,
// with the script package the runner uses: it must complete on its own and
// write summary.json, every selected action's preconditions must hold, and
// every state must fit the schema. Then it checks that too many errors end
// in abort when there is an abort action.
func checkLoopRuns(t *testing.T, s *plan.Skill) {
	t.Helper()
	work := t.TempDir()
	st, ran := drive(t, s, work, initialState(t, s), nil)
	if st["status"] != "completed" {
		t.Errorf("loop ended with status %v after %v", st["status"], ran)
	}
	if _, err := os.Stat(filepath.Join(work, "summary.json")); err != nil {
		t.Errorf("the loop wrote no summary.json: %v", err)
	}
	if s.Action("action-abort") == nil {
		return
	}
	st, ran = drive(t, s, t.TempDir(), initialState(t, s), func(st map[string]any) { st["error_count"] = MaxRetries + 1 })
	if st["status"] != "failed" || ran[len(ran)-1] != "action-abort" {
		t.Errorf("with too many errors the loop ended %v after %v, want failed by action-abort", st["status"], ran)
	}
}

// drive runs the loop from st in the work dir work; after, when set, changes
// the state once, after the first action.
func drive(t *testing.T, s *plan.Skill, work string, st map[string]any, after func(map[string]any)) (map[string]any, []string) {
	t.Helper()
	ctx := context.Background()
	h, err := script.NewHost(script.Options{WorkDir: work, SkillDir: s.Dir, ProjectDir: work, Skill: s.Name})
	if err != nil {
		t.Fatal(err)
	}
	var ran []string
	for range 100 {
		id, ok, err := script.SelectNextAction(ctx, s.Orchestrator, st)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return st, ran
		}
		a := s.Action(id)
		if a == nil {
			t.Fatalf("selectNextAction returned %s, which has no file", id)
		}
		if ok, err := script.Preconditions(ctx, a.Preconditions, script.PureEnv{State: st}); err != nil || !ok {
			t.Fatalf("selected %s but its preconditions do not hold (%v) on %v", a.ID, err, st)
		}
		updates, err := h.RunAction(ctx, a, st)
		if err != nil {
			t.Fatalf("%s failed: %v", a.ID, err)
		}
		if st, err = script.ApplyUpdates(st, updates); err != nil {
			t.Fatal(err)
		}
		st["completed_actions"] = append(st["completed_actions"].([]any), a.ID)
		validate(t, s.StateSchema.Schema, st, "state after "+a.ID)
		ran = append(ran, a.ID)
		if after != nil {
			after(st)
			after = nil
		}
	}
	t.Fatalf("the loop did not stop after 100 actions: %v", ran)
	return nil, nil
}

// runSteps runs every phase's bash step in one work dir, in phase order,
// as the runner does (script.Host.Shell: cwd and SKILL_WORKDIR the work
// dir), and checks that each phase wrote its declared output as valid JSON.
func runSteps(t *testing.T, s *plan.Skill) {
	t.Helper()
	work := t.TempDir()
	h, err := script.NewHost(script.Options{WorkDir: work, SkillDir: s.Dir, ProjectDir: work, Skill: s.Name})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range s.Phases {
		if p.IsOrchestrator {
			// The loop's summary.json, as the finishing action writes it.
			if err := os.WriteFile(filepath.Join(work, "summary.json"), []byte("{}"), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		for _, c := range p.Steps[0].Runnable() {
			res, err := h.Shell(context.Background(), c.Text, nil)
			if err != nil || res.ExitCode != 0 {
				t.Fatalf("%s: step failed: %v %+v", c.Pos, err, res)
			}
		}
		for _, o := range p.Outputs {
			b, err := os.ReadFile(filepath.Join(work, o.File))
			var v any
			if err != nil || json.Unmarshal(b, &v) != nil {
				t.Errorf("%s: output %s missing or not JSON: %v %q", o.Pos, o.File, err, b)
			}
		}
	}
}

// readTree reads every file under root, keyed by slash path.
func readTree(t *testing.T, root string) map[string]string {
	t.Helper()
	tree := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		tree[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

// golden compares a tree with testdata/golden/<name>, or rewrites it with
// -update.
func golden(t *testing.T, name string, tree map[string]string) {
	t.Helper()
	dir := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		for rel, content := range tree {
			p := filepath.Join(dir, filepath.FromSlash(rel))
			if err := writeFile(p, content); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	want := readTree(t, dir)
	for rel, content := range tree {
		if w, ok := want[rel]; !ok {
			t.Errorf("%s: not in the golden tree (run go test ./scaffold -update)", rel)
		} else if w != content {
			t.Errorf("%s differs from the golden file (run go test ./scaffold -update):\n--- got\n%s\n--- want\n%s", rel, content, w)
		}
	}
	for rel := range want {
		if _, ok := tree[rel]; !ok {
			t.Errorf("%s: in the golden tree but not generated", rel)
		}
	}
}

func TestNewRefuses(t *testing.T) {
	tests := []struct {
		name string
		opts Options
		want error
	}{
		{"empty name", Options{Mode: plan.ModeSequential}, ErrInvalid},
		{"upper case", Options{Name: "My-Skill", Mode: plan.ModeSequential}, ErrInvalid},
		{"leading hyphen", Options{Name: "-x", Mode: plan.ModeSequential}, ErrInvalid},
		{"trailing hyphen", Options{Name: "x-", Mode: plan.ModeSequential}, ErrInvalid},
		{"double hyphen", Options{Name: "a--b", Mode: plan.ModeSequential}, ErrInvalid},
		{"too long", Options{Name: strings.Repeat("a", 65), Mode: plan.ModeSequential}, ErrInvalid},
		{"underscore", Options{Name: "a_b", Mode: plan.ModeSequential}, ErrInvalid},
		{"unknown mode", Options{Name: "x", Mode: "parallel"}, ErrInvalid},
		{"bad phase", Options{Name: "x", Mode: plan.ModeSequential, Phases: []string{"Bad Phase"}}, ErrInvalid},
		{"duplicate phase", Options{Name: "x", Mode: plan.ModeSequential, Phases: []string{"a", "a"}}, ErrInvalid},
		{"reserved phase", Options{Name: "x", Mode: plan.ModeSequential, Phases: []string{"orchestrator"}}, ErrInvalid},
		{"phase writing state.json", Options{Name: "x", Mode: plan.ModeHybrid, Phases: []string{"state"}}, ErrInvalid},
		{"actions in sequential", Options{Name: "x", Mode: plan.ModeSequential, Actions: []string{"a"}}, ErrInvalid},
		{"phases in autonomous", Options{Name: "x", Mode: plan.ModeAutonomous, Phases: []string{"a"}}, ErrInvalid},
		{"only abort", Options{Name: "x", Mode: plan.ModeAutonomous, Actions: []string{"abort"}}, ErrInvalid},
		{"duplicate action", Options{Name: "x", Mode: plan.ModeAutonomous, Actions: []string{"a", "action-a"}}, ErrInvalid},
		{"description with markup", Options{Name: "x", Mode: plan.ModeSequential, Description: "use <b>this</b>"}, ErrInvalid},
		{"description too long", Options{Name: "x", Mode: plan.ModeSequential, Description: strings.Repeat("d", 1025)}, ErrInvalid},
		{"existing folder", Options{Name: "taken", Mode: plan.ModeSequential}, ErrExists},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.Mkdir(filepath.Join(dir, "taken"), 0o755); err != nil {
				t.Fatal(err)
			}
			tc.opts.Dir = dir
			files, err := New(tc.opts)
			if !errors.Is(err, tc.want) {
				t.Fatalf("New(%+v) = %v, want %v", tc.opts, err, tc.want)
			}
			if len(files) != 0 {
				t.Errorf("New returned files %v on failure", files)
			}
			if left := readTree(t, dir); len(left) != 0 {
				t.Errorf("New left files behind: %v", left)
			}
			entries, _ := os.ReadDir(dir)
			if len(entries) != 1 {
				t.Errorf("New left folders behind: %v", entries)
			}
		})
	}
}

func TestDescription(t *testing.T) {
	dir := t.TempDir()
	desc := "Turns: a folder of CSV files into one chart # with YAML-special characters"
	if _, err := New(Options{Name: "charts", Mode: plan.ModeSequential, Dir: dir, Description: desc}); err != nil {
		t.Fatal(err)
	}
	s, err := parse.Dir(filepath.Join(dir, "charts"))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.FrontMatter.Get("description").String(); got != desc {
		t.Errorf("description = %q, want %q", got, desc)
	}
}
