package orchestrator_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/skillkit/skillkit/internal/faultfs"
	lifecycle "github.com/skillkit/skillkit/internal/run"
	"github.com/skillkit/skillkit/internal/runstore/fsstore"
	"github.com/skillkit/skillkit/internal/script"
	"github.com/skillkit/skillkit/plan"
)

// An action's completion is synced behind the next iteration's work
// (Run.CommitPipelined), and nothing with an effect outside the record
// happens before that sync ended: each action asks a question (an effect,
// through the script host's barrier), and at every question the log's
// durable prefix (what its syncs covered) holds every completion written.
func TestEffectWaitsForCompletionSync(t *testing.T) {
	const n = 30
	o := noopOptions(t, n, true)
	act := filepath.Join(o.Skill.Dir, "phases", "actions", "action-noop.md")
	if err := os.WriteFile(act, []byte("# Action: No-op\n\n## Execution\n\n```javascript\n"+
		"async function execute(state) {\n  await AskUserQuestion({questions: [{question: \"Go on?\", header: \"Go\", options: [{label: \"yes\"}]}]});\n  return {};\n}\n```\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o.Skill = load(t, o.Skill.Dir)
	files := faultfs.Wrap(nil)
	base := t.TempDir()
	o.Store = fsstore.New(fsstore.Options{Base: base, Files: files})
	a := &syncWatch{t: t, base: base, files: files}
	o.Answers = a
	res, err := lifecycle.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(completed(state(t, res.Dir))); got != n {
		t.Fatalf("%d actions ran, want %d", got, n)
	}
	if a.asked != n {
		t.Fatalf("%d questions asked, want %d", a.asked, n)
	}
	if a.ahead > 0 {
		t.Errorf("%d of %d questions were asked while an action's completion was not durable", a.ahead, n)
	}
	if a.seen < n-1 {
		t.Errorf("the questions saw %d completions written, want at least %d", a.seen, n-1)
	}
}

// syncWatch answers yes, and at each question compares the end of the
// last completion line in the run's log with the log's durable prefix.
type syncWatch struct {
	t     *testing.T
	base  string
	files *faultfs.Files

	mu                 sync.Mutex
	asked, ahead, seen int
}

func (w *syncWatch) Ask(_ context.Context, qs []script.Question) (map[string]string, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.asked++
	logs, _ := filepath.Glob(filepath.Join(w.base, ".skillkit", "runs", "*", "*", fsstore.EventsFile))
	if len(logs) != 1 {
		w.t.Errorf("%d run logs under %s, want 1", len(logs), w.base)
		return nil, nil
	}
	data, err := os.ReadFile(logs[0])
	if err != nil {
		w.t.Error(err)
		return nil, nil
	}
	var end, off int64
	completions := 0
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		off += int64(len(sc.Bytes())) + 1
		var e struct{ Action, To string }
		if json.Unmarshal(sc.Bytes(), &e) == nil && e.Action != "" && e.To == "completed" {
			end = off
			completions++
		}
	}
	w.seen = max(w.seen, completions)
	if d := w.files.Durable(fsstore.EventsFile); d < end {
		w.ahead++
		w.t.Logf("question %d: the log is durable to byte %d, its last completion ends at %d", w.asked, d, end)
	}
	out := map[string]string{}
	for _, q := range qs {
		out[strings.TrimSpace(q.Header)] = "yes"
	}
	return out, nil
}

func (w *syncWatch) Confirm(context.Context, *plan.Confirm) (plan.ConfirmAnswer, error) {
	return plan.ConfirmYes, nil
}
