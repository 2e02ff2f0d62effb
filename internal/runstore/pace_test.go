package runstore_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/skillkit/skillkit/internal/runstore"
	"github.com/skillkit/skillkit/internal/runstore/memstore"
)

// counting counts the snapshots of the runs it creates.
type counting struct {
	runstore.Backend
	snapshots *int
}

func (c counting) Create(ctx context.Context, n runstore.NewRun, co runstore.ClaimOptions) (*runstore.Claimed, error) {
	cl, err := c.Backend.Create(ctx, n, co)
	if err == nil {
		cl.Handle = countingHandle{cl.Handle, c.snapshots}
	}
	return cl, err
}

type countingHandle struct {
	runstore.Handle
	n *int
}

func (h countingHandle) Snapshot(ctx context.Context, p *runstore.Progress) error {
	*h.n++
	return h.Handle.Snapshot(ctx, p)
}

// A run of many one-step phases writes its snapshots as paced, not at
// every phase's end: each rewrites the whole progress, which grows with
// the run, and a snapshot per phase made a 100,000-phase run slow down as
// it went (F10: 2,091 steps per 20 s at its start, 52 per second at 12k).
// A skill of a few phases still gets one at each phase's end.
func TestPhaseEndSnapshotsArePaced(t *testing.T) {
	for _, c := range []struct {
		phases, steps, most int
	}{
		{phases: 2000, steps: 1, most: 100},
		{phases: 4, steps: 3, most: 4 + 2},
	} {
		t.Run(fmt.Sprintf("%dx%d", c.phases, c.steps), func(t *testing.T) {
			snapshots := 0
			s := runstore.NewStore(counting{memstore.New(t.TempDir()), &snapshots}, runstore.Options{})
			r, err := s.Create(runstore.NewRun{Start: runstore.Start{RunID: "r1", Skill: "demo", StartedAt: time.Now(), TotalSteps: c.phases * c.steps},
				State: map[string]any{}}, runstore.ClaimOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			start := snapshots
			n := 0
			for p := 1; p <= c.phases; p++ {
				ph := fmt.Sprintf("%06d-p", p)
				for i := 1; i <= c.steps; i++ {
					n++
					id := fmt.Sprintf("%s#%d", ph, i)
					rec := runstore.NewStepRecord(n, id, "step", runstore.StepCompleted, false, time.Now())
					for _, e := range []runstore.Event{
						{Phase: ph, Step: id, From: "pending", To: "executing", Position: n},
						{Phase: ph, Step: id, From: "executing", To: "completed", Record: &rec},
					} {
						if err := r.Commit(e); err != nil {
							t.Fatal(err)
						}
					}
				}
				before := snapshots
				if err := r.Commit(runstore.Event{Phase: ph, From: "post_hook", To: "completed"}); err != nil {
					t.Fatal(err)
				}
				if c.phases <= 4 && snapshots == before {
					t.Errorf("no snapshot at the end of phase %d of %d", p, c.phases)
				}
			}
			if got := snapshots - start; got > c.most {
				t.Errorf("%d snapshots over %d phases of %d steps, want at most %d", got, c.phases, c.steps, c.most)
			}
		})
	}
}
