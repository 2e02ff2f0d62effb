package orchestrator_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/skillkit/skillkit/internal/faultfs"
	"github.com/skillkit/skillkit/internal/orchestrator"
	"github.com/skillkit/skillkit/internal/runstore/fsstore"

	lifecycle "github.com/skillkit/skillkit/internal/run"

	"github.com/skillkit/skillkit/internal/testfs"
)

// noopOptions are the options of a durable run (fsyncs on) of the no-op
// loop skill with a limit of n actions.
func noopOptions(b testing.TB, n int, sync bool) lifecycle.Options {
	src := load(b, "testdata/noop-loop")
	files := map[string]string{}
	for _, f := range src.Files {
		files[f] = testfs.ReadFile(b, src.Dir+"/"+f)
		if f == "phases/state-schema.md" {
			files[f] = strings.Replace(files[f], `"limit": 1000`, `"limit": `+strconv.Itoa(n), 1)
		}
	}
	s := writeSkill(b, "noop-loop", files)
	base := b.TempDir()
	return lifecycle.Options{
		Skill: s, Store: fsstore.New(fsstore.Options{Base: base, NoSync: !sync}), ProjectDir: base,
		Loop: orchestrator.Options{MaxIterations: n},
	}
}

// BenchmarkLoopIteration is the loop's own cost per iteration: selection,
// a no-op JS action through the unit lifecycle (events, checkpoint,
// metrics), state.json written before and after, skill-state.yaml once.
// "cpu-µs/op" is the process's CPU (user and system, every goroutine's)
// per iteration: on a shared machine the time per op swings with the
// other load, and work moved off the loop's goroutine still counts here.
// One op is one iteration of a single run of b.N actions; "durable" has
// the fsyncs on (as runs do), "nosync" shows the cost without them, and
// "slowdisk" is durable on a disk whose every sync takes a millisecond
// more (the fault-injection files): a loop's completions written during
// one sync share the next (fsstore's group commit), so the iteration
// costs its own work rather than a sync; "syncs/op" says how many it
// paid.
func BenchmarkLoopIteration(b *testing.B) {
	for _, c := range []struct {
		name      string
		sync      bool
		syncDelay time.Duration
	}{{"durable", true, 0}, {"nosync", false, 0}, {"slowdisk", true, time.Millisecond}} {
		b.Run(c.name, func(b *testing.B) {
			o := noopOptions(b, b.N, c.sync)
			var files *faultfs.Files
			if c.syncDelay > 0 {
				files = faultfs.Wrap(nil)
				files.SyncFault = func(string) error {
					time.Sleep(c.syncDelay)
					return nil
				}
				o.Store = fsstore.New(fsstore.Options{Base: o.ProjectDir, Files: files})
			}
			w0, cpu0 := written(b), cpuTime()
			b.ResetTimer()
			res, err := lifecycle.Run(context.Background(), o)
			b.StopTimer()
			if err != nil {
				b.Fatal(err)
			}
			if w0 >= 0 {
				b.ReportMetric(float64(written(b)-w0)/float64(b.N), "written-B/op")
			}
			if cpu0 >= 0 {
				b.ReportMetric(float64(cpuTime()-cpu0)/float64(time.Microsecond)/float64(b.N), "cpu-µs/op")
			}
			if files != nil {
				b.ReportMetric(float64(files.Syncs(fsstore.EventsFile))/float64(b.N), "syncs/op")
			}
			if got := len(completed(state(b, res.Dir))); got != b.N {
				b.Fatalf("%d actions ran, want %d", got, b.N)
			}
		})
	}
}

// BenchmarkLoop1000 runs testdata/noop-loop, 1,000 no-op actions, durable:
// one op is a whole run, claim to completion.
func BenchmarkLoop1000(b *testing.B) {
	for range b.N {
		b.StopTimer()
		o := noopOptions(b, 1000, true)
		b.StartTimer()
		if _, err := lifecycle.Run(context.Background(), o); err != nil {
			b.Fatal(err)
		}
	}
}

// written is how many bytes this process has handed to write calls so
// far (wchar of /proc/self/io): the record's files, snapshots rewritten
// included. -1 where the kernel does not say (not Linux).
func written(b *testing.B) int64 {
	data, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "wchar: "); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				b.Fatalf("/proc/self/io: %v", err)
			}
			return n
		}
	}
	return -1
}
