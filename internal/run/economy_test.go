package run_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/skillkit/skillkit/internal/agent"
	"github.com/skillkit/skillkit/internal/corpus"
	lifecycle "github.com/skillkit/skillkit/internal/run"
	"github.com/skillkit/skillkit/internal/runstore/fsstore"
	"github.com/skillkit/skillkit/internal/script"
	"github.com/skillkit/skillkit/internal/testagent"
	"github.com/skillkit/skillkit/parse"
	"github.com/skillkit/skillkit/plan"
)

// TestPromptEconomy runs the largest sequential skill of the corpus with
// the scripted agent twice: behind the claude adapter, which keeps one
// conversation, the bytes sent over the whole run must be at most 1.5x
// the markdown the run covers (SKILL.md and its phases); with a plain
// command, each prompt at most its phase's bytes + SKILL.md's + 4 KB.
func TestPromptEconomy(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the largest corpus skill twice")
	}
	var s *plan.Skill
	var size int
	for _, e := range corpus.Skills(t) {
		if e.Mode != "sequential" {
			continue
		}
		sk, err := parse.Dir(e.Path())
		if err != nil {
			t.Fatal(err)
		}
		if n := markdownBytes(t, sk); n > size {
			s, size = sk, n
		}
	}
	skillMD := fileSize(t, filepath.Join(s.Dir, s.Entry))
	phaseBytes := map[string]int{}
	for _, ph := range s.Phases {
		phaseBytes[ph.ID()] = fileSize(t, filepath.Join(s.Dir, ph.Doc.File))
	}

	run := func(command string, env ...string) []sent {
		bin := t.TempDir()
		if err := testagent.ClaudeOnPath(bin); err != nil {
			t.Fatal(err)
		}
		t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
		log := filepath.Join(t.TempDir(), "prompts.log")
		t.Setenv(testagent.LogEnv, log)
		base := t.TempDir()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if _, err := lifecycle.Run(ctx, lifecycle.Options{
			Skill: s, Store: fsstore.New(fsstore.Options{Base: base, NoSync: true}), ProjectDir: base, Yes: true, Answers: script.Yes{},
			Agent: &agent.Agent{Command: command, Timeout: time.Minute}, Backoff: time.Millisecond,
		}); err != nil {
			t.Fatalf("%s: %v", command, err)
		}
		return readSent(t, log)
	}

	total := 0
	calls := run("claude")
	for _, c := range calls {
		total += c.bytes
	}
	ratio := float64(total) / float64(size)
	t.Logf("%s: %d calls sent %d bytes through the claude adapter for %d bytes of markdown (%.2fx)", s.Name, len(calls), total, size, ratio)
	if ratio > 1.5 {
		t.Errorf("%.2fx the markdown sent over the run, want at most 1.5x", ratio)
	}

	worst := 0.0
	for _, c := range run(testagent.Command()) {
		limit := phaseBytes[c.phase] + skillMD + 4096
		if c.bytes > limit {
			t.Errorf("a %s prompt of phase %q is %d bytes, over %d (phase + SKILL.md + 4 KB)", c.request, c.phase, c.bytes, limit)
		}
		worst = max(worst, float64(c.bytes)/float64(limit))
	}
	t.Logf("plain command: the largest prompt is %.0f%% of its limit", 100*worst)
}

type sent struct {
	request, phase string
	bytes          int
}

func readSent(t *testing.T, log string) []sent {
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	var out []sent
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.Split(l, "\t")
		n, _ := strconv.Atoi(f[1])
		out = append(out, sent{request: f[0], bytes: n, phase: f[2]})
	}
	if len(out) == 0 {
		t.Fatal("the agent was never called")
	}
	return out
}

// markdownBytes is the size of what a sequential run covers: the entry
// document and the phase files.
func markdownBytes(t *testing.T, s *plan.Skill) int {
	n := fileSize(t, filepath.Join(s.Dir, s.Entry))
	for _, ph := range s.Phases {
		n += fileSize(t, filepath.Join(s.Dir, ph.Doc.File))
	}
	return n
}

func fileSize(t *testing.T, path string) int {
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return int(st.Size())
}
