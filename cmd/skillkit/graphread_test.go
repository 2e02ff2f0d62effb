package main

import (
	"image/png"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestGraphsReadable draws the bundled examples as a newcomer does and
// checks what made them hard to read: the hybrid loop goes back to the
// selection, edges whose conditions differ show different labels, and
// Graphviz's PNG is wide enough to read its labels.
func TestGraphsReadable(t *testing.T) {
	root := repoRoot(t)
	dot := func(example string) string {
		code, out, stderr := runLimited(t, limit, "graph", filepath.Join(root, "examples", example), "--format", "dot")
		if code != 0 {
			t.Fatalf("graph %s: exit %d\n%s", example, code, stderr)
		}
		return out
	}
	hybrid := dot("hybrid")
	for _, a := range []string{"action-count", "action-rank"} {
		if !strings.Contains(hybrid, `"`+a+`" -> "selectNextAction" [style=dashed`) {
			t.Errorf("hybrid: no arrow from %s back to selectNextAction:\n%s", a, hybrid)
		}
	}
	auto := dot("autonomous")
	labels := map[string]string{}
	for _, m := range regexp.MustCompile(`label="([^"]*)", tooltip="([^"]*)"`).FindAllStringSubmatch(auto, -1) {
		if cond, ok := labels[m[1]]; ok && cond != m[2] {
			t.Errorf("autonomous: %q labels both %q and %q", m[1], cond, m[2])
		}
		labels[m[1]] = m[2]
	}
	if len(labels) < 4 {
		t.Errorf("autonomous: %d distinct edge labels, want 4:\n%s", len(labels), auto)
	}

	bin, err := exec.LookPath("dot")
	if err != nil {
		t.Skip("Graphviz dot not installed: skipping the PNG's size (apt-get install graphviz)")
	}
	cmd := exec.Command(bin, "-Tpng")
	cmd.Stdin = strings.NewReader(auto)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("dot -Tpng: %v", err)
	}
	img, err := png.DecodeConfig(strings.NewReader(string(out)))
	if err != nil {
		t.Fatal(err)
	}
	// 574 px before: labels in 10-point type at 96 dpi.
	if img.Width < 1000 {
		t.Errorf("the autonomous example's PNG is %d px wide, want 1000 or more", img.Width)
	}
}
