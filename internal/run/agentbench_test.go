package run_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/skillkit/skillkit/internal/agent"
	"github.com/skillkit/skillkit/internal/faultfs"
	"github.com/skillkit/skillkit/internal/run"
	"github.com/skillkit/skillkit/internal/runstore/fsstore"
	"github.com/skillkit/skillkit/internal/testfs"
	"github.com/skillkit/skillkit/parse"
)

// BenchmarkAgentStep is a prose step handed to a plain agent command that
// answers at once, durable as runs are: one op is one step of a single
// run of b.N of them, claim to completion. Its cost is the command's
// start (a shell) and the step's record, the call's record as it begins
// (one synced line) included; syncs/op counts the syncs of events.jsonl.
func BenchmarkAgentStep(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "steps")
	var phase strings.Builder
	phase.WriteString("# Phase 1: Work\n\n## Execution Steps\n\n")
	for i := 1; i <= b.N; i++ {
		phase.WriteString("### Step " + strconv.Itoa(i) + ": Think\n\nThink.\n\n")
	}
	testfs.WriteTree(b, dir, map[string]string{
		"SKILL.md":       "---\nname: steps\ndescription: Agent steps.\n---\n# Steps\n",
		"phases/01-a.md": phase.String(),
	})
	s, err := parse.Dir(dir)
	if err != nil {
		b.Fatal(err)
	}
	work := filepath.Join(b.TempDir(), "run")
	files := faultfs.Wrap(nil)
	o := run.Options{Skill: s, Store: fsstore.New(fsstore.Options{Files: files}), WorkDir: work, ProjectDir: work,
		Agent: &agent.Agent{Command: "cat >/dev/null; echo ok"}}
	if err := os.MkdirAll(filepath.Dir(work), 0o755); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	if _, err := run.Run(context.Background(), o); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	b.ReportMetric(float64(files.Syncs(fsstore.EventsFile))/float64(b.N), "syncs/op")
}
