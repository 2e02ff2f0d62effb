package lint

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skillkit/skillkit/internal/testfs"
)

const brokenLinkSkill = "---\nname: %s\ndescription: d\n---\n\n# S\n\nSee [gone](gone.md).\n"

func skillFiles(name string) map[string]string {
	return map[string]string{name + "/SKILL.md": strings.ReplaceAll(brokenLinkSkill, "%s", filepath.Base(name))}
}

func rulesOf(r *Result) []string {
	var out []string
	for _, f := range r.Findings {
		out = append(out, f.File+":"+f.Rule)
	}
	return out
}

func TestDiscovery(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	for _, n := range []string{".claude/skills/a", "tools/b"} {
		for k, v := range skillFiles(n) {
			files[k] = v
		}
	}
	// A skill inside a skill is part of it, not another skill; a phases/
	// folder makes a skill without SKILL.md; node_modules is skipped.
	files["tools/b/examples/inner/SKILL.md"] = "# inner\n"
	files["codex/c/orchestrator.md"] = "# C\n"
	files["codex/c/phases/01-x.md"] = "# Phase 1: X\n\n## Execution\n\nDo it.\n"
	files["node_modules/d/SKILL.md"] = "# d\n"
	testfs.WriteTree(t, dir, files)
	res, err := Lint([]string{dir}, Options{Base: dir})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{".claude/skills/a", "codex/c", "tools/b"}; !slices.Equal(res.Skills, want) {
		t.Errorf("skills %v, want %v", res.Skills, want)
	}
	want := []string{".claude/skills/a/SKILL.md:link-broken", "tools/b/SKILL.md:link-broken"}
	if got := rulesOf(res); !slices.Equal(got, want) {
		t.Errorf("findings %v, want %v", got, want)
	}
}

func TestLintOneFile(t *testing.T) {
	dir := t.TempDir()
	files := skillFiles("s")
	files["s/phases/01-x.md"] = "# Phase 1: X\n\nSee [gone](gone.md).\n"
	testfs.WriteTree(t, dir, files)
	res, err := Lint([]string{filepath.Join(dir, "s", "phases", "01-x.md")}, Options{Base: dir})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"s/phases/01-x.md:phase-no-steps", "s/phases/01-x.md:link-broken"}
	if got := rulesOf(res); !slices.Equal(got, want) {
		t.Errorf("findings %v, want only the file's %v", got, want)
	}
}

func TestLintUsageErrors(t *testing.T) {
	dir := t.TempDir()
	testfs.WriteTree(t, dir, map[string]string{"notes/readme.md": "# hi\n", "bad.yaml": "rules:\n  no-such-rule: off\n"})
	for name, tc := range map[string]struct {
		paths []string
		opts  Options
		want  string
	}{
		"missing path":   {[]string{filepath.Join(dir, "nope")}, Options{}, "no such file"},
		"not a skill":    {[]string{filepath.Join(dir, "notes", "readme.md")}, Options{}, "no skill found"},
		"bad profile":    {[]string{dir}, Options{Profile: "vscode"}, "profile"},
		"bad config":     {[]string{dir}, Options{ConfigFile: filepath.Join(dir, "bad.yaml")}, `bad.yaml:2: unknown rule "no-such-rule"`},
		"missing config": {[]string{dir}, Options{ConfigFile: filepath.Join(dir, "none.yaml")}, "reading config"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Lint(tc.paths, tc.opts)
			if !IsUsageError(err) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Lint = %v, want a usage error mentioning %q", err, tc.want)
			}
		})
	}
}

func TestConfig(t *testing.T) {
	dir := t.TempDir()
	files := skillFiles("s")
	files["s/templates/t.md"] = "See [gone](gone.md).\n"
	files["s/specs/old.md"] = "See [gone](gone.md).\n"
	files["s/specs/keep.md"] = "See [gone](gone.md).\n"
	files["skillkit.yaml"] = "profile: agentskills\nrules:\n  link-broken: warning\nignore:\n  - old.md\n"
	testfs.WriteTree(t, dir, files)
	res, err := Lint([]string{dir}, Options{Base: dir})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Findings {
		if f.File == "s/specs/old.md" {
			t.Errorf("ignored file reported: %v", f)
		}
		if f.Rule == "link-broken" && f.Severity != "warning" {
			t.Errorf("severity not overridden: %v", f)
		}
	}
	if got := rulesOf(res); !slices.Equal(got, []string{"s/SKILL.md:link-broken", "s/specs/keep.md:link-broken"}) {
		t.Errorf("findings %v", got)
	}
	testfs.WriteTree(t, dir, map[string]string{"skillkit.yaml": "rules:\n  link-broken: off\n"})
	if res, _ := Lint([]string{dir}, Options{Base: dir}); len(res.Findings) != 0 {
		t.Errorf("rule turned off still reports: %v", rulesOf(res))
	}
}

func TestParseConfigErrors(t *testing.T) {
	for in, want := range map[string]string{
		"rules: [a":                 "not valid YAML",
		"- a\n- b":                  "a mapping",
		"profile: other":            `profile "other"`,
		"rules:\n  js-syntax: loud": `"loud" is not off`,
		"ignore:\n  - '[a'":         "ignore glob",
	} {
		if _, err := parseConfig([]byte(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("parseConfig(%q) = %v, want an error mentioning %q", in, err, want)
		}
	}
	if cfg, err := parseConfig([]byte("hooks:\n  post: echo\n")); err != nil || cfg.Profile != "" {
		t.Errorf("other keys of skillkit.yaml must be left alone: %v %v", cfg, err)
	}
}

func TestMatchIgnore(t *testing.T) {
	for _, tc := range []struct {
		glob, path string
		want       bool
	}{
		{"templates", "s/templates/a.md", true},
		{"templates", "s/templates.md", false},
		{"*.md", "a/b/c.md", true},
		{"s/phases/**", "s/phases/x/y.md", true},
		{"s/phases/**", "t/phases/y.md", false},
		{"/s/specs", "s/specs/a.md", true},
		{"specs/*.md", "s/specs/a.md", false},
	} {
		if got := matchIgnore(tc.glob, tc.path); got != tc.want {
			t.Errorf("matchIgnore(%q, %q) = %v, want %v", tc.glob, tc.path, got, tc.want)
		}
	}
}

func TestDirectives(t *testing.T) {
	dir := t.TempDir()
	testfs.WriteTree(t, dir, map[string]string{
		"s/SKILL.md": "---\nname: s\ndescription: d\n---\n\n<!-- skillkit-disable-next-line link-broken -->\nSee [a](a.md).\nSee [b](b.md).\n\n" +
			"<!-- skillkit-disable-next-line -->\nSee [c](c.md).\n",
		"s/specs/x.md": "<!-- skillkit-disable link-broken, fence-unclosed -->\n\nSee [d](d.md).\n\n```text\nopen\n",
	})
	res, err := Lint([]string{dir}, Options{Base: dir})
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, f := range res.Findings {
		lines = append(lines, f.String())
	}
	want := []string{"s/SKILL.md:8:5: error: link target b.md does not exist [link-broken]"}
	if !slices.Equal(lines, want) {
		t.Errorf("findings\n%v\nwant\n%v", lines, want)
	}
}

func TestRuleIDsUniqueAndDocumented(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range Rules() {
		if seen[r.ID()] {
			t.Errorf("rule id %s registered twice", r.ID())
		}
		seen[r.ID()] = true
		if RuleByID(r.ID()) != r || r.Description() == "" || !strings.HasSuffix(r.DocsURL(), "#"+r.ID()) {
			t.Errorf("rule %s: lookup, description or docs link wrong", r.ID())
		}
	}
}

// TestLintHasNoSideEffects lints a skill whose shell and JavaScript steps
// would create files, and checks that nothing appeared: lint parses code,
// it never runs it.
func TestLintHasNoSideEffects(t *testing.T) {
	dir := t.TempDir()
	skill := filepath.Join(dir, "s")
	testfs.WriteTree(t, dir, map[string]string{
		"s/SKILL.md": "---\nname: s\ndescription: d\n---\n\n# S\n",
		"s/phases/01-make.md": "# Phase 1: Make\n\n## Execution\n\n### Step 1: Touch\n\n```bash\ntouch created-by-bash.txt\nmkdir made-dir\necho hi > \"$SKILL_DIR/created-in-skill.txt\"\n```\n\n" +
			"### Step 2: Write\n\n```javascript\nWrite('created-by-js.txt', 'x')\nBash('touch created-by-js-bash.txt')\n```\n",
	})
	before := listTree(t, dir)
	wd, _ := os.Getwd()
	if err := os.Chdir(skill); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	res, err := Lint([]string{skill}, Options{Base: dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) != 0 {
		t.Errorf("clean skill reports %v", rulesOf(res))
	}
	if after := listTree(t, dir); !slices.Equal(before, after) {
		t.Errorf("lint changed the folder:\nbefore %v\nafter  %v", before, after)
	}
}

func listTree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out = append(out, rel)
		return nil
	})
	return out
}

func TestSplitAndNormalize(t *testing.T) {
	for in, want := range map[string][]string{
		"state.a === 'x' && state.b > 0":    {"state.a==='x'", "state.b>0"},
		"(state.a == \"x\") && (b && c)":    {"state.a==='x'", "b", "c"},
		"state.s === 'a && b' && f(x && y)": {"state.s==='a && b'", "f(x&&y)"},
		"(state.a || state.b)":              {"state.a||state.b"},
		"state.n != null && (state.m)":      {"state.n!==null", "state.m"},
	} {
		var got []string
		for _, term := range splitAnd(in) {
			got = append(got, normalizeJS(term))
		}
		if !slices.Equal(got, want) {
			t.Errorf("splitAnd+normalize(%q) = %q, want %q", in, got, want)
		}
	}
}

// A key set twice inside a front matter mapping (metadata here) is found
// at its second place, as a top-level one is.
func TestNestedDuplicateKeys(t *testing.T) {
	dir := t.TempDir()
	testfs.WriteTree(t, dir, map[string]string{"s/SKILL.md": "---\nname: s\ndescription: d\nmetadata:\n  owner: a\n  tier: x\n  owner: b\n---\n\n# S\n"})
	res, err := Lint([]string{filepath.Join(dir, "s")}, Options{Base: dir})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range res.Findings {
		if f.Rule == "frontmatter-duplicate-key" {
			got = append(got, f.String())
		}
	}
	want := `s/SKILL.md:7:3: error: key "owner" under metadata is already set at line 5 [frontmatter-duplicate-key]`
	if len(got) != 1 || got[0] != want {
		t.Errorf("findings %q, want %q", got, want)
	}
}

// TestIgnoreDottedName ignores a file whose name starts with two dots,
// beside the skillkit.yaml that names it: it is inside the folder, so
// its findings are dropped.
func TestIgnoreDottedName(t *testing.T) {
	dir := t.TempDir()
	files := skillFiles("s")
	files["s/..scratch.md"] = "See [elsewhere](elsewhere.md).\n"
	files["s/skillkit.yaml"] = "ignore:\n  - ..scratch.md\n"
	testfs.WriteTree(t, dir, files)
	res, err := Lint([]string{filepath.Join(dir, "s")}, Options{Base: dir})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Findings {
		if f.File == "s/..scratch.md" {
			t.Errorf("ignored file reported: %v", f)
		}
	}
}
