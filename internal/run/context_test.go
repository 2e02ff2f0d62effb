package run_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/skillkit/skillkit/internal/agent"
	"github.com/skillkit/skillkit/internal/run"
	"github.com/skillkit/skillkit/internal/runstore"
	"github.com/skillkit/skillkit/internal/runstore/fsstore"
	"github.com/skillkit/skillkit/internal/testagent"
	"github.com/skillkit/skillkit/internal/testfs"
	"github.com/skillkit/skillkit/parse"
)

// contextSkill writes a skill of steps agent steps, and the skillkit.yaml
// config when it is not empty.
func contextSkill(t *testing.T, steps int, config string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "long")
	testfs.WriteFile(t, filepath.Join(dir, "SKILL.md"), "---\nname: long\ndescription: Many agent steps.\n---\n# Long\n\nWork through the steps.\n")
	body := "# Phase 1: Work\n\n## Execution Steps\n\n"
	for i := 1; i <= steps; i++ {
		body += fmt.Sprintf("### Step %d: Work\n\nDo part %d of the work.\n\n", i, i)
	}
	testfs.WriteFile(t, filepath.Join(dir, "phases", "01-work.md"), body)
	if config != "" {
		testfs.WriteFile(t, filepath.Join(dir, "skillkit.yaml"), config)
	}
	return dir
}

// claudeContext puts the claude stand-in on PATH, reporting the context
// sizes of sizes (one per call, see testagent.ClaudeContextEnv); it
// returns the file of sizes and the log of prompts.
func claudeContext(t *testing.T, sizes string) (file, log string) {
	t.Helper()
	bin := t.TempDir()
	if err := testagent.ClaudeOnPath(bin); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	file = filepath.Join(t.TempDir(), "context")
	testfs.WriteFile(t, file, sizes)
	t.Setenv(testagent.ClaudeContextEnv, file)
	log = filepath.Join(t.TempDir(), "prompts.log")
	t.Setenv(testagent.LogEnv, log)
	return file, log
}

// handoffAsked is, per call of the log, whether its prompt asked for the
// hand-off.
func handoffAsked(t *testing.T, log string) []bool {
	t.Helper()
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	var out []bool
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.Split(l, "\t")
		out = append(out, f[len(f)-1] == "true")
	}
	return out
}

// The musician specification's context exhaustion, with Claude Code's
// usage: after a call at 70% of the window the next prompt asks for
// handoff.md; after a call at 80% the run stops interrupted, resumable,
// naming the hand-off the agent wrote; a resume whose calls report less
// goes on to the end.
func TestContextExhaustion(t *testing.T) {
	w := testagent.ClaudeWindow
	sizes, log := claudeContext(t, strconv.Itoa(w/10)+"\n"+strconv.Itoa(w*70/100)+"\n"+strconv.Itoa(w*80/100)+"\n")
	s, err := parse.Dir(contextSkill(t, 5, ""))
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	o := run.Options{Skill: s, Store: fsstore.New(fsstore.Options{Base: t.TempDir(), NoSync: true}), Agent: &agent.Agent{Command: "claude", Timeout: time.Minute}, Out: &out}
	res, err := run.Run(context.Background(), o)
	var cerr *agent.ContextError
	if res == nil || res.State != runstore.RunInterrupted || !errors.As(err, &cerr) {
		t.Fatalf("%v, %v; want the run interrupted by its context", res, err)
	}
	handoff := filepath.Join(res.WorkDir, agent.HandoffFile)
	if !strings.Contains(err.Error(), "the agent's hand-off is "+handoff) || !strings.Contains(err.Error(), "800000 of 1000000 tokens (80%, context_exit 75%)") {
		t.Errorf("error = %v; want the context use and the hand-off's path", err)
	}
	if got := handoffAsked(t, log); len(got) != 3 || got[0] || got[1] || !got[2] {
		t.Errorf("hand-off asked per call = %v, want [false false true]: asked once a call reported 70%%", got)
	}
	if want := "agent: the conversation is at 70% of its context window: call 3 asked for handoff.md"; strings.Count(out.String(), "asked for") != 1 || !strings.Contains(out.String(), want) {
		t.Errorf("the run said:\n%s\nwant once: %s", out.String(), want)
	}
	if data, err := os.ReadFile(handoff); err != nil || !strings.Contains(string(data), "calls up to 3") {
		t.Errorf("handoff.md = %q, %v; want the stand-in's of call 3", data, err)
	}
	testfs.WriteFile(t, sizes, strconv.Itoa(w/5)+"\n")
	o.Resume = res.ID
	if res, err = run.Run(context.Background(), o); err != nil || res.State != runstore.RunCompleted {
		t.Fatalf("resume: %v, %v; want it completed", res, err)
	}
	if got := handoffAsked(t, log); len(got) != 5 || got[3] || got[4] {
		t.Errorf("hand-off asked per call = %v, want 5 calls, the resume's not asked", got)
	}
}

// The thresholds are the skill's skillkit.yaml's: with context_handoff 50
// a call at 55% brings the request; a bad value stops the run before it
// starts, at its line.
func TestContextThresholdsConfig(t *testing.T) {
	w := testagent.ClaudeWindow
	_, log := claudeContext(t, strconv.Itoa(w*55/100)+"\n")
	s, err := parse.Dir(contextSkill(t, 2, "context_handoff: 50\ncontext_exit: 90\n"))
	if err != nil {
		t.Fatal(err)
	}
	o := run.Options{Skill: s, Store: fsstore.New(fsstore.Options{Base: t.TempDir(), NoSync: true}), Agent: &agent.Agent{Command: "claude", Timeout: time.Minute}}
	if _, err := run.Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if got := handoffAsked(t, log); len(got) != 2 || got[0] || !got[1] {
		t.Errorf("hand-off asked per call = %v, want [false true]", got)
	}

	for config, want := range map[string]string{
		"agent_timeout: 1m\ncontext_exit: 175\n":     "skillkit.yaml:2: context_exit: want a percentage from 1 to 100, got \"175\"",
		"context_handoff: [1]\n":                     "skillkit.yaml:1: context_handoff: want a percentage",
		"context_handoff: 80\n":                      "skillkit.yaml:1: context_handoff (80) is above context_exit (75)",
		"context_exit: 60\n# the default hand-off\n": "skillkit.yaml:1: context_handoff (65) is above context_exit (60)",
	} {
		s, err := parse.Dir(contextSkill(t, 1, config))
		if err != nil {
			t.Fatal(err)
		}
		o.Skill = s
		if _, err := run.Run(context.Background(), o); !errors.Is(err, run.ErrInvalid) || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v; want ErrInvalid with %q", config, err, want)
		}
	}
}
