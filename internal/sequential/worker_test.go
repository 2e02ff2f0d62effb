package sequential_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	lifecycle "github.com/skillkit/skillkit/internal/run"
	"github.com/skillkit/skillkit/internal/runstore"
	"github.com/skillkit/skillkit/internal/runstore/fsstore"
	"github.com/skillkit/skillkit/internal/testfs"
	"github.com/skillkit/skillkit/plan"
)

// worker.yaml as the worker lifecycle specification writes it: its
// max_retries retries a failed phase from loading, the built-in names of
// its hook lists are the built-in hooks and the other entries commands,
// and the threads carry its worker id with the phase in its own field.
func TestWorkerYAML(t *testing.T) {
	// The step fails on its first run and passes on its second.
	s := newSkill(t, phase("01-x.md", bashStep("count", `n=$(( $(cat n 2>/dev/null || echo 0) + 1 )); echo $n > n; [ $n -ge 2 ]`)))
	s.Configure(plan.Settings{Worker: []byte(`worker:
  id: counter-worker
state_machine:
  enabled: true
  max_retries: 1
  hooks:
    post_execute:
      - auto_checkpoint
      - log_metrics
      - echo post $SKILL_UNIT >> hooks.log
    on_error:
      - log_error
      - checkpoint_error_state
      - echo error $SKILL_UNIT >> hooks.log
`)})
	res, err := lifecycle.Run(context.Background(), opts(t, s))
	if err != nil || res.State != runstore.RunCompleted {
		t.Fatalf("run: %v, %v", res, err)
	}
	if got := testfs.ReadFile(t, filepath.Join(res.Dir, "hooks.log")); got != "error 01-x\npost 01-x\n" {
		t.Errorf("hooks.log = %q", got)
	}

	var path []string
	var workers []runstore.Worker
	for _, line := range strings.Split(strings.TrimSpace(testfs.ReadFile(t, filepath.Join(res.Dir, fsstore.EventsFile))), "\n") {
		var e runstore.Event
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatal(err)
		}
		if e.Phase != "" && e.Step == "" {
			path = append(path, string(e.To))
		}
		if e.Checkpoint != nil {
			workers = append(workers, e.Checkpoint.Worker)
		}
	}
	if got, want := strings.Join(path, " "), "loading planning executing error retrying loading planning executing verifying post_hook completed"; got != want {
		t.Errorf("phase states:\n%s\nwant:\n%s", got, want)
	}
	if len(workers) != 2 || workers[0].State != "error" || workers[1].State != "completed" {
		t.Fatalf("checkpoints' workers = %+v", workers)
	}
	for _, w := range workers {
		if w.ID != "counter-worker" || w.Unit != "01-x" || w.Skill != "demo" {
			t.Errorf("worker = %+v, want id counter-worker, unit 01-x", w)
		}
	}
}

// Without worker.yaml a phase is not retried and the worker is
// <skill>-worker; with state_machine.enabled false neither its retries
// nor its commands apply.
func TestWorkerYAMLDefaults(t *testing.T) {
	for name, yaml := range map[string]string{
		"no worker.yaml": "",
		"disabled":       "state_machine:\n  enabled: false\n  max_retries: 3\n  hooks:\n    on_error: [echo error >> hooks.log]\n",
	} {
		t.Run(name, func(t *testing.T) {
			s := newSkill(t, phase("01-x.md", bashStep("fail", "exit 3")))
			if yaml != "" {
				s.Configure(plan.Settings{Worker: []byte(yaml)})
			}
			res, _ := lifecycle.Run(context.Background(), opts(t, s))
			if res == nil || res.State != runstore.RunFailed {
				t.Fatalf("run: %v", res)
			}
			if _, err := os.Stat(filepath.Join(res.Dir, "hooks.log")); err == nil {
				t.Error("a disabled state machine's on_error command ran")
			}
			events := testfs.ReadFile(t, filepath.Join(res.Dir, fsstore.EventsFile))
			if strings.Contains(events, `"to":"retrying"`) {
				t.Error("the phase was retried")
			}
			if !strings.Contains(events, `"worker":{"id":"demo-worker","skill":"demo","unit":"01-x"`) {
				t.Errorf("no checkpoint of demo-worker in:\n%s", events)
			}
		})
	}
}

// When its retries are spent the worker ends as the worker lifecycle
// writes it, "max_retries → completed (with error)": its last checkpoint's
// worker is completed with the error and a completion time, while the
// phase failed and so did the run.
func TestWorkerGivesUpCompletedWithError(t *testing.T) {
	s := newSkill(t, phase("01-x.md", bashStep("fail", "echo nope >&2; exit 3")))
	s.Configure(plan.Settings{Worker: []byte("state_machine:\n  enabled: true\n  max_retries: 1\n")})
	res, _ := lifecycle.Run(context.Background(), opts(t, s))
	if res == nil || res.State != runstore.RunFailed {
		t.Fatalf("run: %v", res)
	}
	var workers []runstore.Worker
	var last string
	for _, line := range strings.Split(strings.TrimSpace(testfs.ReadFile(t, filepath.Join(res.Dir, fsstore.EventsFile))), "\n") {
		var e runstore.Event
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatal(err)
		}
		if e.Checkpoint != nil {
			workers = append(workers, e.Checkpoint.Worker)
		}
		if e.Phase == "01-x" && e.Step == "" {
			last = string(e.To)
		}
	}
	if len(workers) != 2 {
		t.Fatalf("checkpoints' workers = %+v, want one per error", workers)
	}
	if w := workers[0]; w.State != "error" || w.Error == nil || w.CompletedAt != nil {
		t.Errorf("first error's worker = %+v, want error, not completed", w)
	}
	if w := workers[1]; w.State != "completed" || w.Error == nil || !strings.Contains(*w.Error, "exit status 3") || w.CompletedAt == nil {
		t.Errorf("the worker that gave up = %+v, want completed with the error", w)
	}
	if last != "failed" {
		t.Errorf("the phase's last state is %q, want failed", last)
	}
}
