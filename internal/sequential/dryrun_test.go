package sequential_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	lifecycle "github.com/skillkit/skillkit/internal/run"

	"github.com/skillkit/skillkit/plan"
)

// snapshot lists every file and folder under root with its mode, size,
// modification time and content hash.
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		sum := ""
		if d.Type().IsRegular() {
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			h := sha256.Sum256(data)
			sum = hex.EncodeToString(h[:])
		}
		out[path] = fmt.Sprintf("%v %d %v %s", info.Mode(), info.Size(), info.ModTime().UnixNano(), sum)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestDryRunWritesNothing(t *testing.T) {
	s := newSkill(t,
		phase("01-x.md", bashStep("count", "ls | wc -l > count.txt"), with(bashStep("maybe", "true"), condition("inputs.go"))),
		phase("02-y.md", proseStep("summarize", "Summarize count.txt.")))
	s.Phases[0].Outputs = []*plan.Output{{File: "count.txt", Format: "text"}}
	o := opts(t, s)
	root := t.TempDir()
	o.Store = store(root)
	o.Inputs = map[string]string{"go": "yes"}
	// A first, interrupted run: the dry run of its resume reads it.
	res, err := lifecycle.Run(context.Background(), o)
	if res == nil || res.State != "interrupted" {
		t.Fatalf("first run: %v", err)
	}

	before := snapshot(t, root)
	for _, resume := range []string{"", res.ID} {
		o.Resume = resume
		d, err := lifecycle.Plan(o)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		if err := d.Write(&b, false); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		for _, want := range []string{
			"step 01-x#1 count: bash", "condition: inputs.go", "verifies output count.txt (text)",
			"step 02-y#1 summarize: agent", "needs an agent (--agent CMD)", "| Summarize count.txt.",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("dry run (resume %q) lacks %q:\n%s", resume, want, out)
			}
		}
		if done := strings.Contains(out, "step 01-x#1 count: bash [done]"); done != (resume != "") {
			t.Errorf("dry run (resume %q) marks done steps wrongly:\n%s", resume, out)
		}
	}
	after := snapshot(t, root)
	if len(before) != len(after) {
		t.Fatalf("dry run changed the tree: %d entries before, %d after", len(before), len(after))
	}
	for path, v := range before {
		if after[path] != v {
			t.Errorf("dry run changed %s", path)
		}
	}
}
