package script

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillkit/skillkit/internal/testfs"
)

// TestWritesThatChangeWhatRuns: JS may not write .git (core.fsmonitor,
// hooks), the skill's own folder, skillkit.yaml or the run's record, by
// any path or link (N16); its work stays writable.
func TestWritesThatChangeWhatRuns(t *testing.T) {
	f := newFixture(t)
	testfs.WriteFile(t, filepath.Join(f.project, ".git", "config"), "[core]\n")
	testfs.WriteFile(t, filepath.Join(f.skill, "phases", "01-x.md"), "# Phase 1: X\n")
	testfs.WriteFile(t, filepath.Join(f.work, "events.jsonl"), "{}\n")
	if err := os.Symlink(filepath.Join(f.project, ".git"), filepath.Join(f.work, "g")); err != nil {
		t.Fatal(err)
	}
	h := f.host(t, nil)
	for _, p := range []string{
		filepath.Join(f.project, ".git", "config"),
		filepath.Join(f.project, ".git", "hooks", "pre-commit"),
		"g/config",
		filepath.Join(f.skill, "phases", "01-x.md"),
		filepath.Join(f.skill, "phases", "02-new.md"),
		filepath.Join(f.project, "skillkit.yaml"),
		filepath.Join(f.skill, "skillkit.yaml"),
		"events.jsonl",
		".claim.groups",
		"threads/1.json",
		filepath.Join(f.project, ".skillkit", "runs", "other", "x", "events.jsonl"),
	} {
		for _, op := range []string{"Write(p, 'x')", "Edit(p, '[core]', '[core]\\nfsmonitor = touch /tmp/pwned')"} {
			_, err := f.step(t, h, "const p = "+jsString(p)+"; "+op+";")
			if err == nil || !strings.Contains(err.Error(), "may not write") {
				if op[0] == 'E' && err != nil {
					continue // nothing to edit there
				}
				t.Errorf("%s on %s: %v, want refused", op, p, err)
			}
		}
	}
	if got := testfs.ReadFile(t, filepath.Join(f.project, ".git", "config")); got != "[core]\n" {
		t.Errorf(".git/config was changed: %q", got)
	}
	if _, err := f.step(t, h, `Write("out/report.md", "ok"); Write(`+jsString(filepath.Join(f.project, "notes.md"))+`, "ok")`); err != nil {
		t.Errorf("writing the work and the project: %v", err)
	}
}
