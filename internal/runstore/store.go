package runstore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// Options configure the Store over a backend.
type Options struct {
	// Files is how state.json is written; nil is the operating
	// system's.
	Files Files
}

// records is the Store of every backend: the rules of a run's record
// over what the backend keeps.
type records struct {
	b     Backend
	files Files
}

// NewStore returns the store of runs kept by b.
func NewStore(b Backend, o Options) Store {
	return &records{b: b, files: cmp.Or[Files](o.Files, OS{})}
}

// Create claims a new run's record, writes its state.json and then
// records its start: a run that exists always has a state.json a step can
// read, even right after a kill.
func (s *records) Create(n NewRun, co ClaimOptions) (Run, error) {
	ctx := context.Background()
	co = co.Timing()
	c, err := s.b.Create(ctx, n, co)
	if err != nil {
		return nil, err
	}
	start := n.Start
	start.WorkDir = c.WorkDir
	r := open(ctx, s.files, c, start.RunID, s.b.Where(c.Key), c.WorkDir, co.Heartbeat)
	r.SetState(n.State)
	if err := r.Flush(); err != nil {
		r.Close()
		return nil, err
	}
	if err := r.Commit(Event{Time: start.StartedAt, To: State(RunPending), Detail: start.Skill, Start: &start}); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// Resume claims the run ref names and rebuilds it from its log. The log
// is read before the claim too, so that a run that is damaged or not
// there is refused before a takeover kills anything.
func (s *records) Resume(ref string, o ResumeOptions) (Run, error) {
	ctx := context.Background()
	co := o.Claim.Timing()
	key, err := s.locate(ctx, ref)
	if err != nil {
		return nil, err
	}
	if _, _, err := s.replay(ctx, key); err != nil {
		return nil, err
	}
	c, watched, err := s.claim(ctx, key, co)
	if err != nil {
		return nil, err
	}
	release := func() { c.Release(ctx, false) }
	// Read again under the claim: a holder that finished just before is
	// seen as finished.
	rep, log, err := s.replay(ctx, key)
	if err != nil {
		release()
		return nil, err
	}
	p := rep.Progress
	if p.RunState.Terminal() && !(o.Retry && p.RunState.Retryable()) {
		release()
		hint := ""
		if p.RunState.Retryable() {
			hint = "; after a fix, run it again from where it stopped with --retry"
		}
		return nil, fmt.Errorf("resuming run %s: it is %s: %w%s", p.RunID, p.RunState, ErrTerminal, hint)
	}
	if c.Fresh && p.RunState == RunRunning {
		// A run left running holds a claim until its holder closes it
		// or dies; none means the claim was deleted, maybe under a live
		// holder. Wait until such a holder's heartbeat has seen this
		// claim, given up the run and killed its commands, rather than
		// run its step beside it.
		time.Sleep(2 * co.Heartbeat)
		if err := c.Verify(ctx); err != nil {
			release()
			return nil, err
		}
	}
	work, err := s.b.WorkDir(ctx, key, rep.WorkDir, p.Skill)
	if err != nil {
		release()
		return nil, err
	}
	r := open(ctx, s.files, c, p.RunID, s.b.Where(key), work, co.Heartbeat)
	r.progress, r.state, r.logged, r.taken, r.notes = p, rep.State, rep.State, rep.Taken, log.Notes
	if watched != "" {
		r.notes = append(r.notes, watched)
	}
	r.stale = true
	r.mu.Lock()
	err = r.flush(true)
	r.mu.Unlock()
	if err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// claim claims run key. A claim that only its heartbeat's movement can
// judge (a holder on another host whose clock is ahead) is looked at
// again until the heartbeat moves, and the holder lives (refused within a
// heartbeat), or it has stood still for a lease (taken over): a one-shot
// resume tells a dead holder from a live one without a second try.
// watched says, for a person, that it was taken over so.
func (s *records) claim(ctx context.Context, key string, co ClaimOptions) (c *Claimed, watched string, err error) {
	c, err = s.b.Claim(ctx, key, co)
	var first *ClaimedError
	if !errors.As(err, &first) || first.Watch <= 0 {
		return c, "", err
	}
	// The backend judges each look against its first sighting: past
	// the lease it takes the claim over. The deadline only bounds the
	// loop should a backend not.
	start := time.Now()
	deadline := start.Add(2 * first.Watch)
	for {
		time.Sleep(min(first.Watch/10, co.Heartbeat/4))
		c, err = s.b.Claim(ctx, key, co)
		var ce *ClaimedError
		if !errors.As(err, &ce) || ce.Watch <= 0 || !ce.Heartbeat.Equal(first.Heartbeat) || time.Now().After(deadline) {
			if err == nil {
				watched = fmt.Sprintf("the claim of %s, its heartbeat %s ahead of this clock, stood still for %s: taken over",
					first.Holder, time.Until(first.Heartbeat).Round(time.Second), time.Since(start).Round(time.Second))
			}
			return c, watched, err
		}
	}
}

// replay reads and replays the log of run key.
func (s *records) replay(ctx context.Context, key string) (*Replayed, *Log, error) {
	log, err := s.b.ReadEvents(ctx, key)
	if err != nil {
		return nil, nil, err
	}
	rep, err := Replay(s.b.Where(key), log.Events, math.MaxInt)
	return rep, log, err
}

// locate finds the key of the run ref names; "" is the newest run.
func (s *records) locate(ctx context.Context, ref string) (string, error) {
	if ref != "" {
		return s.b.Locate(ctx, ref)
	}
	runs, err := s.list(ctx)
	if err != nil {
		return "", err
	}
	if len(runs) == 0 {
		return "", fmt.Errorf("finding the newest run: %w %s", ErrNoRun, s.b.Where(""))
	}
	return runs[0].key, nil
}

// Status reads the run ref names without changing anything.
func (s *records) Status(ref string) (*Summary, error) {
	ctx := context.Background()
	key, err := s.locate(ctx, ref)
	if err != nil {
		return nil, err
	}
	return s.summary(ctx, key)
}

// summary is what the record of run key says, as a reader should see it:
// a run marked running whose claim is gone or stale is interrupted.
func (s *records) summary(ctx context.Context, key string) (*Summary, error) {
	rep, _, err := s.replay(ctx, key)
	if err != nil {
		return nil, err
	}
	p := rep.Progress
	where := s.b.Where(key)
	sum := &Summary{ID: p.RunID, Skill: p.Skill, Dir: where, State: p.RunState, StepsDone: p.StepsDone(), Progress: p,
		WorkDir: cmp.Or(rep.WorkDir, where), LastState: rep.State}
	if sum.Holder, err = s.b.Holder(ctx, key); err != nil {
		return nil, err
	}
	if !sum.State.Terminal() && sum.State != RunPending && sum.Holder == "" {
		sum.State = RunInterrupted
	}
	return sum, nil
}

// keyed is a run's summary with its backend key.
type keyed struct {
	*Summary
	key string
}

// List returns every run that reads, newest first: a record that does not
// is passed over.
func (s *records) List() ([]*Summary, error) {
	runs, err := s.list(context.Background())
	out := make([]*Summary, len(runs))
	for i, r := range runs {
		out[i] = r.Summary
	}
	return out, err
}

func (s *records) list(ctx context.Context) ([]keyed, error) {
	keys, err := s.b.List(ctx)
	if err != nil {
		return nil, err
	}
	var out []keyed
	for _, k := range keys {
		if sum, err := s.summary(ctx, k); err == nil {
			out = append(out, keyed{sum, k})
		}
	}
	slices.SortFunc(out, func(a, b keyed) int {
		return cmp.Or(b.Progress.StartedAt.Compare(a.Progress.StartedAt), strings.Compare(b.ID, a.ID))
	})
	return out, nil
}

// Events reads the events of the run ref names.
func (s *records) Events(ref string) ([]Event, error) {
	ctx := context.Background()
	key, err := s.locate(ctx, ref)
	if err != nil {
		return nil, err
	}
	log, err := s.b.ReadEvents(ctx, key)
	if err != nil {
		return nil, err
	}
	expand(log.Events)
	return log.Events, nil
}

// Metrics reads the metrics of the run ref names.
func (s *records) Metrics(ref string) ([]Metric, error) {
	ctx := context.Background()
	key, err := s.locate(ctx, ref)
	if err != nil {
		return nil, err
	}
	return s.b.ReadMetrics(ctx, key)
}
