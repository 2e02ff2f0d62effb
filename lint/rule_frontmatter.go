package lint

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/skillkit/skillkit/plan"
)

// Limits of the Agent Skills specification.
const (
	maxNameLen          = 64
	maxDescriptionLen   = 1024
	maxCompatibilityLen = 500
)

// skillName is the specification's name syntax: lowercase letters, digits
// and single hyphens, not at either end.
var skillName = regexp.MustCompile(`^[a-z0-9]+(?:-[a-z0-9]+)*$`)

var frontMatterRules = []Rule{
	newRule("frontmatter-yaml", plan.SevError, "the front matter is not valid YAML or not a mapping", checkFrontMatterYAML),
	diagnosticRule("frontmatter-unterminated", plan.SevError, "the front matter opened at line 1 has no closing --- line"),
	diagnosticRule("execution-invalid", plan.SevWarning, "the skill's execution setting (front matter or skillkit.yaml) is not auto, native or agent, so auto applies"),
	newRule("frontmatter-required", plan.SevError,
		"the agentskills profile requires front matter with name and description", checkRequired),
	newRule("frontmatter-duplicate-key", plan.SevError,
		"a front matter key appears twice; YAML readers disagree on which value wins", checkDuplicateKeys),
	newRule("frontmatter-name", plan.SevError,
		"name is not 1-64 lowercase letters, digits and single inner hyphens", checkName),
	newRule("frontmatter-name-folder", plan.SevError,
		"name differs from the skill's folder name", checkNameFolder),
	newRule("frontmatter-description", plan.SevError,
		"description is empty, longer than 1024 characters, not a string, or holds < or >", checkDescription),
	newRule("frontmatter-compatibility", plan.SevError,
		"compatibility is not a string of at most 500 characters", checkCompatibility),
	newRule("frontmatter-metadata", plan.SevError,
		"metadata is not a mapping of string keys to string values (hooks aside)", checkMetadata),
	newRule("hooks-invalid", plan.SevError,
		"a hooks map (metadata.hooks or skillkit.yaml hooks) names an unknown hook point or a value that is no command", checkHooks),
	newRule("worker-invalid", plan.SevError,
		"worker.yaml's worker or state_machine block has a value of the wrong shape: the run is refused", checkWorker),
	newRule("frontmatter-type", plan.SevError,
		"a known front matter key has a value of the wrong type, or review one other than none or completion", checkTypes),
	newRule("frontmatter-unknown-key", plan.SevWarning,
		"a front matter key is not one the profile knows; clients ignore it", checkUnknownKeys),
}

// frontMatter returns the entry's parsed front matter, nil when there is
// none or it did not parse (frontmatter-yaml reports that).
func frontMatter(p *Pass) *plan.FrontMatter {
	fm := p.Skill.FrontMatter
	if fm == nil || fm.Error != nil {
		return nil
	}
	return fm
}

// checkFrontMatterYAML reports the parser's front matter errors, with a
// fix when a description's unquoted ": " is the cause.
func checkFrontMatterYAML(p *Pass) {
	for _, d := range p.Skill.Diagnostics {
		if d.Code != "frontmatter-yaml" {
			continue
		}
		// The YAML parser counts lines from the block's start; the
		// position already says where, in the file's lines.
		msg := yamlBlockLine.ReplaceAllString(d.Message, "")
		fix := p.quoteFix()
		if len(fix) > 0 && fix[0].Line == d.Pos.Line {
			line := p.line(p.Skill.Entry, d.Pos.Line)
			key, value, _ := strings.Cut(line, ":")
			at := d.Pos
			at.Col = len(key) + 1 + strings.Index(value, ": ") + 1
			p.ReportFix(at, at.Col+1, fix, "%s: %s's value holds \": \", which YAML reads as a nested key; quote the value", msg, key)
			continue
		}
		p.ReportFix(d.Pos, 0, fix, "%s", msg)
	}
}

// yamlBlockLine is the "line N: " the YAML parser puts in its messages.
var yamlBlockLine = regexp.MustCompile(`line \d+: `)

func checkRequired(p *Pass) {
	s := p.Skill
	// Claude Code treats both keys as optional (the name defaults to the
	// folder), so only the portable profile requires them.
	if p.Profile != ProfileAgentSkills || s.Entry != "SKILL.md" {
		return
	}
	if s.FrontMatter == nil {
		p.Report(plan.Pos{File: s.Entry, Line: 1, Col: 1}, "SKILL.md has no front matter; the Agent Skills specification requires name and description")
		return
	}
	fm := frontMatter(p)
	if fm == nil {
		return
	}
	for _, k := range []string{"name", "description"} {
		if fm.Get(k) == nil {
			p.Report(fm.Pos, "front matter has no %s; the Agent Skills specification requires it", k)
		}
	}
}

func checkDuplicateKeys(p *Pass) {
	fm := frontMatter(p)
	if fm == nil {
		return
	}
	first := map[string]*plan.Field{}
	for _, f := range fm.Fields {
		for _, d := range f.Duplicates {
			p.ReportRange(d.Pos, d.Pos.Col+len(d.Key), "key %q under %s is already set at line %d", d.Key, f.Key, d.FirstLine)
		}
		if prev, ok := first[f.Key]; ok {
			p.ReportRange(f.Pos, f.Pos.Col+len(f.Key), "key %q is already set at line %d", f.Key, prev.Pos.Line)
			continue
		}
		first[f.Key] = f
	}
}

func checkName(p *Pass) {
	f := frontMatter(p).Get("name")
	if f == nil {
		return
	}
	name, ok := f.Value.(string)
	switch {
	case !ok:
		p.Report(f.ValuePos, "name must be a string, not %s", yamlKind(f.Value))
	case name == "":
		p.Report(f.ValuePos, "name is empty")
	case len(name) > maxNameLen:
		p.Report(f.ValuePos, "name is %d characters, over the limit of %d", len(name), maxNameLen)
	case !skillName.MatchString(name):
		// A name that is not valid need not also be told it differs from
		// the folder (frontmatter-name-folder keeps quiet): say it here.
		fix := ""
		if folder := skillFolderName(p.Skill); validName(folder) {
			fix = fmt.Sprintf("; the folder's name %q would do", folder)
		}
		p.ReportFix(f.ValuePos, f.ValuePos.Col+len(name), p.nameFix(f), "name %q must be lowercase letters, digits and hyphens, with no hyphen at either end or twice in a row%s", name, fix)
	}
}

// validName reports whether name is a valid skill name.
func validName(name string) bool {
	return name != "" && len(name) <= maxNameLen && skillName.MatchString(name)
}

func checkNameFolder(p *Pass) {
	f := frontMatter(p).Get("name")
	if f == nil {
		return
	}
	name, ok := f.Value.(string)
	if !ok || !validName(name) {
		return // frontmatter-name reports it
	}
	folder := skillFolderName(p.Skill)
	if folder != "" && name != folder {
		p.ReportFix(f.ValuePos, f.ValuePos.Col+len(name), p.nameFix(f), "name %q does not match the skill's folder %q", name, folder)
	}
}

// skillFolderName is the base name of the skill's folder; parse.Dir keeps
// it in Name when the front matter has none, but here the front matter's
// name is set, so it is read from Dir.
func skillFolderName(s *plan.Skill) string {
	d := strings.TrimRight(strings.ReplaceAll(s.Dir, "\\", "/"), "/")
	if i := strings.LastIndex(d, "/"); i >= 0 {
		d = d[i+1:]
	}
	if d == "." || d == ".." {
		return ""
	}
	return d
}

func checkDescription(p *Pass) {
	f := frontMatter(p).Get("description")
	if f == nil {
		return
	}
	d, ok := f.Value.(string)
	switch {
	case !ok:
		p.Report(f.ValuePos, "description must be a string, not %s", yamlKind(f.Value))
	case strings.TrimSpace(d) == "":
		p.Report(f.ValuePos, "description is empty")
	case utf8.RuneCountInString(d) > maxDescriptionLen:
		p.Report(f.ValuePos, "description is %d characters, over the limit of %d", utf8.RuneCountInString(d), maxDescriptionLen)
	case strings.ContainsAny(d, "<>"):
		p.Report(f.ValuePos, "description holds %q; skill validators reject angle brackets in descriptions, which would read as markup", string(d[strings.IndexAny(d, "<>")]))
	}
}

func checkCompatibility(p *Pass) {
	f := frontMatter(p).Get("compatibility")
	if f == nil {
		return
	}
	c, ok := f.Value.(string)
	switch {
	case !ok:
		p.Report(f.ValuePos, "compatibility must be a string, not %s", yamlKind(f.Value))
	case strings.TrimSpace(c) == "":
		p.Report(f.ValuePos, "compatibility is empty; leave the key out instead")
	case utf8.RuneCountInString(c) > maxCompatibilityLen:
		p.Report(f.ValuePos, "compatibility is %d characters, over the limit of %d", utf8.RuneCountInString(c), maxCompatibilityLen)
	}
}

func checkMetadata(p *Pass) {
	f := frontMatter(p).Get("metadata")
	if f == nil {
		return
	}
	m, ok := f.Value.(map[string]any)
	if !ok {
		p.Report(f.ValuePos, "metadata must be a mapping of strings to strings, not %s", yamlKind(f.Value))
		return
	}
	var bad []string
	for k, v := range m {
		if k == "hooks" {
			// The runtime reads metadata.hooks as a map; hooks-invalid
			// checks it as the runtime does.
			continue
		}
		if _, ok := v.(string); !ok {
			bad = append(bad, fmt.Sprintf("%s (%s)", k, yamlKind(v)))
		}
	}
	if len(bad) > 0 {
		slices.Sort(bad)
		p.Report(f.ValuePos, "metadata values must be strings; not strings: %s", strings.Join(bad, ", "))
	}
}

// keyTypes are the value types of keys whose type the specification or
// Claude Code's reference fixes and whose other keys' checks do not
// already cover.
var keyTypes = map[string]string{
	"license":                  "string",
	"allowed-tools":            "string or list",
	"when_to_use":              "string",
	"disable-model-invocation": "boolean",
	"user-invocable":           "boolean",
	"model":                    "string",
	"context":                  "string",
	"agent":                    "string",
	"hooks":                    "mapping",
	"paths":                    "string or list",
	plan.ReviewKey:             "string",
}

func checkTypes(p *Pass) {
	fm := frontMatter(p)
	if fm == nil {
		return
	}
	allowed := p.profile().keys
	for _, f := range fm.Fields {
		want, known := keyTypes[f.Key]
		if !known || !slices.Contains(allowed, f.Key) {
			continue
		}
		if !hasYAMLType(f.Value, want) {
			p.Report(f.ValuePos, "%s must be a %s, not %s", f.Key, want, yamlKind(f.Value))
		} else if f.Key == plan.ReviewKey {
			// The value task add refuses, so that lint says it first.
			if err := plan.CheckReview(f.Value); err != nil {
				p.Report(f.ValuePos, "%v", err)
			}
		}
	}
}

func hasYAMLType(v any, want string) bool {
	switch want {
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "mapping":
		_, ok := v.(map[string]any)
		return ok
	case "string or list":
		switch v := v.(type) {
		case string:
			return true
		case []any:
			for _, e := range v {
				if _, ok := e.(string); !ok {
					return false
				}
			}
			return true
		}
	}
	return false
}

// yamlKind names a decoded YAML value's type for messages.
func yamlKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case int, int64, uint64, float64:
		return "a number"
	case []any:
		return "a list"
	case map[string]any:
		return "a mapping"
	}
	return fmt.Sprintf("a %T", v)
}

func checkUnknownKeys(p *Pass) {
	fm := frontMatter(p)
	// The profiles describe SKILL.md; the front matter of a Codex
	// orchestrator.md entry has keys of its own.
	if fm == nil || p.Skill.Entry != "SKILL.md" {
		return
	}
	prof := p.profile()
	for _, f := range fm.Fields {
		if slices.Contains(prof.keys, f.Key) {
			continue
		}
		whose := "custom keys belong under metadata"
		if others := p.otherProfiles(f.Key); len(others) > 0 {
			whose = "it is a key of " + strings.Join(others, " and ") + "; custom keys belong under metadata"
		}
		p.ReportFix(f.Pos, f.Pos.Col+len(f.Key), p.metadataFix(f), "key %q is not one %s reads (profile %s, %s): %s", f.Key, prof.title, prof.name, prof.version, whose)
	}
}

// checkWorker decodes worker.yaml as the runtime does, which refuses the run
// with the same error.
func checkWorker(p *Pass) {
	_, err := p.Skill.Worker()
	var he *plan.HookError
	if errors.As(err, &he) {
		p.Report(he.Pos, "%s", he.Msg)
	}
}

func checkHooks(p *Pass) {
	_, err := p.Skill.Hooks()
	var he *plan.HookError
	if errors.As(err, &he) {
		p.Report(he.Pos, "%s", he.Msg)
	}
}
