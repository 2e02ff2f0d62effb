package orchestrator_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	lifecycle "github.com/skillkit/skillkit/internal/run"
	"github.com/skillkit/skillkit/internal/runstore/fsstore"

	"github.com/skillkit/skillkit/internal/crashtest"
	"github.com/skillkit/skillkit/internal/runstore"
	"github.com/skillkit/skillkit/parse"
)

// The crash test runs the loop in a child process (this test binary,
// re-executed) so that it can be killed for real.
const helperEnv = "SKILLKIT_ORCHESTRATOR_HELPER"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) != "" {
		os.Exit(helperMain())
	}
	os.Exit(m.Run())
}

// crashItems is how many items the crash skill processes, one action each.
const crashItems = 12

// crashSkill is an autonomous skill whose process action appends its item
// to actions.log (an effect outside state.json), waits a little, and
// counts the item in the state.
func crashSkill(t testing.TB) string {
	items := make([]string, crashItems)
	for i := range items {
		items[i] = fmt.Sprintf("%q", fmt.Sprintf("item-%02d", i+1))
	}
	s := skillFiles{
		decision: `function selectNextAction(state) {
  if (state.status === 'pending') return 'action-init';
  if (state.pending_items.length > 0) return 'action-process';
  if (state.status === 'running') return 'action-complete';
  return null;
}`,
		acts: map[string]string{
			"action-init": "return { status: 'running', pending_items: [" + strings.Join(items, ", ") + "] };",
			"action-process": `const [item, ...rest] = state.pending_items;
Bash('echo ' + item + ' >> actions.log; sleep 0.01');
return { pending_items: rest, count: state.count + 1, done: [...state.done, item] };`,
			"action-complete": "return { status: 'completed' };",
		},
		fields:  "  pending_items: string[];\n  count: number;\n  done: string[];",
		initial: `{"status": "pending", "current_action": null, "completed_actions": [], "errors": [], "error_count": 0, "pending_items": [], "count": 0, "done": []}`,
	}.write(t)
	return s.Dir
}

// helperMain runs or resumes the crash skill as the environment says and
// exits as the CLI would.
func helperMain() int {
	s, err := parse.Dir(os.Getenv("HELPER_SKILL"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	store, err := crashtest.StoreFromEnv()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	_, err = lifecycle.Run(context.Background(), lifecycle.Options{
		Skill: s, Store: store, WorkDir: os.Getenv("HELPER_WORKDIR"), Resume: os.Getenv("HELPER_RESUME"),
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

func helper(skillDir string, env ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"=1", "HELPER_SKILL="+skillDir)
	cmd.Env = append(cmd.Env, env...)
	return cmd
}

// TestCrashResume kills an autonomous run with SIGKILL at 20 random
// moments, then resumes it to the end. No completed action may be lost
// or applied twice (the state counts every item once, in order), and only
// the action in flight at the kill may run again (its effect, a line in
// actions.log, may be there twice). SKILLKIT_CRASH_SEED replays a seed. It
// runs on every backend a killed process leaves its record in.
func TestCrashResume(t *testing.T) {
	if testing.Short() {
		t.Skip("kills 20 child processes")
	}
	crashtest.Each(t, crashResume)
}

func crashResume(t *testing.T, b crashtest.Backend) {
	k := crashtest.NewKiller(t)
	skillDir := crashSkill(t)
	midRun, reran := 0, 0
	for i := range 20 {
		dir := filepath.Join(t.TempDir(), "run")
		after := k.Kill(t, helper(skillDir, append(b.Env, "HELPER_WORKDIR="+dir)...), 20*time.Millisecond, 280*time.Millisecond)
		what := fmt.Sprintf("kill %d after %v", i, after)

		var doneBefore []string
		if sum, err := b.Store.Status(dir); err == nil {
			p := sum.Progress
			data, err := os.ReadFile(filepath.Join(dir, fsstore.StateFile))
			var st map[string]any
			if err != nil || json.Unmarshal(data, &st) != nil {
				t.Fatalf("%s: state.json is not valid JSON (%v): %q", what, err, data)
			}
			doneBefore = strs(st["done"])
			if !p.RunState.Terminal() {
				midRun++
			}
		}
		crashtest.Finish(t, what, dir, b.Store,
			func() *exec.Cmd { return helper(skillDir, append(b.Env, "HELPER_RESUME="+dir)...) },
			func() *exec.Cmd { return helper(skillDir, append(b.Env, "HELPER_WORKDIR="+dir)...) })
		reran += checkCrashRun(t, what, dir, b.Store, doneBefore)
	}
	t.Logf("%d of 20 kills landed in the middle of a run; %d in-flight actions ran again on resume", midRun, reran)
}

// checkCrashRun checks a finished crash run and returns how many actions
// ran twice (0 or 1).
func checkCrashRun(t *testing.T, what, dir string, s runstore.Store, doneBefore []string) int {
	t.Helper()
	if sum, err := s.Status(dir); err != nil || sum.State != runstore.RunCompleted {
		t.Fatalf("%s: run ended %v, %v", what, sum, err)
	}
	st := state(t, dir)
	want := make([]string, crashItems)
	for i := range want {
		want[i] = fmt.Sprintf("item-%02d", i+1)
	}
	if got := strs(st["done"]); !slices.Equal(got, want) || st["count"] != float64(crashItems) {
		t.Fatalf("%s: state counted %v items: %v, want each once in order", what, st["count"], got)
	}
	acts := completed(st)
	if len(acts) != crashItems+2 || acts[0] != "action-init" || acts[len(acts)-1] != "action-complete" {
		t.Fatalf("%s: completed_actions = %v", what, acts)
	}
	return crashtest.CountRuns(t, what, filepath.Join(dir, "actions.log"), want,
		func(item string) bool { return slices.Contains(doneBefore, item) })
}

func strs(v any) []string {
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
