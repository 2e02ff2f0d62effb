package main

import (
	"errors"
	"os"
	"os/exec"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/skillkit/skillkit/internal/testagent"
)

// TestMain lets testscript run the skillkit command in-process: the test
// binary doubles as the skillkit executable.
func TestMain(m *testing.M) {
	// A test that puts testagent's stand-in on PATH runs this binary as
	// the agent.
	if testagent.Active() {
		os.Exit(testagent.Main())
	}
	testscript.Main(m, map[string]func(){
		"skillkit": func() {
			os.Exit(Main(os.Args[1:], Streams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr}))
		},
	})
}

// TestScripts runs the CLI sessions in testdata/script. Each script runs
// in a fresh folder; $REPO is the repository root (for examples/) and
// $CORPUS the shared corpus, which scripts skip without.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("REPO", repoRoot(t))
			env.Setenv("NO_COLOR", "1")
			return nil
		},
		Condition: func(cond string) (bool, error) {
			if cond == "corpus" {
				_, err := os.Stat(corpusDir)
				return err == nil, nil
			}
			return false, nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){"exits": exits},
	})
}

// exits runs a command and checks its exit code: `exits 2 skillkit run x`.
// exec only tells success from failure, and the exit code table is part
// of what skillkit promises.
func exits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits CODE COMMAND [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: %v", err)
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exits: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d", args[1], got, want)
	}
}
