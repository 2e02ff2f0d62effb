// Command benchgen prepares and reads what bench/run.sh measures: it
// stages a corpus of skills the way the peer linters expect them, writes
// the generated skills of the runner benchmarks, and counts the findings
// in each tool's report. It keeps run.sh free of jq and python.
//
//	benchgen stage -from CORPUS -copies N -out DIR [-limit K]
//	benchgen phases -n 100 -out DIR       # a skill of n one-`true` phases
//	benchgen taskfile -n 100 -out FILE    # the go-task equivalent
//	benchgen loop -n 1000 -out DIR        # an autonomous no-op loop skill
//	benchgen count TOOL FILE              # findings in a tool's report
//	benchgen hyperfine FILE               # "mean sd" seconds of a hyperfine export
//	benchgen unparsable REPORT            # skills with broken YAML, from skillkit's JSON
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: benchgen stage|phases|taskfile|loop|count|hyperfine|unparsable ...")
		os.Exit(2)
	}
	cmds := map[string]func([]string) error{
		"stage": stage, "phases": phases, "taskfile": taskfile, "loop": loop,
		"count": count, "hyperfine": hyperfine, "unparsable": unparsable,
	}
	cmd, ok := cmds[os.Args[1]]
	if !ok {
		fmt.Fprintf(os.Stderr, "benchgen: unknown command %q\n", os.Args[1])
		os.Exit(2)
	}
	if err := cmd(os.Args[2:]); err != nil {
		fmt.Fprintln(os.Stderr, "benchgen:", err)
		os.Exit(1)
	}
}
