package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// sizeFlags parses the -n and -out flags every generator takes.
func sizeFlags(name string, args []string, n int) (int, string, error) {
	fl := flag.NewFlagSet(name, flag.ContinueOnError)
	size := fl.Int("n", n, "how many")
	out := fl.String("out", "", "where to write")
	if err := fl.Parse(args); err != nil {
		return 0, "", err
	}
	if *out == "" || *size < 1 {
		return 0, "", fmt.Errorf("%s: -out and a positive -n are required", name)
	}
	return *size, *out, nil
}

func writeFiles(dir string, files map[string]string) error {
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// phases writes a sequential skill of n phases, each one bash step that
// runs `true`: what is left is the runner's own cost per phase.
func phases(args []string) error {
	n, out, err := sizeFlags("phases", args, 100)
	if err != nil {
		return err
	}
	name := filepath.Base(out)
	files := map[string]string{
		"SKILL.md": fmt.Sprintf("---\nname: %s\ndescription: %d phases of one bash step each that runs true; a benchmark of the sequential runner's cost per phase.\n---\n\n# %s\n\nEach phase runs `true` in bash.\n", name, n, name),
	}
	for i := 1; i <= n; i++ {
		var b strings.Builder
		fmt.Fprintf(&b, "# Phase %d: Step %d\n\nRuns true.\n\n## Execution\n\n```bash\ntrue\n```\n", i, i)
		if i < n {
			fmt.Fprintf(&b, "\n## Next Phase\n\n→ [Phase %d: Step %d](%03d-step.md)\n", i+1, i+1, i+1)
		}
		files[fmt.Sprintf("phases/%03d-step.md", i)] = b.String()
	}
	return writeFiles(out, files)
}

// taskfile writes the go-task equivalent of phases: n tasks run in order by
// the default task, each starting one bash that runs true (go-task runs
// `true` in its built-in interpreter; skillkit starts bash for a step).
func taskfile(args []string) error {
	n, out, err := sizeFlags("taskfile", args, 100)
	if err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString("version: '3'\n\ntasks:\n  default:\n    cmds:\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "      - task: step%03d\n", i)
	}
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "  step%03d:\n    cmds:\n      - bash -c true\n", i)
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	return os.WriteFile(out, []byte(b.String()), 0o644)
}

// loop writes an autonomous skill whose orchestrator runs a no-op JS
// action n times and then stops.
func loop(args []string) error {
	n, out, err := sizeFlags("loop", args, 1000)
	if err != nil {
		return err
	}
	if filepath.Base(out) == "" {
		return errors.New("loop: -out names the skill folder")
	}
	name := filepath.Base(out)
	return writeFiles(out, map[string]string{
		"SKILL.md":                      fmt.Sprintf("---\nname: %s\ndescription: Runs a no-op JS action %d times; a benchmark of the autonomous loop's cost per iteration.\n---\n\n# %s\n\nThe orchestrator selects `action-noop` until %d actions completed.\n", name, n, name, n),
		"phases/orchestrator.md":        "# Orchestrator\n\n## Decision Logic\n\n```javascript\nfunction selectNextAction(state) {\n  return state.completed_actions.length < state.limit ? 'action-noop' : null;\n}\n```\n",
		"phases/actions/action-noop.md": "# Action: No-op\n\n## Execution\n\n```javascript\nfunction execute(state) {\n  return {};\n}\n```\n",
		"phases/state-schema.md":        fmt.Sprintf("# State Schema\n\n```typescript\ninterface NoopState {\n  status: 'pending' | 'running' | 'completed' | 'failed';\n  started_at: string;\n  updated_at: string;\n  current_action: string | null;\n  completed_actions: string[];\n  errors: Array<{ action: string; message: string; timestamp: string }>;\n  error_count: number;\n  limit: number;\n}\n```\n\n## Initial State\n\n```json\n{\n  \"status\": \"running\",\n  \"started_at\": \"{ISO8601}\",\n  \"updated_at\": \"{ISO8601}\",\n  \"current_action\": null,\n  \"completed_actions\": [],\n  \"errors\": [],\n  \"error_count\": 0,\n  \"limit\": %d\n}\n```\n", n),
	})
}
