package script

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/skillkit/skillkit/internal/agent"
	"github.com/skillkit/skillkit/internal/testfs"
)

// slowAgent is a stand-in agent that sleeps $STANDIN_SLEEP seconds and
// answers with the job named in its prompt and its call number. It
// appends "n start end" (nanoseconds) to calls.log when it is done.
func slowAgent(t *testing.T, f fixture, sleep string) *agent.Agent {
	t.Helper()
	path := filepath.Join(f.root, "slow-agent.sh")
	testfs.WriteFile(t, path, `#!/bin/sh
start=$(date +%s%N)
job=$(grep -o 'job-[0-9]*' | head -n 1)
sleep `+sleep+`
echo "$SKILLKIT_CALL $start $(date +%s%N)" >> calls.log
printf "%s call %s" "$job" "$SKILLKIT_CALL"
`)
	if err := os.Chmod(path, 0o755); err != nil {
		t.Fatal(err)
	}
	return &agent.Agent{Command: path, Timeout: 20 * time.Second, Session: &agent.Session{}}
}

// interval is when one call's command ran.
type interval struct{ n, start, end int64 }

func intervals(t *testing.T, f fixture) []interval {
	t.Helper()
	var out []interval
	for line := range strings.Lines(testfs.ReadFile(t, filepath.Join(f.work, "calls.log"))) {
		var iv interval
		if _, err := fmt.Sscan(line, &iv.n, &iv.start, &iv.end); err != nil {
			t.Fatalf("calls.log: %q: %v", line, err)
		}
		out = append(out, iv)
	}
	return out
}

// overlap is the most calls that ran at one moment.
func overlap(ivs []interval) int {
	most := 0
	for _, a := range ivs {
		n := 0
		for _, b := range ivs {
			if b.start <= a.start && a.start < b.end {
				n++
			}
		}
		most = max(most, n)
	}
	return most
}

const fourTasks = `state.replies = await Promise.all([1, 2, 3, 4].map(i => Task({prompt: 'Do job-' + i})));`

// Task calls made together run side by side, up to Options.Parallel at
// once; their results come in call order, numbered in the order the code
// made them.
func TestParallelTasks(t *testing.T) {
	want := []any{"job-1 call 1", "job-2 call 2", "job-3 call 3", "job-4 call 4"}
	for _, tt := range []struct {
		parallel int
		sleep    string
		overlap  int
	}{
		{parallel: 0, sleep: "1", overlap: 4}, // the default, 4
		{parallel: 2, sleep: "0.3", overlap: 2},
		{parallel: 1, sleep: "0.3", overlap: 1},
	} {
		t.Run(strconv.Itoa(tt.parallel), func(t *testing.T) {
			f := newFixture(t)
			h := f.host(t, func(o *Options) { o.Agent = slowAgent(t, f, tt.sleep); o.Parallel = tt.parallel })
			start := time.Now()
			st, err := f.step(t, h, fourTasks)
			elapsed := time.Since(start)
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := st["replies"].([]any); !slices.Equal(got, want) {
				t.Errorf("replies = %v, want %v", got, want)
			}
			ivs := intervals(t, f)
			if len(ivs) != 4 || overlap(ivs) != tt.overlap {
				t.Errorf("%d calls, %d at once; want 4, %d at once: %v", len(ivs), overlap(ivs), tt.overlap, ivs)
			}
			t.Logf("4 calls, %d at once, in %v", overlap(ivs), elapsed)
			if tt.overlap == 4 && elapsed >= 3*time.Second {
				// Coarse: one by one takes 4 s.
				t.Errorf("4 parallel calls of 1 s took %v", elapsed)
			}
		})
	}
}

// Calls the code does not await still run side by side, and end before
// the step does.
func TestUnawaitedTasks(t *testing.T) {
	f := newFixture(t)
	h := f.host(t, func(o *Options) { o.Agent = slowAgent(t, f, "0.3") })
	if _, err := f.step(t, h, `Task({prompt: 'job-1'}); Agent({prompt: 'job-2'}); return {}`); err != nil {
		t.Fatal(err)
	}
	if ivs := intervals(t, f); len(ivs) != 2 || overlap(ivs) != 2 {
		t.Errorf("calls: %v; want 2 that overlap, both ended", ivs)
	}
}

// An evaluation that runs out of time while calls are under way ends
// with the timeout, the calls killed, not with a promise that never
// settles.
func TestTasksTimeOut(t *testing.T) {
	f := newFixture(t)
	h := f.host(t, func(o *Options) { o.Agent = slowAgent(t, f, "5"); o.Timeout = 300 * time.Millisecond })
	start := time.Now()
	_, err := f.step(t, h, fourTasks)
	if !errors.Is(err, ErrTimeout) || time.Since(start) > 3*time.Second {
		t.Errorf("err = %v after %v, want a timeout at once", err, time.Since(start))
	}
}
