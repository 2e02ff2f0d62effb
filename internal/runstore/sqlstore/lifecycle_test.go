package sqlstore_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillkit/skillkit/internal/run"
	"github.com/skillkit/skillkit/internal/runstore"
	"github.com/skillkit/skillkit/internal/runstore/fsstore"
	"github.com/skillkit/skillkit/internal/runstore/sqlstore"
	"github.com/skillkit/skillkit/internal/runstore/sqlstore/sqltest"
	"github.com/skillkit/skillkit/internal/testfs"
	"github.com/skillkit/skillkit/parse"
	"github.com/skillkit/skillkit/plan"
)

// stores are the stores the same lifecycle tests run on: the filesystem,
// SQLite and PostgreSQL.
var stores = []struct {
	name string
	open func(t *testing.T) runstore.Store
}{
	{"fs", func(t *testing.T) runstore.Store {
		return fsstore.New(fsstore.Options{Base: t.TempDir(), NoSync: true})
	}},
	{"sqlite", func(t *testing.T) runstore.Store { return openStore(t, sqltest.SQLite(t)) }},
	{"postgres", func(t *testing.T) runstore.Store { return openStore(t, sqltest.Postgres(t)) }},
}

func openStore(t *testing.T, url string) runstore.Store {
	t.Helper()
	db, err := sqlstore.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db.Store(filepath.Join(t.TempDir(), "work"))
}

func load(t *testing.T, dir string) *plan.Skill {
	t.Helper()
	s, err := parse.Dir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The example skills run to the end on every store, and what a store
// reads back of the run is what the run did.
func TestLifecycleExamples(t *testing.T) {
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			for _, ex := range []struct {
				dir, file string
				inputs    map[string]string
			}{
				{"../../../examples/sequential", "report.md", nil},
				{"../../../examples/autonomous", "index.md", map[string]string{"items": "red,green"}},
			} {
				store := st.open(t)
				res, err := run.Run(context.Background(), run.Options{Skill: load(t, ex.dir), Store: store, Inputs: ex.inputs})
				if err != nil {
					t.Fatalf("%s: %v", ex.dir, err)
				}
				if res.State != runstore.RunCompleted {
					t.Fatalf("%s: %s", ex.dir, res.State)
				}
				if _, err := os.Stat(filepath.Join(res.WorkDir, ex.file)); err != nil {
					t.Errorf("%s: %v", ex.dir, err)
				}
				sum, err := store.Status(res.ID)
				if err != nil {
					t.Fatal(err)
				}
				if sum.State != runstore.RunCompleted || sum.LastState["status"] != "completed" {
					t.Errorf("%s: status %s, state %v", ex.dir, sum.State, sum.LastState["status"])
				}
				if list, err := store.List(); err != nil || len(list) != 1 || list[0].ID != res.ID {
					t.Errorf("list: %v %v", list, err)
				}
				if _, err := store.Resume(res.ID, runstore.ResumeOptions{}); !errors.Is(err, runstore.ErrTerminal) {
					t.Errorf("resuming a completed run: %v", err)
				}
			}
		})
	}
}

// A run interrupted after its first step resumes on every store: the
// completed step never runs again, the others run once.
func TestLifecycleResume(t *testing.T) {
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			marks := t.TempDir()
			dir := filepath.Join(t.TempDir(), "three")
			testfs.WriteFile(t, filepath.Join(dir, "SKILL.md"), "---\nname: three\ndescription: Three steps.\n---\n# Three\n")
			body := "# Phase 1: Work\n\n## Execution Steps\n\n"
			for _, n := range []string{"1", "2", "3"} {
				body += "### Step " + n + ": Mark\n\n```bash\necho x >> " + filepath.Join(marks, "step"+n) + "\n```\n\n"
			}
			testfs.WriteFile(t, filepath.Join(dir, "phases", "01-work.md"), body)
			store := st.open(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			res, err := run.Run(ctx, run.Options{Skill: load(t, dir), Store: store, Observe: func(e runstore.Event) {
				if e.Record != nil {
					cancel()
				}
			}})
			var re *run.RunError
			if !errors.As(err, &re) || re.State != runstore.RunInterrupted {
				t.Fatalf("interrupted run: %v", err)
			}
			if sum, err := store.Status(res.ID); err != nil || sum.State != runstore.RunInterrupted || sum.StepsDone != 1 {
				t.Fatalf("status after the interruption: %+v %v", sum, err)
			}
			res, err = run.Run(context.Background(), run.Options{Skill: load(t, dir), Store: store, Resume: res.ID})
			if err != nil || res.State != runstore.RunCompleted {
				t.Fatalf("resume: %v", err)
			}
			for _, n := range []string{"1", "2", "3"} {
				data, err := os.ReadFile(filepath.Join(marks, "step"+n))
				if err != nil || strings.Count(string(data), "x") != 1 {
					t.Errorf("step %s ran %q times (%v)", n, data, err)
				}
			}
		})
	}
}
