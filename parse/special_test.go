package parse

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSpecialFilesRefused: a phase linked to /dev/zero, a FIFO, a link out
// of the skill and a sparse file past the cap are each reported as
// unreadable at once, without reading them whole or blocking (N2, N3).
func TestSpecialFilesRefused(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "secret.md")
	if err := os.WriteFile(outside, []byte("# secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := writeSkill(t, map[string]string{
		"SKILL.md":         "---\nname: demo\ndescription: d\n---\n# Demo\n",
		"phases/01-ok.md":  "# Phase 1: OK\n## Execution Steps\n### Step 1: Go\nGo.\n",
		"phases/README.md": "# notes\n",
	})
	ph := filepath.Join(dir, "phases")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink("/dev/zero", filepath.Join(ph, "02-zero.md")))
	must(syscall.Mkfifo(filepath.Join(ph, "03-fifo.md"), 0o644))
	must(os.Symlink(outside, filepath.Join(ph, "04-out.md")))
	sparse, err := os.Create(filepath.Join(dir, "data.bin"))
	must(err)
	must(sparse.Truncate(8 << 30))
	sparse.Close()

	done := make(chan struct{})
	go func() {
		defer close(done)
		s, err := Dir(dir)
		if err != nil {
			t.Error(err)
			return
		}
		got := map[string]string{}
		for _, d := range s.Diagnostics {
			if d.Code == "file-unreadable" {
				got[d.Pos.File] = d.Message
			}
		}
		for _, f := range []string{"phases/02-zero.md", "phases/03-fifo.md", "phases/04-out.md", "data.bin"} {
			if got[f] == "" {
				t.Errorf("%s: no file-unreadable diagnostic; got %v", f, got)
			}
		}
		for _, ph := range s.Phases {
			if strings.Contains(ph.Title, "secret") {
				t.Errorf("a phase outside the skill was read: %s", ph.Title)
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("parsing a skill with special files hangs")
	}
}
