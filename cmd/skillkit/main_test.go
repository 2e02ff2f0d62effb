package main

import (
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets testscript run the skillkit command in-process: the test
// binary doubles as the skillkit executable.
func TestMain(m *testing.M) {
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
	})
}
