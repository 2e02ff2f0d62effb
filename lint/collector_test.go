package lint

import (
	"os"
	"runtime/debug"
	"testing"
)

// TestTuneCollectorLeavesGOGC holds TuneCollector to its word: GOGC in
// the environment wins (the runtime read it at start), and without it
// the collector runs at collectorPercent. Importing lint changes nothing
// (no rule or test here calls TuneCollector): the test starts at the
// runtime's default.
func TestTuneCollectorLeavesGOGC(t *testing.T) {
	before := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(before) })
	if os.Getenv("GOGC") == "" && before != 100 {
		t.Errorf("the collector runs at %d before TuneCollector: something that imports lint set it", before)
	}
	for _, c := range []struct {
		env  string
		want int
	}{{"50", 100}, {"off", 100}, {"", collectorPercent}} {
		debug.SetGCPercent(100)
		t.Setenv("GOGC", c.env)
		TuneCollector()
		if got := debug.SetGCPercent(100); got != c.want {
			t.Errorf("GOGC=%q: the collector runs at %d, want %d", c.env, got, c.want)
		}
	}
}
