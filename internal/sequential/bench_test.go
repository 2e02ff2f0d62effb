package sequential_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/skillkit/skillkit/internal/runstore/fs"

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
		_, err := lifecycle.Run(context.Background(), lifecycle.Options{Skill: s, WorkDir: filepath.Join(base, fmt.Sprint(i)), Store: fs.New(fs.Options{Base: base, NoSync: os.Getenv("BENCH_NOSYNC") != ""})})
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
