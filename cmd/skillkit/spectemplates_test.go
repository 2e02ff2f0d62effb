package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillkit/skillkit/internal/testagent"
)

// TestSpecTemplates runs the execution-modes specification's autonomous
// templates as the specification writes them (testdata/spec-templates,
// with MAX_RETRIES declared) with the scripted agent, which does what a
// prompt says and decides nothing. The skill passes the run gate: its
// hint "On failure: `action-retry` or `action-abort`" names an action with
// no file, which lint reports and a run meets only if a selection returns
// it. Every action's Execution is "{Execution logic}", left to a model, so
// nothing sets state.initialized: the selection returns action-init again
// and again, and the run stops on the no-progress guard, where a model
// that did the work would have set it. The missing action-retry and the
// catalog's undeclared MAX are warnings on the way, not refusals.
func TestSpecTemplates(t *testing.T) {
	skill, err := filepath.Abs(filepath.Join("testdata", "spec-templates"))
	must(t, err)
	t.Chdir(t.TempDir())
	code, stdout, stderr := run("run", skill, "--agent", testagent.Command())
	if code != 1 {
		t.Fatalf("exit %d, want 1 (the no-progress guard)\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "phases/orchestrator.md:13:1: no progress: action action-init completed 3 times in a row without changing the state") {
		t.Errorf("the run did not stop on the no-progress guard at action-init:\n%s", stderr)
	}
	if strings.Contains(stderr, "unrunnable") || !strings.Contains(stderr, "warning: the Next Actions hint names action action-retry") {
		t.Errorf("the gate refused the templates, or lint's warning is gone:\n%s", stderr)
	}
	if _, err := os.Stat(filepath.Join(skill, ".skillkit")); err == nil {
		t.Error("the run wrote into the skill's folder")
	}
}
