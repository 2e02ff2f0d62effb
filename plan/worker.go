package plan

import (
	"fmt"
	"slices"

	"go.yaml.in/yaml/v3"
)

// WorkerFile is the worker's configuration beside SKILL.md, as the worker
// lifecycle specification adds it:
//
//	worker:
//	  id: example-worker
//	state_machine:
//	  enabled: true
//	  max_retries: 1
//	  hooks:
//	    post_execute: [auto_checkpoint, log_metrics, ./scripts/notify.sh]
//	    on_error: [log_error, checkpoint_error_state]
const WorkerFile = "worker.yaml"

// Built-in hooks: the runtime runs them at every phase and action. In
// worker.yaml's hook lists their names stand for them, not for commands.
const (
	HookAutoCheckpoint       = "auto_checkpoint"
	HookLogMetrics           = "log_metrics"
	HookLogError             = "log_error"
	HookCheckpointErrorState = "checkpoint_error_state"
)

// BuiltinHooks are the built-in hooks' names.
var BuiltinHooks = []string{HookAutoCheckpoint, HookLogMetrics, HookLogError, HookCheckpointErrorState}

// workerHookPoints maps worker.yaml's hook lists to the hook points their
// commands run at: post_execute after any unit succeeded, on_error after
// any unit failed.
var workerHookPoints = map[string][]string{
	"post_execute": {HookPostPhase, HookPostAction},
	"on_error":     {HookOnError},
}

// Worker is a skill's worker.yaml, defaults filled in.
type Worker struct {
	// File says the skill has a worker.yaml: its runs keep threads and
	// metrics in the specification's workspace/ folder.
	File bool
	// ID is worker.id: the id the run's threads carry.
	ID string
	// MaxRetries is state_machine.max_retries: how many more times a
	// failed phase or action is tried, from loading.
	MaxRetries int
	// Hooks are the commands of state_machine.hooks, at their hook points.
	Hooks []Hook
}

// DefaultWorkerID is a skill's worker id when worker.yaml gives none.
func DefaultWorkerID(skill string) string { return skill + "-worker" }

// Worker decodes the skill's worker.yaml, as parse read it (Configure);
// without one the worker is <skill>-worker with no retries and no
// commands. A state_machine with enabled: false contributes nothing. An
// entry of a hook list that names a built-in hook is that hook (which
// always runs); any other is a command. It is the one decoder of
// worker.yaml: the runtime refuses a run with its error and lint reports
// it at the same position (*HookError).
func (s *Skill) Worker() (*Worker, error) {
	w := &Worker{ID: DefaultWorkerID(s.Name)}
	if err := s.settings.WorkerErr; err != nil {
		return nil, fmt.Errorf("reading %s: %w", WorkerFile, err)
	}
	if s.settings.Worker == nil {
		return w, nil
	}
	w.File = true
	var doc yaml.Node
	if err := yaml.Unmarshal(s.settings.Worker, &doc); err != nil {
		return nil, &HookError{Pos{File: WorkerFile, Line: YAMLErrorLine(err.Error(), 1)}, err.Error()}
	}
	if len(doc.Content) == 0 {
		return w, nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, workerError(root, "want a map with worker and state_machine")
	}
	if n := mapValue(root, "worker"); n != nil {
		if n.Kind != yaml.MappingNode {
			return nil, workerError(n, "worker: want a map (id, …)")
		}
		if id := mapValue(n, "id"); id != nil {
			if id.Kind != yaml.ScalarNode || id.Tag != "!!str" || id.Value == "" {
				return nil, workerError(id, "worker.id: want a non-empty string")
			}
			w.ID = id.Value
		}
	}
	sm := mapValue(root, "state_machine")
	if sm == nil {
		return w, nil
	}
	if sm.Kind != yaml.MappingNode {
		return nil, workerError(sm, "state_machine: want a map (enabled, max_retries, hooks)")
	}
	enabled := true
	if n := mapValue(sm, "enabled"); n != nil {
		if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
			return nil, workerError(n, "state_machine.enabled: want true or false")
		}
		enabled = n.Value == "true"
	}
	var retries int
	if n := mapValue(sm, "max_retries"); n != nil {
		if n.Kind != yaml.ScalarNode || n.Tag != "!!int" || n.Decode(&retries) != nil || retries < 0 {
			return nil, workerError(n, "state_machine.max_retries: want a whole number, 0 or more")
		}
		// Bounded as a step's retries are: a typo must not retry for ever.
		if retries > MaxRetries {
			return nil, workerError(n, fmt.Sprintf("state_machine.max_retries: %d is more than %d retries", retries, MaxRetries))
		}
	}
	hooks, err := workerHooks(mapValue(sm, "hooks"))
	if err != nil {
		return nil, err
	}
	if enabled {
		w.MaxRetries, w.Hooks = retries, hooks
	}
	return w, nil
}

// workerHooks reads state_machine.hooks: lists of built-in hook names and
// commands under post_execute and on_error.
func workerHooks(n *yaml.Node) ([]Hook, error) {
	if n == nil {
		return nil, nil
	}
	if n.Kind != yaml.MappingNode {
		return nil, workerError(n, "state_machine.hooks: want a map (post_execute, on_error)")
	}
	var out []Hook
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		points, ok := workerHookPoints[k.Value]
		if !ok {
			return nil, workerError(k, fmt.Sprintf("state_machine.hooks: unknown list %q (want post_execute or on_error)", k.Value))
		}
		if v.Kind != yaml.SequenceNode {
			return nil, workerError(v, "state_machine.hooks."+k.Value+": want a list of built-in hook names and commands")
		}
		for _, e := range v.Content {
			if e.Kind != yaml.ScalarNode || e.Tag != "!!str" || e.Value == "" {
				return nil, workerError(e, "state_machine.hooks."+k.Value+": want a built-in hook name or a command")
			}
			if slices.Contains(BuiltinHooks, e.Value) {
				continue
			}
			for _, p := range points {
				out = append(out, Hook{Point: p, Command: e.Value, Pos: workerPos(e)})
			}
		}
	}
	return out, nil
}

func workerPos(n *yaml.Node) Pos { return Pos{File: WorkerFile, Line: n.Line, Col: n.Column} }

func workerError(n *yaml.Node, msg string) *HookError { return &HookError{workerPos(n), msg} }
