package lint

import (
	"cmp"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/skillkit/skillkit/internal/mcp"
	"github.com/skillkit/skillkit/parse"
	"github.com/skillkit/skillkit/plan"
)

// Options tune a lint run.
type Options struct {
	// Profile overrides the configuration's front matter profile; empty
	// or auto picks it from the folder each skill is in (ProfileFor).
	Profile string
	// ConfigFile is a configuration to use for every path instead of the
	// skillkit.yaml found in each linted folder.
	ConfigFile string
	// Base is the folder finding paths are relative to; empty means the
	// current directory.
	Base string
	// MCPProject is the folder whose .mcp.json configures MCP servers,
	// with each skill's skillkit.yaml; empty reads only the latter.
	MCPProject string
}

// Lint lints the skills at paths. A path may be a skill folder, a file of
// a skill (only that file's findings are kept), or a folder holding many
// skills (every folder with a SKILL.md or a phases/ folder, not looking
// inside a skill for more). Skills are linted in parallel.
func Lint(paths []string, opts Options) (*Result, error) {
	base, targets, err := prepare(paths, opts)
	if err != nil {
		return nil, err
	}
	res := &Result{Base: base}
	// One run parses each block text and compiles each schema once:
	// skills copied from one another (versions of a repository, a
	// vendored copy) share the work.
	run, blocks := newRunCache(), plan.NewBlocks()
	for _, t := range targets {
		t.run, t.blocks = run, blocks
	}
	results := make([][]Finding, len(targets))
	listings := make([]int, len(targets))
	errs := make([]error, len(targets))
	// A goroutine per skill, as many at once as there are CPUs. A fixed
	// pool of workers, each keeping the stack the JavaScript parser grew,
	// ran 1.5% fewer instructions on three copies of the corpus but held
	// about 3 MB more heap at each collection (10-14 MB against 7-8 on
	// twenty copies) and peaked 14% higher (121 against 106 MB), with no
	// CPU time the shared machine could tell apart.
	sem := make(chan struct{}, runtime.NumCPU())
	var wg sync.WaitGroup
	for i, t := range targets {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			_, results[i], listings[i], errs[i] = lintTarget(t, base, opts.Profile)
		}()
	}
	wg.Wait()
	for i, t := range targets {
		if errs[i] != nil {
			return nil, errs[i]
		}
		res.Skills = append(res.Skills, relPath(base, t.dir))
		res.Findings = append(res.Findings, results[i]...)
	}
	res.Findings = append(res.Findings, listingBudgets(targets, listings, base)...)
	res.Findings = append(res.Findings, pluginManifests(targets, folders(paths), base)...)
	slices.Sort(res.Skills)
	res.sort()
	return res, nil
}

// listingBudgets checks the listing-budget of each configuration: the
// characters the skills under it list together. The skills are linted
// one by one, so this is the one rule that looks at them all.
func listingBudgets(targets []*target, listings []int, base string) []Finding {
	type sum struct {
		total int
		sizes map[string]int
	}
	sums := map[*Config]*sum{}
	var order []*Config
	for i, t := range targets {
		c := t.cfg
		if c == nil || c.ListingBudget == 0 {
			continue
		}
		if sums[c] == nil {
			sums[c] = &sum{sizes: map[string]int{}}
			order = append(order, c)
		}
		sums[c].total += listings[i]
		sums[c].sizes[relPath(base, t.dir)] = listings[i]
	}
	rule := RuleByID("listing-budget")
	var out []Finding
	for _, c := range order {
		s := sums[c]
		sev, on := c.severity(rule)
		if !on || s.total <= c.ListingBudget {
			continue
		}
		names := slices.Collect(maps.Keys(s.sizes))
		slices.SortFunc(names, func(a, b string) int { return cmp.Or(cmp.Compare(s.sizes[b], s.sizes[a]), strings.Compare(a, b)) })
		var longest []string
		for _, n := range names[:min(3, len(names))] {
			longest = append(longest, fmt.Sprintf("%s (%d)", n, s.sizes[n]))
		}
		out = append(out, Finding{
			Rule: rule.ID(), Severity: sev, File: relPath(base, c.File), Line: max(c.budgetLine, 1),
			Message: fmt.Sprintf("the %d skills here list %d characters of description and when_to_use, over the listing-budget of %d: a host that lists skills within a budget leaves some out; the longest: %s",
				len(names), s.total, c.ListingBudget, strings.Join(longest, ", ")),
		})
	}
	return out
}

// prepare checks the options and resolves the base folder and the skills
// to lint.
func prepare(paths []string, opts Options) (string, []*target, error) {
	if opts.Profile != "" && !validProfile(opts.Profile) {
		return "", nil, usageErrorf("profile %q is not one of %s", opts.Profile, strings.Join(ProfileNames, ", "))
	}
	base, err := resolveBase(opts.Base)
	if err != nil {
		return "", nil, err
	}
	var explicit *Config
	if opts.ConfigFile != "" {
		if explicit, err = LoadConfig(opts.ConfigFile); err != nil {
			return "", nil, err
		}
	}
	targets, err := resolveTargets(paths, explicit)
	for _, t := range targets {
		t.mcpProject = opts.MCPProject
	}
	return base, targets, err
}

// resolveBase makes the base folder absolute; empty is the current
// directory.
func resolveBase(base string) (string, error) {
	if base == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("finding the current directory: %w", err)
		}
		base = wd
	}
	abs, err := filepath.Abs(base)
	if err != nil {
		return "", fmt.Errorf("resolving %s: %w", base, err)
	}
	return abs, nil
}

// resolveTargets turns the paths into skills to lint, merging paths that
// name the same skill.
func resolveTargets(paths []string, explicit *Config) ([]*target, error) {
	byDir := map[string]*target{}
	var order []string
	add := func(dir string, only string, cfg *Config) {
		t := byDir[dir]
		if t == nil {
			t = &target{dir: dir, cfg: cfg}
			if only != "" {
				t.only = []string{only}
			}
			byDir[dir] = t
			order = append(order, dir)
			return
		}
		if only == "" || t.only == nil {
			t.only = nil
			return
		}
		t.only = append(t.only, only)
	}
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return nil, usageErrorf("linting %s: %w", p, err)
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, fmt.Errorf("resolving %s: %w", p, err)
		}
		var dirs []string
		if info.IsDir() {
			if dirs, err = discover(abs); err != nil {
				return nil, err
			}
		}
		if len(dirs) == 0 {
			// A file, or a folder inside a skill: lint the skill and keep
			// the findings of what was named.
			skill, err := enclosingSkill(abs)
			if err != nil {
				return nil, err
			}
			if skill == "" {
				return nil, usageErrorf("linting %s: no skill found (a skill is a folder with a SKILL.md or a phases/ folder)", p)
			}
			rel, _ := filepath.Rel(skill, abs)
			rel = filepath.ToSlash(rel)
			if info.IsDir() && rel != "." {
				rel += "/"
			}
			if rel == "." {
				rel = ""
			}
			cfg, err := configFor(explicit, skill)
			if err != nil {
				return nil, err
			}
			add(skill, rel, cfg)
			continue
		}
		cfg, err := configFor(explicit, abs)
		if err != nil {
			return nil, err
		}
		for _, d := range dirs {
			add(d, "", cfg)
		}
	}
	out := make([]*target, 0, len(order))
	for _, d := range order {
		out = append(out, byDir[d])
	}
	return out, nil
}

// configFor returns the explicit configuration, else the skillkit.yaml in
// dir, else nil.
func configFor(explicit *Config, dir string) (*Config, error) {
	if explicit != nil {
		return explicit, nil
	}
	file := filepath.Join(dir, ConfigFile)
	if _, err := os.Stat(file); err != nil {
		return nil, nil
	}
	return LoadConfig(file)
}

// lintTarget parses and lints one skill; it returns the parsed skill,
// the findings and how many characters the skill lists (for
// listing-budget).
func lintTarget(t *target, base, profile string) (*plan.Skill, []Finding, int, error) {
	servers, err := mcp.Load(t.mcpProject, t.dir, nil)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("linting %s: %w", t.dir, err)
	}
	opts := parse.Options{NoHash: true, MCPServers: servers.Names(), Blocks: t.blocks, Docs: t.cache.documents()}
	var read func(string) ([]byte, error)
	if files, err := t.open(); err == nil {
		// Otherwise parse opens the folder itself, and says why it cannot.
		defer files.Close()
		opts.FS, read = files, files.ReadFile
	}
	s, err := parse.DirWith(t.dir, opts)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("linting %s: %w", t.dir, err)
	}
	f, n := lintParsed(s, t, base, profile, read)
	return s, f, n, nil
}

// Check lints a skill that is already parsed, with the skillkit.yaml of its
// folder; finding paths are relative to base. The runner calls it so that
// a skill with error-level findings does not start, without a second parse.
func Check(s *plan.Skill, base string) ([]Finding, error) {
	cfg, err := configFor(nil, s.Dir)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(s.Dir)
	if err != nil {
		return nil, fmt.Errorf("resolving %s: %w", s.Dir, err)
	}
	findings, _ := lintParsed(s, &target{dir: abs, cfg: cfg}, base, "", nil)
	slices.SortFunc(findings, compareFindings)
	return findings, nil
}

// lintParsed runs the rules over s; read reads its files for source
// lines, nil reads them from s.Dir.
func lintParsed(s *plan.Skill, t *target, base, profile string, read func(string) ([]byte, error)) ([]Finding, int) {
	if profile == "" && t.cfg != nil {
		profile = t.cfg.Profile
	}
	if profile == "" || profile == ProfileAuto {
		profile = ProfileFor(t.dir)
	}
	p := newPass(s, profile, read)
	p.cache = t.run
	raw := p.run(allRules)
	sup := collectSuppressions(p.Docs())
	skillRel := relPath(base, t.dir)
	var out []Finding
	for _, f := range raw {
		sev, on := t.cfg.severity(f.rule)
		if !on || sup.suppressed(f.rule.ID(), f.pos) || !t.keeps(f.pos.File) {
			continue
		}
		if t.cfg.ignored(filepath.Join(t.dir, filepath.FromSlash(f.pos.File))) {
			continue
		}
		out = append(out, p.finding(f, sev, skillRel))
	}
	text, _ := listing(p)
	return out, utf8.RuneCountInString(text)
}

// finding turns a raw finding into the one reported: path under the base,
// code-point columns, and a line for every finding about a file (its first
// when the finding is about the whole file), so editors and annotations can place it.
func (p *Pass) finding(f rawFinding, sev plan.Severity, skillRel string) Finding {
	out := Finding{
		Rule: f.rule.ID(), Severity: sev, Message: f.msg,
		File: path.Join(skillRel, f.pos.File), Line: f.pos.Line, Skill: skillRel,
	}
	for _, e := range f.fix {
		e.File = path.Join(skillRel, e.File)
		out.Fix = append(out.Fix, e)
	}
	if slices.Contains(p.Skill.Files, f.pos.File) {
		out.Line = max(out.Line, 1)
	}
	if f.pos.Line > 0 && f.pos.Col > 0 {
		line := p.line(f.pos.File, f.pos.Line)
		out.Col, out.EndCol = codePointCol(line, f.pos.Col), codePointCol(line, f.endCol)
	}
	return out
}

// keeps reports whether findings in file (skill-relative) are wanted.
func (t *target) keeps(file string) bool {
	if t.only == nil {
		return true
	}
	for _, o := range t.only {
		if file == o || strings.HasSuffix(o, "/") && strings.HasPrefix(file, o) {
			return true
		}
	}
	return false
}

// relPath is p relative to base with forward slashes, or p itself when
// that is shorter (a skill far outside the base) or the two share no root.
func relPath(base, p string) string {
	rel, err := filepath.Rel(base, p)
	if err != nil || len(rel) > len(p) {
		return filepath.ToSlash(p)
	}
	return filepath.ToSlash(rel)
}

// SkillOf returns the skill folder that holds path (a file or folder):
// the nearest folder, path itself or above it, with a SKILL.md or a
// phases/ folder; "" when there is none.
func SkillOf(path string) (string, error) { return enclosingSkill(path) }

// LintSkill lints the skill in dir as an editor sees it: files replaces
// the contents of some of its files (skill-relative paths with forward
// slashes). Finding paths are relative to the skill, and the parsed skill
// is returned too, for what an editor asks next (definitions, hovers).
// The configuration is the skillkit.yaml of dir; profile "" is auto.
// cache, when not nil, keeps work from this lint for the next lint of the
// same skill: an editor lints at every change.
func LintSkill(dir string, files map[string][]byte, profile string, cache *Cache) (*plan.Skill, []Finding, error) {
	if profile != "" && !validProfile(profile) {
		return nil, nil, usageErrorf("profile %q is not one of %s", profile, strings.Join(ProfileNames, ", "))
	}
	cfg, err := configFor(nil, dir)
	if err != nil {
		return nil, nil, err
	}
	s, findings, _, err := lintTarget(&target{dir: dir, cfg: cfg, files: files, cache: cache, run: cache.runCache(), blocks: cache.blocks()}, dir, profile)
	cache.sweep()
	if err != nil {
		return nil, nil, err
	}
	slices.SortFunc(findings, compareFindings)
	return s, findings, nil
}
