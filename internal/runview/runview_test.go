package runview

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/skillkit/skillkit/internal/runstore"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// readEvents reads a run's events.jsonl, as skillkit wrote it in a real
// run of a bundled example.
func readEvents(t *testing.T, name string) []runstore.Event {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var events []runstore.Event
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e runstore.Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatal(err)
		}
		events = append(events, e)
	}
	return events
}

func unit(t *testing.T, r *Run, id string) *Unit {
	t.Helper()
	for _, u := range r.Units {
		if u.ID == id {
			return u
		}
	}
	t.Fatalf("no unit %s", id)
	return nil
}

// TestInterruptedTryIsNoRepeat: examples/agent-driven run without an
// agent stops in its first action, then is resumed with one. The action
// ran once to completion and was interrupted once; the 2.6 s the run
// waited for the resume is idle, not work.
func TestInterruptedTryIsNoRepeat(t *testing.T) {
	r := Read(readEvents(t, "interrupted-resumed"))
	u := unit(t, r, "action-outline")
	if u.State != Completed || u.Tries != 1 || u.Interrupted != 1 {
		t.Errorf("action-outline: %s, %d tries, %d interrupted; want completed, 1, 1", u.State, u.Tries, u.Interrupted)
	}
	if d := unit(t, r, "action-draft"); d.Tries != 1 || d.Interrupted != 0 {
		t.Errorf("action-draft: %d tries, %d interrupted; want 1, 0", d.Tries, d.Interrupted)
	}
	if r.Idle < 2*r.Work {
		t.Errorf("worked %s, idle %s: the wait for the resume is not idle", r.Work, r.Idle)
	}
}

// TestFailedRetried: a step that fails, then fails again on --retry, has
// two tries, none interrupted, and keeps the failure's words over the
// policy's ("on error: abort").
func TestFailedRetried(t *testing.T) {
	r := Read(readEvents(t, "failed-retried"))
	u := unit(t, r, "01-fail#1")
	if u.State != Failed || u.Tries != 2 || u.Interrupted != 0 {
		t.Errorf("01-fail#1: %s, %d tries, %d interrupted; want failed, 2, 0", u.State, u.Tries, u.Interrupted)
	}
	if !strings.Contains(u.Error, "exit status 3") {
		t.Errorf("01-fail#1 error %q does not say why", u.Error)
	}
}

// TestWriteSteps holds the text of status to golden files, and every row
// to fewer than 80 columns.
func TestWriteSteps(t *testing.T) {
	for _, name := range []string{"sequential", "interrupted-resumed", "failed-retried"} {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteSteps(&b, Read(readEvents(t, name))); err != nil {
				t.Fatal(err)
			}
			for _, l := range strings.Split(b.String(), "\n") {
				if n := utf8.RuneCountInString(l); n >= 80 {
					t.Errorf("%d columns: %s", n, l)
				}
			}
			golden := filepath.Join("testdata", name+".golden")
			if *update {
				if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if b.String() != string(want) {
				t.Errorf("got\n%s\nwant\n%s(go test ./internal/runview -update)", b.String(), want)
			}
		})
	}
}

// An agent call's mark (runstore.AgentCallMark), written as the call
// begins, is no transition: a run read with one after every line, as a
// run killed in an agent call ends, reads as it did without them, and
// its state is the last transition's.
func TestAgentCallMarksChangeNothing(t *testing.T) {
	for _, name := range []string{"failed-retried", "interrupted-resumed", "sequential"} {
		events := readEvents(t, name)
		var marked []runstore.Event
		for i, e := range events {
			marked = append(marked, e, runstore.Event{Time: e.Time, From: runstore.State(runstore.RunRunning), To: runstore.AgentCallMark,
				Agent: &runstore.Conversation{Calls: i + 1}})
		}
		var want, got bytes.Buffer
		plain, withMarks := Read(events), Read(marked)
		if err := WriteSteps(&want, plain); err != nil {
			t.Fatal(err)
		}
		if err := WriteSteps(&got, withMarks); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() || withMarks.State != plain.State || withMarks.Idle != plain.Idle || withMarks.Work != plain.Work {
			t.Errorf("%s with agent call marks reads as %s (idle %v, work %v):\n%s\nwithout: %s (idle %v, work %v):\n%s",
				name, withMarks.State, withMarks.Idle, withMarks.Work, &got, plain.State, plain.Idle, plain.Work, &want)
		}
	}
}
