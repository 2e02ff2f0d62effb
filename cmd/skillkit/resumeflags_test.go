package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// notRepeated are run's flags that a printed resume command leaves out,
// each for a reason: what it starts (--workdir, --input, --record,
// --record-test, --dry-run, --resume and --retry, which the resume
// command writes itself), a budget each invocation has its own of
// (--max-agent-calls, --max-cost-usd), or how this terminal shows the run
// (--progress, --help, --db).
var notRepeated = []string{"workdir", "input", "record", "record-test", "dry-run", "resume", "retry", "max-agent-calls", "max-cost-usd", "progress", "help", "db"}

// TestEveryRunFlagIsDecidedForResume: each flag of skillkit run is either
// repeated by the printed resume command (goingOnFlags) or left out on
// purpose (notRepeated), so a new flag cannot be forgotten: a loop resumed
// without its --max-iterations failed at once with no progress.
func TestEveryRunFlagIsDecidedForResume(t *testing.T) {
	root := newRootCmd(Streams{})
	cmd, _, err := root.Find([]string{"run"})
	if err != nil {
		t.Fatal(err)
	}
	cmd.InitDefaultHelpFlag()
	seen := map[string]bool{}
	visit := func(f *pflag.Flag) {
		seen[f.Name] = true
		in, out := slices.Contains(goingOnFlags, f.Name), slices.Contains(notRepeated, f.Name)
		if in == out {
			t.Errorf("flag --%s: in goingOnFlags %v, in notRepeated %v; decide whether a resume repeats it", f.Name, in, out)
		}
	}
	cmd.Flags().VisitAll(visit)
	cmd.InheritedFlags().VisitAll(visit)
	for _, name := range append(slices.Clone(goingOnFlags), notRepeated...) {
		if !seen[name] {
			t.Errorf("--%s is listed but run has no such flag", name)
		}
	}
}

// TestGoingOnRepeatsGivenFlags: the flags given are repeated as shell
// words, a bool as its name, a list once per value; those not given, and
// those not going on, are not.
func TestGoingOnRepeatsGivenFlags(t *testing.T) {
	cmd := newRunCmd(Streams{})
	if err := cmd.ParseFlags([]string{"--max-iterations", "1000", "--yes", "--agent", "claude --model x", "--allow-path", "/a", "--allow-path", "/b c", "--input", "n=1", "--force"}); err != nil {
		t.Fatal(err)
	}
	got := goingOn(cmd.Flags())
	want := ` --agent 'claude --model x' --yes --max-iterations 1000 --allow-path /a --allow-path '/b c' --force`
	if got != want {
		t.Errorf("goingOn = %q\nwant      %q", got, want)
	}
	if strings.Contains(got, "--input") {
		t.Error("the inputs, which the run keeps, are repeated")
	}
}
