package lint

import (
	"os"
	"runtime/debug"
)

// collectorPercent is the GOGC that TuneCollector sets.
const collectorPercent = 400

// TuneCollector sets the Go collector for a process that lints: to run a
// quarter as often as by default, unless GOGC is set in the environment,
// which wins. skillkit lint and skillkit lsp both call it, so the two
// share one decision. A lint allocates a markdown tree per file and keeps
// little (the skills in flight, the findings; the language server its
// last lint of each open skill and its caches), so the collector's work
// is mostly waste: against 200, lint's CPU fell 5% on the staged corpus
// at 1x and 11% at 20x, for a peak of about 60 MB at 1x and 110 MB at
// 20x; 800 saved little more for half as much memory again. A language
// server session of 500 changes of a 2,000-line file took a third less
// CPU, for 10 MB more at its peak (docs/lsp.md, "Speed"). No memory
// limit: under one, a deeply nested expression's parser stack made the
// collector thrash (30x slower).
func TuneCollector() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(collectorPercent)
	}
}
