package lint

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/skillkit/skillkit/internal/realtool"
	"github.com/skillkit/skillkit/plan"
)

// TestPluginManifestsAsClaude lints plugin and marketplace manifests and
// runs the real `claude plugin validate` on the same folders: where
// Claude Code refuses one, lint has an error, and where it accepts one,
// lint has none. (Claude Code also accepts a marketplace whose plugin
// source does not exist, which lint refuses on purpose; that case is in
// TestDocsExamples' territory, not here.)
func TestPluginManifestsAsClaude(t *testing.T) {
	claude := realtool.Find(t, "claude")
	plugin := func(dir, manifest string) {
		copyTree(t, filepath.Join("testdata", "base", "sequential", "demo"), filepath.Join(dir, "skills", "demo"))
		write(t, filepath.Join(dir, ".claude-plugin", "plugin.json"), manifest)
	}
	const good = `{"name": "demo-plugin", "version": "1.0.0", "description": "Counts words.", "skills": "./skills"}`
	for _, c := range []struct {
		name, plugin, marketplace string
	}{
		{"valid plugin", good, ""},
		{"no name", `{"version": "1.0.0"}`, ""},
		{"name with spaces", `{"name": "demo plugin"}`, ""},
		{"skills path missing", `{"name": "demo-plugin", "skills": "./nope"}`, ""},
		{"commands path missing", `{"name": "demo-plugin", "commands": "./missing"}`, ""},
		{"version a number", `{"name": "demo-plugin", "version": 3}`, ""},
		{"not JSON", `not json`, ""},
		{"valid marketplace", good, `{"name": "demo-market", "owner": {"name": "Ada"}, "plugins": [{"name": "demo-plugin", "source": "./demo-plugin"}]}`},
		{"marketplace without owner", good, `{"name": "demo-market", "plugins": [{"name": "demo-plugin", "source": "./demo-plugin"}]}`},
		{"marketplace plugin without name", good, `{"name": "demo-market", "owner": {"name": "Ada"}, "plugins": [{"source": "./demo-plugin"}]}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			target := root
			if c.marketplace != "" {
				plugin(filepath.Join(root, "demo-plugin"), c.plugin)
				write(t, filepath.Join(root, ".claude-plugin", "marketplace.json"), c.marketplace)
			} else {
				plugin(root, c.plugin)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, claude, "plugin", "validate", target)
			cmd.Dir = root
			out, err := cmd.CombinedOutput()
			if ctx.Err() != nil {
				t.Fatalf("claude plugin validate did not end: %s", out)
			}
			claudeRefuses := err != nil
			res, lerr := Lint([]string{target}, Options{Base: root})
			if lerr != nil {
				t.Fatal(lerr)
			}
			var errs []string
			for _, f := range res.Findings {
				if f.Rule == "plugin-manifest" && f.Severity == plan.SevError {
					errs = append(errs, f.String())
				}
			}
			if claudeRefuses != (len(errs) > 0) {
				t.Errorf("claude plugin validate refuses: %v; lint's errors: %q\nclaude said:\n%s", claudeRefuses, errs, out)
			}
		})
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
