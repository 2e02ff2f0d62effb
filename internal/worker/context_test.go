package worker_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/skillkit/skillkit/internal/agent"
	"github.com/skillkit/skillkit/internal/runstore"
	"github.com/skillkit/skillkit/internal/runstore/sqlstore"
	"github.com/skillkit/skillkit/internal/runstore/sqlstore/sqltest"
	"github.com/skillkit/skillkit/internal/testagent"
	"github.com/skillkit/skillkit/internal/testfs"
	"github.com/skillkit/skillkit/internal/worker"
)

// A task whose run's conversation passes context_exit, as Claude Code
// reports it (the stand-in: 70% after call 1, 80% after call 2), exits
// with the hand-off: its message names the run, where it stands and the
// handoff.md the agent wrote when asked.
func TestContextExhaustionExits(t *testing.T) {
	bin := t.TempDir()
	if err := testagent.ClaudeOnPath(bin); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	sizes := filepath.Join(t.TempDir(), "context")
	w := testagent.ClaudeWindow
	testfs.WriteFile(t, sizes, strconv.Itoa(w*70/100)+"\n"+strconv.Itoa(w*80/100)+"\n")
	t.Setenv(testagent.ClaudeContextEnv, sizes)

	skill := filepath.Join(t.TempDir(), "long")
	testfs.WriteFile(t, filepath.Join(skill, "SKILL.md"), "---\nname: long\ndescription: Three agent steps.\n---\n# Long\n")
	testfs.WriteFile(t, filepath.Join(skill, "phases", "01-work.md"), "# Phase 1: Work\n\n## Execution Steps\n\n"+
		"### Step 1: One\n\nDo part one.\n\n### Step 2: Two\n\nDo part two.\n\n### Step 3: Three\n\nDo part three.\n")

	d, err := sqlstore.Open(context.Background(), sqltest.SQLite(t))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	k, err := d.AddTask(context.Background(), skill, nil, nil, sqlstore.ReviewNone)
	if err != nil {
		t.Fatal(err)
	}
	o := options(d, "w1")
	o.UntilIdle, o.WorkBase = true, filepath.Join(t.TempDir(), "work")
	o.Run.Agent = &agent.Agent{Command: "claude", Timeout: time.Minute}
	if err := worker.Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	got, err := d.Task(context.Background(), k.ID)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := d.Store(o.WorkBase).Status(got.RunID)
	if err != nil {
		t.Fatal(err)
	}
	handoff := filepath.Join(sum.WorkDir, agent.HandoffFile)
	want := "hand-off: run " + got.RunID + ", 2/3 steps done"
	if got.State != sqlstore.Exited || !strings.HasPrefix(got.Message, want) || !strings.Contains(got.Message, "the agent's hand-off is "+handoff) {
		t.Errorf("task %s: %q; want exited, %q… naming %s", got.State, got.Message, want, handoff)
	}
	t.Logf("task %s: %s", got.State, got.Message)
	if sum.State != runstore.RunInterrupted {
		t.Errorf("the run is %s, want interrupted (resumable)", sum.State)
	}
}
