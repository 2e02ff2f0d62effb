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
	"time"

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
// A power cut at a question keeps that prefix: the run's folder as it
// would be then (its log cut to the prefix, its claim gone with the
// process) resumes and runs again only the action in flight.
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
	a := &syncWatch{t: t, base: base, files: files, cutAt: n / 2, image: filepath.Join(t.TempDir(), "image")}
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

	again := &syncWatch{t: t, base: filepath.Dir(a.image), files: faultfs.Wrap(nil)}
	o.Answers, o.Resume = again, a.image
	// A run found running without a claim waits two heartbeats for a
	// holder whose claim was deleted.
	o.Claim.Heartbeat = 10 * time.Millisecond
	o.Store = fsstore.New(fsstore.Options{Base: t.TempDir()})
	res, err = lifecycle.Run(context.Background(), o)
	if err != nil {
		t.Fatalf("resuming after the power cut: %v", err)
	}
	// The work dir the record names is the first run's, which the
	// resume works in: the record (the image) says what completed.
	if got := progress(t, res.Dir).StepsDone(); got != n {
		t.Fatalf("%d actions completed after the resume, want %d", got, n)
	}
	// The action in flight at the cut asks again; those before it were
	// durable before its question, and do not.
	if want := n - a.cutAt + 1; again.asked != want {
		t.Errorf("the resume asked %d questions, want %d (the cut was at question %d of %d)", again.asked, want, a.cutAt, n)
	}
}

// syncWatch answers yes, and at each question compares the end of the
// last completion line in the run's log with the log's durable prefix.
type syncWatch struct {
	t     *testing.T
	base  string
	files *faultfs.Files

	// cutAt is the question at which image gets the run's folder as a
	// power cut would leave it; 0 takes none.
	cutAt int
	image string

	mu                 sync.Mutex
	asked, ahead, seen int
}

func (w *syncWatch) Ask(_ context.Context, qs []script.Question) (map[string]string, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.asked++
	logs, _ := filepath.Glob(filepath.Join(w.base, ".skillkit", "runs", "*", "*", fsstore.EventsFile))
	if w.cutAt == 0 {
		// A resumed run's log is its image's.
		logs, _ = filepath.Glob(filepath.Join(w.base, "*", fsstore.EventsFile))
	}
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
	if d := w.files.Durable(fsstore.EventsFile); d < end && w.cutAt > 0 {
		w.ahead++
		w.t.Logf("question %d: the log is durable to byte %d, its last completion ends at %d", w.asked, d, end)
	}
	if w.asked == w.cutAt {
		w.powerCut(filepath.Dir(logs[0]))
	}
	out := map[string]string{}
	for _, q := range qs {
		out[strings.TrimSpace(q.Header)] = "yes"
	}
	return out, nil
}

// powerCut copies the run's folder dir to w.image as a power cut now
// would leave it: the log as far as its syncs made it durable, no claim.
func (w *syncWatch) powerCut(dir string) {
	err := os.CopyFS(w.image, os.DirFS(dir))
	if err == nil {
		err = os.Truncate(filepath.Join(w.image, fsstore.EventsFile), w.files.Durable(fsstore.EventsFile))
	}
	for _, f := range []string{fsstore.ClaimFile, fsstore.LockFile, fsstore.GroupsFile} {
		if rerr := os.Remove(filepath.Join(w.image, f)); rerr != nil && !os.IsNotExist(rerr) {
			err = rerr
		}
	}
	if err != nil {
		w.t.Errorf("cutting the power: %v", err)
	}
}

func (w *syncWatch) Confirm(context.Context, *plan.Confirm) (plan.ConfirmAnswer, error) {
	return plan.ConfirmYes, nil
}
