package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzConfig reads any skillkit.yaml: agent_timeout and the context
// thresholds come back valid (a positive duration; 1 ≤ hand-off ≤ exit ≤
// 100) or as an error naming the file, never a panic.
func FuzzConfig(f *testing.F) {
	for _, s := range []string{
		"", "agent_timeout: 10m\ncontext_handoff: 65\ncontext_exit: 75\n", "context_exit: 60\n",
		"context_handoff: 80\ncontext_exit: 70\n", "context_exit: [1]\n", "context_handoff: -3\n",
		"context_exit: 0x40\n", "context_handoff: 1e2\n", "context_exit: &a 50\ncontext_handoff: *a\n", ": :\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "skillkit.yaml"), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		d, err := ConfigTimeout(dir)
		if err != nil && !strings.Contains(err.Error(), "skillkit.yaml") || err == nil && d < 0 {
			t.Errorf("agent_timeout: %v, %v", d, err)
		}
		l, err := ConfigContext(dir)
		if err != nil {
			if !strings.Contains(err.Error(), "skillkit.yaml") {
				t.Errorf("an error that does not name the file: %v", err)
			}
			return
		}
		if l.Handoff < 1 || l.Handoff > l.Exit || l.Exit > 100 {
			t.Errorf("thresholds %+v out of 1 ≤ hand-off ≤ exit ≤ 100", l)
		}
	})
}

// A skill without skillkit.yaml, or without the keys, gets the
// specification's 65 and 75.
func TestConfigContextDefaults(t *testing.T) {
	dir := t.TempDir()
	for _, data := range []string{"", "agent_timeout: 10m\n"} {
		if data != "" {
			if err := os.WriteFile(filepath.Join(dir, "skillkit.yaml"), []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if l, err := ConfigContext(dir); err != nil || l != (ContextLimits{Handoff: 65, Exit: 75}) {
			t.Errorf("%q: %+v, %v; want 65 and 75", data, l, err)
		}
	}
}
