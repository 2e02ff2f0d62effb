package lint

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/skillkit/skillkit/plan"
)

// Claude Code plugins ship skills: a plugin folder holds
// .claude-plugin/plugin.json and its skills under skills/; a marketplace
// folder holds .claude-plugin/marketplace.json, naming plugins by folder.
// Anthropic publishes no JSON Schema for either; the keys and what they
// must hold follow Claude Code's plugin reference
// (https://code.claude.com/docs/en/plugins-reference) and what
// `claude plugin validate` (2.1.197) reports, which a test compares.
const (
	pluginDir       = ".claude-plugin"
	pluginFile      = "plugin.json"
	marketplaceFile = "marketplace.json"
)

var pluginRules = []Rule{
	newRule("plugin-manifest", plan.SevError,
		"a Claude Code plugin.json or marketplace.json beside the skills lacks a required key, has a value of the wrong type, or names a path that does not exist",
		// Checked across skills, after each is linted (pluginManifests).
		func(*Pass) {}),
}

// kebab is what Claude Code accepts as a plugin's or marketplace's name.
var kebab = regexp.MustCompile(`^[a-z0-9]+(?:-[a-z0-9]+)*$`)

// pluginRoot is the folder of the plugin a skill folder would belong to:
// the one holding the skills/ folder the skill is in.
func pluginRoot(skillDir string) (string, bool) {
	parent := filepath.Dir(skillDir)
	if filepath.Base(parent) != "skills" {
		return "", false
	}
	return filepath.Dir(parent), true
}

// pluginManifests finds the plugin and marketplace manifests beside the
// skills linted, and in the folders lint was given, and checks them.
func pluginManifests(targets []*target, roots []string, base string) []Finding {
	rule := RuleByID("plugin-manifest")
	var folders []string
	add := func(dir string) {
		if !slices.Contains(folders, dir) {
			folders = append(folders, dir)
		}
	}
	for _, r := range roots {
		add(r)
	}
	for _, t := range targets {
		// A plugin's skills are in its skills/ folder; its marketplace is
		// the folder above the plugin, as a rule.
		if root, ok := pluginRoot(t.dir); ok {
			add(root)
			add(filepath.Dir(root))
		}
	}
	for _, t := range targets {
		if t.cfg != nil {
			if _, on := t.cfg.severity(rule); !on {
				return nil
			}
		}
	}
	var out []Finding
	for _, dir := range folders {
		for _, name := range []string{pluginFile, marketplaceFile} {
			file := filepath.Join(dir, pluginDir, name)
			data, err := os.ReadFile(file)
			if err != nil {
				continue
			}
			m := &manifest{file: file, rel: relPath(base, file), data: data, dir: dir, rule: rule}
			if name == pluginFile {
				m.checkPlugin()
			} else {
				m.checkMarketplace()
			}
			out = append(out, m.findings...)
		}
	}
	return out
}

// manifest is one manifest being checked.
type manifest struct {
	file, rel, dir string
	data           []byte
	rule           Rule
	findings       []Finding
}

func (m *manifest) report(sev plan.Severity, key, format string, args ...any) {
	m.findings = append(m.findings, Finding{Rule: m.rule.ID(), Severity: sev, File: m.rel, Line: m.lineOf(key),
		Message: fmt.Sprintf(format, args...)})
}

// lineOf is the line of the first "key": in the file, else 1.
func (m *manifest) lineOf(key string) int {
	if key != "" {
		if i := bytes.Index(m.data, []byte(`"`+key+`"`)); i >= 0 {
			return bytes.Count(m.data[:i], []byte("\n")) + 1
		}
	}
	return 1
}

// object reads the manifest as a JSON object, reporting where it is not.
func (m *manifest) object() map[string]any {
	var v any
	if err := json.Unmarshal(m.data, &v); err != nil {
		line := 1
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line = bytes.Count(m.data[:min(int(se.Offset), len(m.data))], []byte("\n")) + 1
		}
		m.findings = append(m.findings, Finding{Rule: m.rule.ID(), Severity: plan.SevError, File: m.rel, Line: line,
			Message: "not valid JSON: " + err.Error()})
		return nil
	}
	obj, ok := v.(map[string]any)
	if !ok {
		m.report(plan.SevError, "", "the manifest is not a JSON object")
	}
	return obj
}

// name checks a required kebab-case name.
func (m *manifest) name(obj map[string]any, what string) string {
	name, ok := obj["name"].(string)
	switch {
	case obj["name"] == nil:
		m.report(plan.SevError, "", "%s has no name: it is required", what)
	case !ok:
		m.report(plan.SevError, "name", "%s's name must be a string", what)
	case strings.ContainsAny(name, " \t\n"):
		m.report(plan.SevError, "name", "%s's name %q has spaces: Claude Code refuses it; use kebab-case", what, name)
	case !kebab.MatchString(name):
		m.report(plan.SevWarning, "name", "%s's name %q is not kebab-case (lowercase letters, digits and hyphens), as Claude Code advises", what, name)
	}
	return name
}

// strings checks that the keys, where present, hold strings.
func (m *manifest) stringKeys(obj map[string]any, keys ...string) {
	for _, k := range keys {
		if v, ok := obj[k]; ok {
			if _, isString := v.(string); !isString {
				m.report(plan.SevError, k, "%s must be a string", k)
			}
		}
	}
}

// paths checks that a key holding a path or a list of paths names files
// or folders that exist, relative to the manifest's folder.
func (m *manifest) paths(obj map[string]any, key string) {
	var list []any
	switch v := obj[key].(type) {
	case nil:
		return
	case string:
		list = []any{v}
	case []any:
		list = v
	default:
		// An inline object (hooks, mcpServers) holds no path.
		return
	}
	for _, p := range list {
		s, ok := p.(string)
		if !ok {
			m.report(plan.SevError, key, "%s must hold paths (strings)", key)
			continue
		}
		if _, err := os.Stat(filepath.Join(m.dir, filepath.FromSlash(s))); err != nil {
			m.report(plan.SevError, key, "%s: path %s not found beside %s: Claude Code fails to load the plugin", key, s, m.rel)
		}
	}
}

// checkPlugin checks a plugin.json: a kebab-case name; version and
// description strings; author an object; the paths of commands, agents,
// skills, hooks and MCP servers there.
func (m *manifest) checkPlugin() {
	obj := m.object()
	if obj == nil {
		return
	}
	m.name(obj, "the plugin")
	m.stringKeys(obj, "version", "description", "homepage", "repository", "license")
	if a, ok := obj["author"]; ok {
		if _, isObj := a.(map[string]any); !isObj {
			m.report(plan.SevError, "author", "author must be an object with a name")
		}
	}
	for _, k := range []string{"commands", "agents", "skills", "hooks", "mcpServers", "outputStyles"} {
		m.paths(obj, k)
	}
}

// checkMarketplace checks a marketplace.json: a kebab-case name, an
// owner object, and plugins each with a name and a source; a source that
// is a path must exist, and the plugin.json there should have the name
// the marketplace gives it.
func (m *manifest) checkMarketplace() {
	obj := m.object()
	if obj == nil {
		return
	}
	m.name(obj, "the marketplace")
	if _, ok := obj["owner"].(map[string]any); !ok {
		m.report(plan.SevError, "owner", "the marketplace has no owner object: it is required")
	}
	plugins, ok := obj["plugins"].([]any)
	if !ok {
		m.report(plan.SevError, "plugins", "the marketplace has no plugins list: it is required")
		return
	}
	for i, p := range plugins {
		entry, ok := p.(map[string]any)
		if !ok {
			m.report(plan.SevError, "plugins", "plugins[%d] is not an object", i)
			continue
		}
		name, _ := entry["name"].(string)
		if name == "" {
			m.report(plan.SevError, "plugins", "plugins[%d] has no name: it is required", i)
		}
		src, isPath := entry["source"].(string)
		switch {
		case entry["source"] == nil:
			m.report(plan.SevError, "plugins", "plugins[%d] (%s) has no source: it is required", i, name)
		case !isPath:
			// A git or GitHub source: nothing here to check.
		default:
			dir := filepath.Join(m.dir, filepath.FromSlash(src))
			if _, err := os.Stat(dir); err != nil {
				m.report(plan.SevError, src, "plugins[%d] (%s): source %s not found", i, name, src)
				continue
			}
			var pj struct{ Name string }
			if data, err := os.ReadFile(filepath.Join(dir, pluginDir, pluginFile)); err == nil && json.Unmarshal(data, &pj) == nil &&
				pj.Name != "" && name != "" && pj.Name != name {
				m.report(plan.SevWarning, src, "plugins[%d] is named %s here but %s in %s/%s/%s: installs and updates go by the marketplace's name", i, name, pj.Name, src, pluginDir, pluginFile)
			}
		}
	}
}

// folders are the paths lint was given that are folders, absolute.
func folders(paths []string) []string {
	var out []string
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			if abs, err := filepath.Abs(p); err == nil {
				out = append(out, abs)
			}
		}
	}
	return out
}
