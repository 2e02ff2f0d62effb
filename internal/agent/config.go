package agent

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"go.yaml.in/yaml/v3"
)

// config is what the agent reads of the skillkit.yaml in a skill's
// folder.
type config struct {
	Timeout yaml.Node `yaml:"agent_timeout"`
	Handoff yaml.Node `yaml:"context_handoff"`
	Exit    yaml.Node `yaml:"context_exit"`
}

// readConfig reads the skillkit.yaml of skillDir; the zero config
// without it.
func readConfig(skillDir string) (string, config, error) {
	file := filepath.Join(skillDir, "skillkit.yaml")
	var doc config
	data, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return file, doc, nil
	}
	if err != nil {
		return file, doc, err
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return file, doc, fmt.Errorf("%s: %w", file, err)
	}
	return file, doc, nil
}

// ConfigTimeout reads agent_timeout, the limit of one agent call, from
// the skillkit.yaml in a skill's folder: a Go duration ("10m", "90s").
// Zero without the file or the key. A bad value is an error at its line.
func ConfigTimeout(skillDir string) (time.Duration, error) {
	file, doc, err := readConfig(skillDir)
	n := doc.Timeout
	if err != nil || n.Kind == 0 {
		return 0, err
	}
	d, err := time.ParseDuration(n.Value)
	if n.Kind != yaml.ScalarNode || err != nil || d <= 0 {
		return 0, fmt.Errorf("%s:%d: agent_timeout: want a duration such as 10m or 90s, got %q", file, n.Line, n.Value)
	}
	return d, nil
}

// ConfigContext reads context_handoff and context_exit, the thresholds of
// the conversation's context use in percent (1 to 100), from the
// skillkit.yaml in a skill's folder; the defaults without them. A bad
// value, or a hand-off threshold above the exit one, is an error at its
// line.
func ConfigContext(skillDir string) (ContextLimits, error) {
	file, doc, err := readConfig(skillDir)
	if err != nil {
		return ContextLimits{}, err
	}
	l := ContextLimits{}.orDefault()
	for _, k := range []struct {
		name string
		n    yaml.Node
		v    *int
	}{{"context_handoff", doc.Handoff, &l.Handoff}, {"context_exit", doc.Exit, &l.Exit}} {
		if k.n.Kind == 0 {
			continue
		}
		v, err := strconv.Atoi(k.n.Value)
		if k.n.Kind != yaml.ScalarNode || err != nil || v < 1 || v > 100 {
			return ContextLimits{}, fmt.Errorf("%s:%d: %s: want a percentage from 1 to 100, got %q", file, k.n.Line, k.name, k.n.Value)
		}
		*k.v = v
	}
	if l.Handoff > l.Exit {
		line := max(doc.Handoff.Line, doc.Exit.Line)
		return ContextLimits{}, fmt.Errorf("%s:%d: context_handoff (%d) is above context_exit (%d): the hand-off must be asked for before the run stops", file, line, l.Handoff, l.Exit)
	}
	return l, nil
}
