package sequential_test

import (
	"context"
	"fmt"
	"github.com/skillkit/skillkit/internal/runstore/fsstore"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	lifecycle "github.com/skillkit/skillkit/internal/run"

	"github.com/skillkit/skillkit/internal/proc"
	"github.com/skillkit/skillkit/plan"
)

// BenchmarkSequential100Phases runs a skill of 100 phases of one `true`
// shell step each, with durable (fsynced) writes, and reports the time per
// phase: the runner's overhead over the shell's.
func BenchmarkSequential100Phases(b *testing.B) {
	var phases []*plan.Phase
	for i := 1; i <= 100; i++ {
		phases = append(phases, phase(fmt.Sprintf("%03d-p.md", i), bashStep("t", "true")))
	}
	s := newSkill(b, phases...)
	base := b.TempDir()
	var total time.Duration
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		_, err := lifecycle.Run(context.Background(), lifecycle.Options{Skill: s, WorkDir: filepath.Join(base, fmt.Sprint(i)), Store: fsstore.New(fsstore.Options{Base: base, NoSync: os.Getenv("BENCH_NOSYNC") != ""})})
		total += time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(total.Nanoseconds())/float64(b.N*100), "ns/phase")
}

// BenchmarkBareShell100 runs `bash -c true` 100 times the way a step does,
// with nothing around it: the floor BenchmarkSequential100Phases is
// measured against.
func BenchmarkBareShell100(b *testing.B) {
	dir := b.TempDir()
	for b.Loop() {
		for range 100 {
			if _, err := proc.Run(context.Background(), proc.Cmd{Name: "bash", Args: []string{"-c", "true"}, Dir: dir, Env: os.Environ()}); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*100), "ns/phase")
}

// BenchmarkStepOutput runs a step that prints 1 MiB, 64 MiB and 1 GiB and
// reports the runner's peak heap: the output streams to the step's log
// with a bounded tail in memory, so the peak is flat however much a step
// prints (bench/run.sh measures the peak RSS of the whole command).
func BenchmarkStepOutput(b *testing.B) {
	for _, size := range []int64{1 << 20, 64 << 20, 1 << 30} {
		b.Run(fmt.Sprintf("%dMiB", size>>20), func(b *testing.B) {
			s := newSkill(b, phase("01-p.md", bashStep("print", fmt.Sprintf("head -c %d /dev/zero | tr '\\0' x", size))))
			base := b.TempDir()
			var peak atomic.Uint64
			for i := 0; b.Loop(); i++ {
				runtime.GC()
				done := make(chan struct{})
				go func() {
					var m runtime.MemStats
					for {
						runtime.ReadMemStats(&m)
						if m.HeapInuse > peak.Load() {
							peak.Store(m.HeapInuse)
						}
						select {
						case <-done:
							return
						case <-time.After(5 * time.Millisecond):
						}
					}
				}()
				dir := filepath.Join(base, fmt.Sprint(i))
				_, err := lifecycle.Run(context.Background(), lifecycle.Options{Skill: s, WorkDir: dir, Store: fsstore.New(fsstore.Options{Base: base, NoSync: true})})
				close(done)
				if err != nil {
					b.Fatal(err)
				}
				// The log holds all of it.
				if st, err := os.Stat(filepath.Join(dir, fsstore.LogsDir, "01-p-1.log")); err != nil || st.Size() < size {
					b.Fatalf("the step's log: %v, %v", st, err)
				}
				os.RemoveAll(dir)
			}
			b.SetBytes(size)
			b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MiB")
		})
	}
}
