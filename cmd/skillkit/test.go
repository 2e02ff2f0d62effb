package main

import (
	"fmt"
	"os"
	"regexp"
	"runtime"
	"time"

	"github.com/spf13/cobra"

	"github.com/skillkit/skillkit/internal/agent"
	"github.com/skillkit/skillkit/internal/skilltest"
)

type testOptions struct {
	run      string
	format   string
	update   bool
	parallel int
	agentCmd string
}

func newTestCmd() *cobra.Command {
	o := &testOptions{}
	c := &cobra.Command{
		Use:   "test [PATH...]",
		Short: "Run skills' regression tests, replaying recorded agent replies",
		Long: `test finds every skill under the paths (default .) that has tests/*.yaml and
runs each test case in a fresh temporary work dir: the skill runs as
skillkit run runs it, with the agent's replies taken from the case's
cassette (recorded with skillkit run --record or --record-test) or from
its inline replies, so no agent and no network take part; native steps run
as they did when the cassette was recorded. A prompt that the cassette has
no reply for fails the case with a diff against the closest recorded
prompt. Then the case's expectations are checked: status and exit code,
state values and expressions, files, events, agent calls.

--update runs the cases with the real agent (--agent or $SKILLKIT_AGENT)
and records their cassettes again, and writes the golden files the runs no
longer match; it says what changed. The format of test files is in
docs/testing.md; skillkit schema test prints their JSON Schema.

Exit codes: 0 every case passed, 1 a case failed, 2 a test file or
cassette cannot be used (its file:line is printed) or bad usage.`,
		Example: `  skillkit test examples
  skillkit test my-skill --run 'review/.*empty'
  skillkit test . --format junit > junit.xml
  skillkit test my-skill --update --agent claude`,
		RunE: runE(func(c *cobra.Command, args []string) error {
			return runTests(c, o, args)
		}),
	}
	f := c.Flags()
	f.StringVar(&o.run, "run", "", "run only the cases whose skill/case name matches this regular expression")
	f.StringVar(&o.format, "format", "text", "output: text, json or junit (JUnit XML)")
	f.BoolVar(&o.update, "update", false, "re-record the cassettes with the real agent, and write golden files that differ")
	f.IntVar(&o.parallel, "parallel", runtime.GOMAXPROCS(0), "cases run at once")
	f.StringVar(&o.agentCmd, "agent", "", "with --update: the agent that records (default $SKILLKIT_AGENT)")
	return c
}

func runTests(c *cobra.Command, o *testOptions, paths []string) error {
	if o.format != "text" && o.format != "json" && o.format != "junit" {
		return usageErr(fmt.Errorf("--format %q: want text, json or junit", o.format))
	}
	var filter *regexp.Regexp
	if o.run != "" {
		var err error
		if filter, err = regexp.Compile(o.run); err != nil {
			return usageErr(fmt.Errorf("--run: %w", err))
		}
	}
	if len(paths) == 0 {
		paths = []string{"."}
	}
	for _, p := range paths {
		if err := checkSkillDir(p); err != nil {
			return err
		}
	}
	start := time.Now()
	cwd, err := os.Getwd()
	if err != nil {
		return err
	}
	project := projectRoot(cwd)
	found, err := skilltest.Find(paths, filter, project)
	if err != nil {
		return usageErr(err)
	}
	opts := skilltest.Options{ExitCode: runExit, Update: o.update, Env: os.Environ(), Project: project}
	if o.update {
		if cmd := firstNonEmpty(o.agentCmd, os.Getenv("SKILLKIT_AGENT")); cmd != "" {
			opts.Agent = &agent.Agent{Command: absCommand(cmd, cwd)}
		}
	}
	results := skilltest.RunAll(c.Context(), found, opts, o.parallel)
	w := c.OutOrStdout()
	switch o.format {
	case "json":
		err = skilltest.WriteJSON(w, results)
	case "junit":
		err = skilltest.WriteJUnit(w, results)
	default:
		err = skilltest.WriteText(w, results, time.Since(start))
	}
	if err != nil {
		return err
	}
	sum := skilltest.Summarize(results)
	switch {
	case sum.Bad > 0:
		return &exitError{code: ExitUsage}
	case sum.Failed > 0:
		return &exitError{code: ExitFailed}
	case len(results) == 0:
		fmt.Fprintf(c.ErrOrStderr(), "no skill under %v has tests/*.yaml (write one with skillkit run SKILL --record-test NAME)\n", paths)
	}
	return nil
}
