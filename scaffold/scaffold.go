// Package scaffold writes new skills and grows existing ones: New lays out
// a skill for one execution mode from the templates in templates/, AddPhase
// and AddAction insert a phase or an action into a skill folder, renumbering
// nothing and rewiring the links around what they insert.
//
// Every generated skill is meant to lint clean and to run to completion
// with no agent as generated: bash steps write the outputs their phases
// declare, and the generated action loop terminates on its own.
package scaffold

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/skillkit/skillkit/plan"
)

// Options say what New creates.
type Options struct {
	// Name is the skill's name and its folder's.
	Name string
	// Mode is sequential, autonomous or hybrid.
	Mode plan.Mode
	// Phases are the numbered phases' names, in order; empty means
	// DefaultPhases (sequential) or DefaultHybridPhases (hybrid). A hybrid
	// skill's orchestrator comes second.
	Phases []string
	// Actions are the loop's actions, in pipeline order (see the role
	// constants); empty means DefaultActions.
	Actions []string
	// Dir is the folder the skill folder is created in; empty means the
	// current directory.
	Dir string
	// Description is the front matter description; empty means a generated
	// one that says what to replace it with.
	Description string
	// MCP adds a Tool step to the first phase that calls the MCP memory
	// server (configured in skillkit.yaml), with its test's reply.
	MCP bool
}

// MCPServer is the server a skill made with Options.MCP calls: the
// reference memory server, as its npm package installs it.
const MCPServer = "mcp-server-memory"

// Defaults for Options.Phases.
var (
	DefaultPhases       = []string{"collect", "analyze", "report"}
	DefaultHybridPhases = []string{"init", "finalize"}
)

// MaxDescriptionLen is the Agent Skills limit on a description.
const MaxDescriptionLen = 1024

// file is one generated file, relative to the skill folder.
type file struct {
	path    string
	content string
}

// New creates the skill folder opts.Dir/opts.Name and returns the paths of
// the files it wrote. It refuses an existing folder and invalid names, and
// writes nothing when it fails.
func New(opts Options) ([]string, error) {
	files, err := generate(&opts)
	if err != nil {
		return nil, err
	}
	root := filepath.Join(opts.Dir, opts.Name)
	if _, err := os.Lstat(root); err == nil {
		return nil, fmt.Errorf("creating skill %s: %w; pick another name or --dir", root, ErrExists)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("creating skill %s: %w", root, err)
	}
	if err := os.MkdirAll(filepath.Dir(root), 0o755); err != nil {
		return nil, fmt.Errorf("creating skill %s: %w", root, err)
	}
	// Mkdir, not MkdirAll: when another process creates the folder between
	// the check above and here, this fails instead of writing into it.
	if err := os.Mkdir(root, 0o755); err != nil {
		return nil, fmt.Errorf("creating skill %s: %w", root, err)
	}
	var created []string
	for _, f := range files {
		p := filepath.Join(root, filepath.FromSlash(f.path))
		if err := writeFile(p, f.content); err != nil {
			// The folder is new and ours: remove it so that a failed new
			// leaves nothing behind.
			_ = os.RemoveAll(root)
			return nil, fmt.Errorf("creating skill %s: %w", root, err)
		}
		created = append(created, p)
	}
	return created, nil
}

func writeFile(p, content string) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, []byte(content), 0o644)
}

// generate validates opts, fills its defaults and renders every file.
func generate(opts *Options) ([]file, error) {
	if err := CheckName("skill", opts.Name); err != nil {
		return nil, err
	}
	if err := checkDescription(opts.Description); err != nil {
		return nil, err
	}
	actions := make([]string, len(opts.Actions))
	for i, a := range opts.Actions {
		actions[i] = actionName(a)
	}
	opts.Actions = actions
	switch opts.Mode {
	case plan.ModeSequential:
		if len(opts.Actions) > 0 {
			return nil, invalidf("--actions needs --mode autonomous or hybrid; a sequential skill has phases only")
		}
		if len(opts.Phases) == 0 {
			opts.Phases = DefaultPhases
		}
	case plan.ModeAutonomous:
		if len(opts.Phases) > 0 {
			return nil, invalidf("--phases needs --mode sequential or hybrid; an autonomous skill has actions only")
		}
	case plan.ModeHybrid:
		if len(opts.Phases) == 0 {
			opts.Phases = DefaultHybridPhases
		}
	default:
		return nil, invalidf("mode %q is not sequential, autonomous or hybrid", opts.Mode)
	}
	if opts.MCP && opts.Mode == plan.ModeAutonomous {
		return nil, invalidf("--mcp adds a Tool step to the first numbered phase: it needs --mode sequential or hybrid")
	}
	if opts.Mode != plan.ModeSequential && len(opts.Actions) == 0 {
		opts.Actions = DefaultActions
	}
	if err := checkNames("phase", opts.Phases); err != nil {
		return nil, err
	}
	for _, p := range opts.Phases {
		if err := checkPhaseName(p, opts.Mode == plan.ModeHybrid); err != nil {
			return nil, err
		}
	}
	if len(opts.Phases) > 98 {
		return nil, invalidf("%d phases do not fit two-digit numbers", len(opts.Phases))
	}
	if err := checkNames("action", opts.Actions); err != nil {
		return nil, err
	}
	g := &generator{opts: opts}
	switch opts.Mode {
	case plan.ModeSequential:
		g.sequential()
	case plan.ModeAutonomous:
		g.autonomous()
	case plan.ModeHybrid:
		g.hybrid()
	}
	// The skill runs as generated with no agent: its one test says so,
	// and shows where the tests of its runs with an agent go.
	g.add("tests/basic.yaml", "test.yaml.tmpl", struct {
		Name    string
		Outputs []string
		MCP     bool
		Slug    string
	}{opts.Name, g.outputs, opts.MCP, firstSlug(opts.Phases)})
	if opts.MCP {
		g.add("skillkit.yaml", "skillkit.yaml.tmpl", struct{ Command string }{MCPServer})
	}
	if err := g.skillMD(); err != nil {
		return nil, err
	}
	return g.files, g.err
}

// firstSlug is the first numbered phase's name, "" for none.
func firstSlug(phases []string) string {
	if len(phases) == 0 {
		return ""
	}
	return phases[0]
}

func checkDescription(d string) error {
	switch {
	case len(d) > MaxDescriptionLen:
		return invalidf("description is %d characters, over the limit of %d", len(d), MaxDescriptionLen)
	case strings.ContainsAny(d, "<>"):
		return invalidf("description holds < or >, which agents may read as markup; rephrase it")
	}
	return nil
}

// checkPhaseName refuses the names that would clash with a file the run
// directory or the layout already uses.
func checkPhaseName(name string, hybrid bool) error {
	switch {
	case name == "orchestrator":
		return invalidf("phase name %q is reserved for a hybrid skill's orchestrator", name)
	case name == "state" || name == "claim" || hybrid && name == "summary":
		return invalidf("phase %q would write %s.json, which the run already uses; pick another name", name, name)
	}
	return nil
}

// generator accumulates rendered files; the first render error sticks.
type generator struct {
	opts  *Options
	files []file
	err   error
	// phaseList names the numbered phases for SKILL.md.
	phaseList []string
	// outputs are the files the numbered phases declare, which the
	// skill's test expects.
	outputs []string
}

func (g *generator) add(path, tmpl string, data any) {
	if g.err != nil {
		return
	}
	s, err := render(tmpl, data)
	if err != nil {
		g.err = err
		return
	}
	g.files = append(g.files, file{path, s})
}

// link is a markdown link: the Next Phase line.
type link struct{ Text, Target string }

// phaseData is what phase.md.tmpl reads.
type phaseData struct {
	Skill      string
	Number     string // as in the heading: 1, 1.5
	Slug       string
	Title      string
	Output     string
	PrevOutput string
	PrevNumber string
	Next       *link
	// MCP adds the Tool step.
	MCP bool
}

// phaseFileName is a phase file's name: "01-collect.md", "01.5-enrich.md".
func phaseFileName(raw, slug string) string { return raw + "-" + slug + ".md" }

func phaseLink(number, slug, target string) *link {
	return &link{Text: "Phase " + number + ": " + title(slug), Target: target}
}

// slot is one numbered file of a sequential or hybrid skill.
type slot struct {
	slug  string
	orch  bool
	n     int
	file  string
	outpt string
}

// numbered renders the numbered phases (and, for hybrid, the numbered
// orchestrator as phase 2) with their links.
func (g *generator) numbered(loop *loopData) {
	var slots []slot
	for i, p := range g.opts.Phases {
		if loop != nil && i == 1 {
			slots = append(slots, slot{slug: "orchestrator", orch: true})
		}
		slots = append(slots, slot{slug: p})
	}
	if loop != nil && len(g.opts.Phases) == 1 {
		slots = append(slots, slot{slug: "orchestrator", orch: true})
	}
	for i := range slots {
		s := &slots[i]
		s.n = i + 1
		s.file = phaseFileName(fmt.Sprintf("%02d", s.n), s.slug)
		s.outpt = s.slug + ".json"
		if s.orch {
			s.outpt = "summary.json"
		}
		g.phaseList = append(g.phaseList, strings.TrimSuffix(s.file, ".md"))
		g.outputs = append(g.outputs, s.outpt)
	}
	for i, s := range slots {
		var next *link
		if i+1 < len(slots) {
			n := slots[i+1]
			next = phaseLink(fmt.Sprint(n.n), n.slug, n.file)
		}
		if s.orch {
			loop.Numbered, loop.Number, loop.Next = true, fmt.Sprint(s.n), next
			g.add("phases/"+s.file, "orchestrator.md.tmpl", loop)
			continue
		}
		d := phaseData{Skill: g.opts.Name, Number: fmt.Sprint(s.n), Slug: s.slug, Title: title(s.slug), Output: s.outpt, Next: next, MCP: g.opts.MCP && i == 0}
		if i > 0 {
			d.PrevOutput, d.PrevNumber = slots[i-1].outpt, fmt.Sprint(slots[i-1].n)
		}
		g.add("phases/"+s.file, "phase.md.tmpl", d)
	}
}

func (g *generator) sequential() { g.numbered(nil) }

// loop renders the state schema, the actions and the catalog, and returns
// the orchestrator's data for the caller to place.
func (g *generator) loop() *loopData {
	l, err := newLoop(g.opts.Name, g.opts.Actions, "phases/actions")
	if err != nil {
		g.err = err
		return nil
	}
	g.add("phases/state-schema.md", "state-schema.md.tmpl", struct {
		Name, Type string
		Review     bool
	}{g.opts.Name, typeName(g.opts.Name), l.Review != nil})
	for _, a := range l.Actions {
		g.add("phases/actions/"+a.ID+".md", "action.md.tmpl", a)
	}
	g.add("specs/action-catalog.md", "catalog.md.tmpl", l)
	return l
}

func (g *generator) autonomous() {
	if l := g.loop(); l != nil {
		g.add("phases/orchestrator.md", "orchestrator.md.tmpl", l)
	}
}

func (g *generator) hybrid() {
	if l := g.loop(); l != nil {
		g.numbered(l)
	}
}

// skillMD renders SKILL.md; the front matter goes through the YAML encoder
// so that any description is quoted correctly.
func (g *generator) skillMD() error {
	if g.err != nil {
		return g.err
	}
	o := g.opts
	desc := o.Description
	if strings.TrimSpace(desc) == "" {
		desc = defaultDescription(o)
	}
	fm, err := yaml.Marshal(struct {
		Name        string `yaml:"name"`
		Description string `yaml:"description"`
	}{o.Name, desc})
	if err != nil {
		return fmt.Errorf("writing SKILL.md front matter: %w", err)
	}
	s, err := render("skill.md.tmpl", map[string]any{
		"FrontMatter": string(fm),
		"Name":        o.Name,
		"Title":       title(o.Name),
		"Description": strings.TrimSpace(desc),
		"Mode":        string(o.Mode),
		"PhaseList":   strings.Join(g.phaseList, ", "),
	})
	if err != nil {
		return err
	}
	// SKILL.md first: it is what a reader of the list opens first.
	g.files = append([]file{{"SKILL.md", s}}, g.files...)
	return nil
}

func defaultDescription(o *Options) string {
	var what string
	switch o.Mode {
	case plan.ModeSequential:
		what = "Runs the phases " + strings.Join(o.Phases, ", ") + " in order."
	case plan.ModeAutonomous:
		what = "Loops over the actions " + strings.Join(o.Actions, ", ") + " until its state is completed."
	default:
		what = "Runs the phases " + strings.Join(o.Phases, ", ") + " around an orchestrator that loops over the actions " + strings.Join(o.Actions, ", ") + "."
	}
	return what + " Replace this with what the skill does and when an agent should use it."
}
