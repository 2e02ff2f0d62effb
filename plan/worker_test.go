package plan

import (
	"errors"
	"reflect"
	"testing"
)

// skillWithWorker is a skill named demo whose worker.yaml holds content
// (none when empty).
func skillWithWorker(t *testing.T, content string) *Skill {
	t.Helper()
	s := &Skill{Name: "demo"}
	if content != "" {
		s.Configure(Settings{Worker: []byte(content)})
	}
	return s
}

func TestWorker(t *testing.T) {
	tests := []struct {
		name, yaml string
		want       Worker
	}{
		{name: "no file", want: Worker{ID: "demo-worker"}},
		{name: "the specification's example", yaml: "worker:\n  id: example-worker\n  role: other fields are left alone\n\nstate_machine:\n  enabled: true\n  max_retries: 1\n\n  hooks:\n    post_execute:\n      - auto_checkpoint\n      - log_metrics\n    on_error:\n      - log_error\n      - checkpoint_error_state\n",
			want: Worker{File: true, ID: "example-worker", MaxRetries: 1}},
		{name: "commands beside built-ins", yaml: "state_machine:\n  hooks:\n    post_execute: [log_metrics, ./notify.sh]\n    on_error: [make clean]\n",
			want: Worker{File: true, ID: "demo-worker", Hooks: []Hook{
				{Point: HookPostPhase, Command: "./notify.sh", Pos: Pos{File: WorkerFile, Line: 3, Col: 33}},
				{Point: HookPostAction, Command: "./notify.sh", Pos: Pos{File: WorkerFile, Line: 3, Col: 33}},
				{Point: HookOnError, Command: "make clean", Pos: Pos{File: WorkerFile, Line: 4, Col: 16}},
			}}},
		{name: "disabled", yaml: "worker: {id: w}\nstate_machine:\n  enabled: false\n  max_retries: 2\n  hooks: {on_error: [make clean]}\n",
			want: Worker{File: true, ID: "w"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, err := skillWithWorker(t, tt.yaml).Worker()
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(*w, tt.want) {
				t.Errorf("worker = %+v\nwant %+v", *w, tt.want)
			}
		})
	}
}

// An invalid shape is an error at the value at fault.
func TestWorkerErrors(t *testing.T) {
	tests := []struct{ yaml, want string }{
		{"- a list\n", "worker.yaml:1:1: want a map with worker and state_machine"},
		{"worker:\n  id: a\n id: b\n", "worker.yaml:2: yaml: line 2: did not find expected key"},
		{"worker: w\n", "worker.yaml:1:9: worker: want a map (id, …)"},
		{"worker:\n  id: [a]\n", "worker.yaml:2:7: worker.id: want a non-empty string"},
		{"state_machine: on\n", "worker.yaml:1:16: state_machine: want a map (enabled, max_retries, hooks)"},
		{"state_machine:\n  enabled: yes please\n", "worker.yaml:2:12: state_machine.enabled: want true or false"},
		{"state_machine:\n  max_retries: -1\n", "worker.yaml:2:16: state_machine.max_retries: want a whole number, 0 or more"},
		// N8: capped like a step's retries, not "attempt 8 of 1000000001".
		{"state_machine:\n  max_retries: 1000000000\n", "worker.yaml:2:16: state_machine.max_retries: 1000000000 is more than 100 retries"},
		{"state_machine:\n  max_retries: two\n", "worker.yaml:2:16: state_machine.max_retries: want a whole number, 0 or more"},
		{"state_machine:\n  hooks:\n    pre_execute: [a]\n", `worker.yaml:3:5: state_machine.hooks: unknown list "pre_execute" (want post_execute or on_error)`},
		{"state_machine:\n  hooks:\n    on_error: log_error\n", "worker.yaml:3:15: state_machine.hooks.on_error: want a list of built-in hook names and commands"},
		{"state_machine:\n  hooks:\n    on_error: [{a: b}]\n", "worker.yaml:3:16: state_machine.hooks.on_error: want a built-in hook name or a command"},
	}
	for _, tt := range tests {
		_, err := skillWithWorker(t, tt.yaml).Worker()
		var he *HookError
		if !errors.As(err, &he) || err.Error() != tt.want {
			t.Errorf("%q: err = %v, want %s", tt.yaml, err, tt.want)
		}
	}
}
