package sequential_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	lifecycle "github.com/skillkit/skillkit/internal/run"
	"github.com/skillkit/skillkit/internal/runstore/fsstore"

	"github.com/skillkit/skillkit/internal/corpus"
	"github.com/skillkit/skillkit/internal/testfs"
	"github.com/skillkit/skillkit/parse"
	"github.com/skillkit/skillkit/plan"
)

// The example skill of the repository, parsed by the real parser, runs to
// completion without an agent, and a resume of it is refused as final.
func TestExampleSequential(t *testing.T) {
	s, err := parse.Dir("../../examples/sequential")
	if err != nil {
		t.Fatal(err)
	}
	docs := t.TempDir()
	testfs.WriteFile(t, filepath.Join(docs, "a.md"), "one two three\n")
	testfs.WriteFile(t, filepath.Join(docs, "sub", "b.md"), "four five\n")
	o := opts(t, s)
	o.Inputs = map[string]string{"dir": docs}
	var out strings.Builder
	o.Out = &out
	res, err := lifecycle.Run(context.Background(), o)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	var summary struct{ Total int }
	if err := json.Unmarshal([]byte(testfs.ReadFile(t, filepath.Join(res.Dir, "summary.json"))), &summary); err != nil || summary.Total != 5 {
		t.Fatalf("summary.json: total %d, %v", summary.Total, err)
	}
	if report := testfs.ReadFile(t, filepath.Join(res.Dir, "report.md")); !strings.Contains(report, "Total: 5 words in 2 files.") {
		t.Errorf("report.md:\n%s", report)
	}
	p := progress(t, res.Dir)
	if p.TotalSteps != 4 || p.CompletedSteps.Len() != 4 || len(p.CompletedPhases) != 3 || p.SkillHash != s.Hash {
		t.Errorf("progress: %+v", p)
	}
	for _, want := range []string{"phase 1/3 01-collect: Collect", "step 02-count#2 Summarize as JSON: completed", "run " + res.ID + ": completed"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("progress lines lack %q:\n%s", want, out.String())
		}
	}
	o.Resume = res.ID
	if _, err := lifecycle.Run(context.Background(), o); err == nil {
		t.Error("a completed run was resumed")
	}
}

// Every sequential skill of the corpus plans without error: the dry run
// reads real phase files of every shape.
func TestCorpusDryRun(t *testing.T) {
	n := 0
	for _, e := range corpus.Skills(t) {
		if e.Mode != string(plan.ModeSequential) {
			continue
		}
		s, err := parse.Dir(e.Path())
		if err != nil {
			t.Errorf("%s: %v", e.Dir, err)
			continue
		}
		d, err := lifecycle.Plan(lifecycle.Options{Skill: s, Store: store(t.TempDir())})
		if err != nil {
			t.Errorf("%s: %v", e.Dir, err)
			continue
		}
		var b strings.Builder
		if err := d.Write(&b, false); err != nil {
			t.Fatal(err)
		}
		if len(s.Phases) > 0 && !strings.Contains(b.String(), "phase 1/") {
			t.Errorf("%s: dry run names no phase:\n%s", e.Dir, b.String())
		}
		n++
	}
	t.Logf("planned %d sequential corpus skills", n)
	if _, err := os.Stat(fsstore.RunsRoot(".")); err == nil {
		t.Error("the dry runs made a runs folder")
	}
}
