package agent

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"go.yaml.in/yaml/v3"
)

// ConfigTimeout reads agent_timeout, the limit of one agent call, from
// the skillkit.yaml in a skill's folder: a Go duration ("10m", "90s").
// Zero without the file or the key. A bad value is an error at its line.
func ConfigTimeout(skillDir string) (time.Duration, error) {
	file := filepath.Join(skillDir, "skillkit.yaml")
	data, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	var doc struct {
		Timeout yaml.Node `yaml:"agent_timeout"`
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return 0, fmt.Errorf("%s: %w", file, err)
	}
	n := doc.Timeout
	if n.Kind == 0 {
		return 0, nil
	}
	d, err := time.ParseDuration(n.Value)
	if n.Kind != yaml.ScalarNode || err != nil || d <= 0 {
		return 0, fmt.Errorf("%s:%d: agent_timeout: want a duration such as 10m or 90s, got %q", file, n.Line, n.Value)
	}
	return d, nil
}
