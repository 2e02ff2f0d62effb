// Package worker is the musician of DESIGN §3.6: it claims tasks from the
// database with the guard clause, runs each with the normal lifecycle
// (package run, over the SQL store in the same database), heartbeats at
// every step boundary, stops at review checkpoints until the conductor
// answers, and leaves every task in a state of the specification's
// machine.
package worker

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/skillkit/skillkit/internal/agent"
	"github.com/skillkit/skillkit/internal/engine"
	"github.com/skillkit/skillkit/internal/run"
	"github.com/skillkit/skillkit/internal/runstore"
	"github.com/skillkit/skillkit/internal/runstore/sqlstore"
	"github.com/skillkit/skillkit/plan"
)

// Options configure a worker.
type Options struct {
	DB *sqlstore.DB
	// Name names the worker in the tasks it holds; several workers may
	// share none, so the default adds the pid and host.
	Name string
	// Concurrency is how many tasks it runs at once; zero is one.
	Concurrency int
	// UntilIdle stops the worker when no task is claimable and none of its
	// runs is active, instead of polling for more. A task whose run failed
	// is left in error for the conductor rather than waited on.
	UntilIdle bool
	// Poll is how often it looks for tasks and answers; zero is 2s.
	Poll time.Duration
	// WorkBase is where the work dirs of its runs go.
	WorkBase string
	// Load parses the skill a task names.
	Load func(skill string) (*plan.Skill, error)
	// Run is what every run of the worker shares (project dir, agent,
	// validation, claim timing); the task sets the skill, its inputs and
	// arguments, and the store. Its Agent also receives the review
	// messages.
	Run run.Options
	// Out receives one line per task transition.
	Out io.Writer
	// Outage is how long the worker retries a database that is away
	// before it exits; zero is DefaultOutage.
	Outage time.Duration
}

// Run works tasks until ctx ends or, with UntilIdle, none is claimable.
func Run(ctx context.Context, o Options) error {
	if o.Name == "" {
		host, _ := os.Hostname()
		o.Name = fmt.Sprintf("worker-%d@%s", os.Getpid(), host)
	}
	if o.Poll <= 0 {
		o.Poll = 2 * time.Second
	}
	if o.Out == nil {
		o.Out = io.Discard
	}
	if o.Outage <= 0 {
		o.Outage = DefaultOutage
	}
	w := &worker{o: o, held: map[string]bool{}}
	// The runs' record writes ride out the same outage as the worker's
	// own: a step that ended while the database restarts is recorded
	// once it is back, not failed.
	o.DB.RideOut(sqlstore.Outage{For: o.Outage, Say: w.printf})
	var wg sync.WaitGroup
	errs := make([]error, max(o.Concurrency, 1))
	for i := range errs {
		wg.Go(func() { errs[i] = w.slot(ctx) })
	}
	wg.Wait()
	if ctx.Err() != nil {
		return nil
	}
	return errors.Join(errs...)
}

type worker struct {
	o  Options
	mu sync.Mutex
	// held are the tasks its slots work.
	held map[string]bool
	// claiming serialises its slots' claims with the look for an orphan,
	// so that a task one slot just claimed and holds not yet is not
	// taken for one.
	claiming sync.Mutex
}

// hold notes that a slot works task id, or no longer does.
func (w *worker) hold(id string, on bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if on {
		w.held[id] = true
	} else {
		delete(w.held, id)
	}
}

// orphan is a task the database says this worker holds and no slot of
// it works: claimed by a try whose answer the database lost. It is held
// once found, so that one slot takes it.
func (w *worker) orphan(ctx context.Context) (*sqlstore.Task, error) {
	w.claiming.Lock()
	defer w.claiming.Unlock()
	tasks, err := w.o.DB.Tasks(ctx, sqlstore.Working)
	if err != nil {
		return nil, err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, t := range tasks {
		if t.Worker == w.o.Name && !w.held[t.ID] {
			w.held[t.ID] = true
			return t, nil
		}
	}
	return nil, nil
}

func (w *worker) printf(format string, args ...any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	fmt.Fprintf(w.o.Out, format, args...)
}

// slot claims and works tasks one at a time.
func (w *worker) slot(ctx context.Context) error {
	for ctx.Err() == nil {
		var t *sqlstore.Task
		var from sqlstore.TaskState
		// A claim that failed may have gone through: a task this worker
		// holds and no slot works is that one.
		orphan := func() (bool, error) {
			var err error
			if t, err = w.orphan(ctx); t != nil {
				from = sqlstore.Watching
				if t.Message != "" {
					from = sqlstore.FixProposed
				}
			}
			return t != nil, err
		}
		err := w.o.DB.RetryWrite(ctx, "claiming a task", orphan, func() (err error) {
			w.claiming.Lock()
			defer w.claiming.Unlock()
			t, from, err = w.o.DB.ClaimNext(ctx, w.o.Name)
			if t != nil {
				w.hold(t.ID, true)
			}
			return err
		})
		if err != nil {
			return err
		}
		if t == nil {
			if w.o.UntilIdle {
				return nil
			}
			select {
			case <-ctx.Done():
			case <-time.After(w.o.Poll):
			}
			continue
		}
		w.printf("%s: claimed (was %s)\n", t.ID, from)
		err = w.work(ctx, t, from)
		w.hold(t.ID, false)
		if errors.Is(err, sqlstore.ErrAway) {
			// Past the outage the worker exits, as it does when a claim
			// meets it: the task stays working, its run resumable, for
			// the conductor's recovery.
			return fmt.Errorf("%s: %w", t.ID, err)
		}
		if err != nil && ctx.Err() == nil {
			w.printf("%s: %v\n", t.ID, err)
		}
	}
	return nil
}

// task is one claimed task being worked.
type task struct {
	w *worker
	*sqlstore.Task
	// session names this hold of the task, for the fallback row.
	session string
	// rec is the run's record once open.
	rec runstore.Run
}

// work runs a task claimed from from to a state where its worker leaves
// it: complete, exited, or handed back (fix_proposed by the conductor).
func (w *worker) work(ctx context.Context, t *sqlstore.Task, from sqlstore.TaskState) error {
	var b [4]byte
	rand.Read(b[:])
	k := &task{w: w, Task: t, session: w.o.Name + "-" + hex.EncodeToString(b[:])}
	for {
		if from == sqlstore.ExitRequested {
			return k.exit(ctx, "")
		}
		switch {
		case from != sqlstore.FixProposed || t.Message == "":
		case sqlstore.IsHandOff(t.Message):
			// A recovery's or a stopped worker's hand-off: the run resumes
			// from its record, and an agent told to apply it would make
			// a call, and perhaps changes, for nothing.
			w.printf("%s: resuming: %s\n", t.ID, t.Message)
		default:
			k.tell(ctx, "The conductor proposes a fix", t.Message)
		}
		st, msg, err := k.run(ctx)
		if err != nil || st == "" {
			return err
		}
		// The run failed: error, and wait for the conductor.
		if err := k.move(ctx, sqlstore.Working, sqlstore.Error, msg); err != nil {
			return err
		}
		w.printf("%s: error: %s\n", t.ID, msg)
		if w.o.UntilIdle {
			// Waiting for the conductor is no work of this worker's: the
			// task stays in error, and once answered (fix_proposed) it is
			// claimable again, by this worker if it still runs.
			w.printf("%s: left in error for the conductor\n", t.ID)
			return nil
		}
		var nt *sqlstore.Task
		err = w.o.DB.Retry(ctx, "waiting for the conductor", func() (err error) {
			nt, err = w.o.DB.Wait(ctx, t.ID, w.o.Name, sqlstore.Error, w.o.Poll)
			return err
		})
		if err != nil {
			return err
		}
		if from, err = k.reclaim(ctx, nt); err != nil {
			return err
		}
	}
}

// run runs or resumes the task's run. It returns the empty state when the
// task reached a state its worker leaves it in, or Error with why the run
// failed.
func (k *task) run(ctx context.Context) (sqlstore.TaskState, string, error) {
	s, err := k.w.o.Load(k.Skill)
	if err != nil {
		// No run record can hold it: the task's error says it, under the
		// worker lifecycle's name.
		return sqlstore.Error, run.LoadFailed + ": " + err.Error(), nil
	}
	o := k.w.o.Run
	o.Skill, o.Inputs, o.Args = s, k.Inputs, k.Args
	o.Store = &tracking{Store: k.w.o.DB.TaskStore(k.w.o.WorkBase, k.ID), k: k}
	if k.RunID != "" {
		o.Resume, o.Inputs, o.Args = k.RunID, nil, nil
		sum, err := o.Store.Status(k.RunID)
		if err != nil {
			return sqlstore.Error, err.Error(), nil
		}
		if sum.State == runstore.RunCompleted {
			return "", "", k.finish(ctx)
		}
		o.Retry = sum.State.Retryable()
	}
	rctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	reviews := reviewPoints(s)
	o.Observe = func(e runstore.Event) { k.observe(rctx, stop, reviews, e) }
	_, err = run.Run(rctx, o)
	for held := (*runstore.ClaimedError)(nil); errors.As(err, &held) && rctx.Err() == nil; {
		// The run is still claimed by the worker the conductor recovered
		// the task from: its claim goes stale within its timeout.
		select {
		case <-rctx.Done():
		case <-time.After(k.w.o.Poll):
		}
		if _, herr := k.w.o.DB.Heartbeat(rctx, k.ID, k.w.o.Name); herr != nil {
			return "", "", herr
		}
		_, err = run.Run(rctx, o)
	}
	if cause := context.Cause(rctx); errors.Is(cause, errLeft) {
		// The task went on without this run: exited, or another worker's.
		return "", "", nil
	}
	if ctx.Err() != nil {
		// The worker is stopping, and its run stopped resumable: the task
		// goes back at once for the next worker, rather than stay working
		// until the conductor's recovery finds its heartbeat stale. A
		// database that does not answer within releaseWait leaves that
		// to the recovery.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseWait)
		defer cancel()
		if err := k.w.o.DB.Release(rctx, k.ID, k.w.o.Name); err != nil {
			k.w.printf("%s: left working for the conductor's recovery: %v\n", k.ID, err)
		} else {
			k.w.printf("%s: released (fix_proposed): the worker stopped\n", k.ID)
		}
		return "", "", ctx.Err()
	}
	if errors.Is(err, sqlstore.ErrAway) {
		// The run stopped resumable because the database stayed away (a
		// restart, a full disk): no fault of the task's, which stays
		// working, and the worker exits.
		return "", "", err
	}
	if full := (*agent.ContextError)(nil); errors.As(err, &full) {
		// The musician specification's context exhaustion: the run
		// stopped resumable, and the task hands off.
		return "", "", k.exit(ctx, full.Error())
	}
	if err != nil {
		return sqlstore.Error, err.Error(), nil
	}
	k.w.printf("%s: run %s completed\n", k.ID, k.RunID)
	return "", "", k.finish(ctx)
}

// finish ends a task whose run completed: complete, or, with a completion
// review, once the conductor approved the whole (seeds/003: complete is
// all steps done and the conductor's approval). Its rejection or fix goes
// to the agent and the task is submitted again, as at a step's review.
func (k *task) finish(ctx context.Context) error {
	if k.Review != sqlstore.ReviewCompletion {
		return k.move(ctx, sqlstore.Working, sqlstore.Complete, "")
	}
	err := k.submit(ctx, "the completion of run "+k.RunID)
	if errors.Is(err, errLeft) {
		return nil
	}
	if err != nil {
		return err
	}
	// The conductor's approval completes the task in the database; an
	// approval the database took for a step's (the run's record did not
	// read) left it working, approved: the worker completes it.
	t, err := k.w.o.DB.Task(ctx, k.ID)
	if err != nil || t.State != sqlstore.Working {
		return err
	}
	return k.move(ctx, sqlstore.Working, sqlstore.Complete, "")
}

// releaseWait bounds how long a stopping worker tries to hand its task
// back: a stop must not wait out a database outage.
const releaseWait = 5 * time.Second

// errLeft stops a run whose task this worker no longer holds.
var errLeft = errors.New("the task left this worker")

// observe heartbeats at every step boundary and stops at checkpoints.
// A boundary within the run's heartbeat interval of the task's last beat
// (its claim, say) keeps that one: it is as fresh as the run's own claim
// is ever kept, and nobody moves a working task but the recovery of a
// stale one. A task of short steps wrote two beats per step, each a round
// trip and a commit.
func (k *task) observe(ctx context.Context, stop context.CancelCauseFunc, reviews map[string]bool, e runstore.Event) {
	if e.Step == "" || (e.From != "" && e.Record == nil) {
		return
	}
	if time.Since(k.Heartbeat) >= k.w.o.Run.Claim.Timing().Heartbeat {
		t, err := k.w.o.DB.Heartbeat(ctx, k.ID, k.w.o.Name)
		if err == nil && (t.State != sqlstore.Working || t.Worker != k.w.o.Name) {
			stop(errLeft)
			return
		}
		if err == nil {
			k.Heartbeat = t.Heartbeat
		}
	}
	if e.Record != nil && e.Record.Done() && reviews[e.Step] {
		if err := k.submit(ctx, "step "+e.Step+" "+e.Record.Title); err != nil {
			stop(errLeft)
		}
	}
}

// submit submits what (a step, or the completion of the run) for review
// and waits for the conductor: approved goes on (at a step) or is
// complete (the completion, which the conductor's approval ends); failed
// or a proposed fix hands the message to the agent and submits again; an
// exit request hands off.
func (k *task) submit(ctx context.Context, what string) error {
	from := sqlstore.Working
	for {
		if err := k.move(ctx, from, sqlstore.NeedsReview, "review "+what); err != nil {
			return err
		}
		k.w.printf("%s: needs_review at %s\n", k.ID, what)
		t, err := k.w.o.DB.Wait(ctx, k.ID, k.w.o.Name, sqlstore.NeedsReview, k.w.o.Poll)
		if err != nil {
			return err
		}
		k.w.printf("%s: %s\n", k.ID, t.State)
		switch t.State {
		case sqlstore.Complete:
			return nil
		case sqlstore.ReviewApproved:
			return k.move(ctx, sqlstore.ReviewApproved, sqlstore.Working, "")
		case sqlstore.ReviewFailed:
			k.tell(ctx, "The review of "+what+" failed", t.Message)
			from = sqlstore.ReviewFailed
		default:
			got, err := k.reclaim(ctx, t)
			if err != nil {
				return err
			}
			if got == sqlstore.ExitRequested {
				if err := k.exit(ctx, ""); err != nil {
					return err
				}
				return errLeft
			}
			k.tell(ctx, "The conductor proposes a fix to "+what, t.Message)
			from = sqlstore.Working
		}
	}
}

// reclaim takes the task back after the conductor made it claimable
// (fix_proposed, exit_requested), with the guard clause like any claim: a
// worker that lost the race leaves the task to the winner.
func (k *task) reclaim(ctx context.Context, t *sqlstore.Task) (sqlstore.TaskState, error) {
	if t.State != sqlstore.FixProposed && t.State != sqlstore.ExitRequested {
		return "", fmt.Errorf("task %s went %s while this worker waited: %w", k.ID, t.State, errLeft)
	}
	if err := k.w.o.DB.Claim(ctx, k.ID, k.w.o.Name, k.session); err != nil {
		return "", err
	}
	k.Message = t.Message
	return t.State, nil
}

// exit hands the task off: its message says where the run stands and
// why it exits (empty on the conductor's request), for whoever takes the
// work up, and the task ends exited.
func (k *task) exit(ctx context.Context, why string) error {
	msg := "hand-off: no run started"
	if k.RunID != "" {
		msg = "hand-off: run " + k.RunID
		if sum, err := k.w.o.DB.Store(k.w.o.WorkBase).Status(k.RunID); err == nil {
			// The reason, when there is one, says more than the last
			// action, which the run's stop already holds.
			msg += fmt.Sprintf(", %d/%d steps done, %s", sum.StepsDone, sum.Progress.TotalSteps, cmp.Or(why, sum.Progress.LastAction))
		}
	}
	k.w.printf("%s: exited (%s)\n", k.ID, msg)
	return k.move(ctx, sqlstore.Working, sqlstore.Exited, msg)
}

// tell hands a message of the conductor to the agent, in the run's work
// dir; without an agent the message is only in the run's log.
func (k *task) tell(ctx context.Context, what, msg string) {
	if k.rec != nil {
		k.rec.Log("review", what+": "+msg+"\n")
	}
	if k.w.o.Run.Agent == nil {
		return
	}
	a := *k.w.o.Run.Agent
	a.Session = nil
	if k.rec != nil {
		a.Dir = k.rec.WorkDir()
	}
	p := &agent.Prompt{Request: agent.RequestStep}
	p.Note("REVIEW", what+":\n"+msg)
	p.Note("RETURN", "Apply it in the work dir, then report what you changed.")
	if _, err := a.Ask(ctx, p); err != nil {
		k.w.printf("%s: the agent did not take the message: %v\n", k.ID, err)
	}
}

// reviewPoints are the ids of the steps marked "- **Review**: required".
func reviewPoints(s *plan.Skill) map[string]bool {
	out := map[string]bool{}
	for _, ph := range s.Phases {
		for i, st := range ph.Steps {
			if st.Attrs.Review != nil {
				out[engine.StepID(ph.ID(), i)] = true
			}
		}
	}
	return out
}

// tracking is the SQL store as the task's run uses it: the task's store
// records the run it creates on the task (DB.TaskStore), and the task
// keeps the run it opened for the messages it hands the agent.
type tracking struct {
	runstore.Store
	k *task
}

func (s *tracking) Create(n runstore.NewRun, c runstore.ClaimOptions) (runstore.Run, error) {
	r, err := s.Store.Create(n, c)
	return s.opened(r, err)
}

func (s *tracking) Resume(ref string, o runstore.ResumeOptions) (runstore.Run, error) {
	r, err := s.Store.Resume(ref, o)
	return s.opened(r, err)
}

func (s *tracking) opened(r runstore.Run, err error) (runstore.Run, error) {
	if err != nil {
		return nil, err
	}
	s.k.rec, s.k.RunID = r, r.ID()
	return r, nil
}
