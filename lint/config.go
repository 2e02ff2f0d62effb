package lint

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/skillkit/skillkit/plan"
)

// ConfigFile is the name of the configuration file lint looks for in the
// folder it lints.
const ConfigFile = "skillkit.yaml"

// Off turns a rule off in the configuration.
const Off = "off"

// Config is a skillkit.yaml as far as lint reads it. Other keys of the
// file (hooks, …) belong to other parts of skillkit and are left alone.
type Config struct {
	// Profile is the front matter profile; empty means the default.
	Profile string `yaml:"profile" jsonschema:"enum=auto,enum=claude-code,enum=agentskills,enum=codex,enum=pi"`
	// Rules maps a rule id to off, error, warning or info.
	Rules map[string]string `yaml:"rules"`
	// Ignore holds globs of files whose findings are dropped, relative to
	// the configuration file's folder. A glob without a slash matches a
	// file or folder name at any depth; ** matches any number of folders.
	Ignore []string `yaml:"ignore"`
	// ListingBudget is how many characters of description and
	// when_to_use all the skills under the configuration may list
	// together (a host lists every installed skill within a budget);
	// 0 leaves it unchecked.
	ListingBudget int `yaml:"listing-budget" jsonschema:"minimum=0"`
	// Dir is the folder the configuration applies to (ignore globs are
	// relative to it); File is the configuration file, and budgetLine the
	// line of its listing-budget.
	Dir        string `yaml:"-"`
	File       string `yaml:"-"`
	budgetLine int
}

// LoadConfig reads a configuration file. Errors name the file and, when
// the YAML says so, the line.
func LoadConfig(file string) (*Config, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, usageErrorf("reading config: %w", err)
	}
	dir, err := filepath.Abs(filepath.Dir(file))
	if err != nil {
		return nil, fmt.Errorf("reading config %s: %w", file, err)
	}
	cfg, err := parseConfig(data)
	if err != nil {
		return nil, &UsageError{Err: fmt.Errorf("%s:%w", file, err)}
	}
	cfg.Dir = dir
	cfg.File = filepath.Join(dir, filepath.Base(file))
	return cfg, nil
}

// configError is a configuration problem at a line of the file.
type configError struct {
	line int
	msg  string
}

func (e *configError) Error() string { return fmt.Sprintf("%d: %s", e.line, e.msg) }

// parseConfig decodes and checks configuration text.
func parseConfig(data []byte) (*Config, error) {
	var root yaml.Node
	cfg := &Config{}
	if len(bytes.TrimSpace(data)) == 0 {
		return cfg, nil
	}
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, &configError{plan.YAMLErrorLine(err.Error(), 1), "not valid YAML: " + strings.TrimPrefix(err.Error(), "yaml: ")}
	}
	doc := root.Content[0]
	if doc.Kind != yaml.MappingNode {
		return nil, &configError{doc.Line, "a configuration is a mapping of keys (profile, rules, ignore) to values"}
	}
	if err := doc.Decode(cfg); err != nil {
		var te *yaml.TypeError
		if errors.As(err, &te) && len(te.Errors) > 0 {
			return nil, &configError{plan.YAMLErrorLine(te.Errors[0], doc.Line), te.Errors[0]}
		}
		return nil, &configError{doc.Line, err.Error()}
	}
	for i := 0; i+1 < len(doc.Content); i += 2 {
		k, v := doc.Content[i], doc.Content[i+1]
		switch k.Value {
		case "profile":
			if !validProfile(cfg.Profile) {
				return nil, &configError{v.Line, fmt.Sprintf("profile %q is not one of %s", cfg.Profile, strings.Join(ProfileNames, ", "))}
			}
		case "rules":
			for j := 0; j+1 < len(v.Content); j += 2 {
				id, sev := v.Content[j], v.Content[j+1]
				if RuleByID(id.Value) == nil {
					return nil, &configError{id.Line, fmt.Sprintf("unknown rule %q", id.Value)}
				}
				if !validSetting(sev.Value) {
					return nil, &configError{sev.Line, fmt.Sprintf("rule %s: %q is not off, error, warning or info", id.Value, sev.Value)}
				}
			}
		case "listing-budget":
			if cfg.ListingBudget < 0 {
				return nil, &configError{v.Line, fmt.Sprintf("listing-budget %d is negative", cfg.ListingBudget)}
			}
			cfg.budgetLine = v.Line
		case "ignore":
			for _, g := range v.Content {
				if _, err := path.Match(strings.ReplaceAll(g.Value, "**", "*"), ""); err != nil {
					return nil, &configError{g.Line, fmt.Sprintf("ignore glob %q: %v", g.Value, err)}
				}
			}
		}
	}
	return cfg, nil
}

func validSetting(s string) bool {
	return slices.Contains([]string{Off, string(plan.SevError), string(plan.SevWarning), string(plan.SevInfo)}, s)
}

// severity returns the severity a rule reports at, and false when the
// configuration turns it off.
func (c *Config) severity(r Rule) (plan.Severity, bool) {
	if c != nil {
		if s, ok := c.Rules[r.ID()]; ok {
			if s == Off {
				return "", false
			}
			return plan.Severity(s), true
		}
	}
	return r.Severity(), true
}

// ignored reports whether a file (absolute) matches an ignore glob.
func (c *Config) ignored(file string) bool {
	if c == nil || len(c.Ignore) == 0 {
		return false
	}
	rel, err := filepath.Rel(c.Dir, file)
	// Not a prefix test: "..draft.md" is a name inside the folder.
	if err != nil || !filepath.IsLocal(rel) {
		return false
	}
	rel = filepath.ToSlash(rel)
	for _, g := range c.Ignore {
		if matchIgnore(g, rel) {
			return true
		}
	}
	return false
}

// matchIgnore matches a gitignore-like glob against a slash path: the path
// or any folder above it may match. A glob without a slash matches a name
// at any depth.
func matchIgnore(glob, rel string) bool {
	glob = strings.TrimSuffix(strings.TrimPrefix(glob, "/"), "/")
	if !strings.Contains(glob, "/") {
		glob = "**/" + glob
	}
	pat := strings.Split(glob, "/")
	segs := strings.Split(rel, "/")
	for n := len(segs); n > 0; n-- {
		if matchSegments(pat, segs[:n]) {
			return true
		}
	}
	return false
}

func matchSegments(pat, segs []string) bool {
	if len(pat) == 0 {
		return len(segs) == 0
	}
	if pat[0] == "**" {
		for i := 0; i <= len(segs); i++ {
			if matchSegments(pat[1:], segs[i:]) {
				return true
			}
		}
		return false
	}
	if len(segs) == 0 {
		return false
	}
	ok, err := path.Match(pat[0], segs[0])
	return err == nil && ok && matchSegments(pat[1:], segs[1:])
}
