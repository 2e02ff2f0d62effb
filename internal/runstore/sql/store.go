package sql

import (
	"cmp"
	"context"
	"crypto/rand"
	dbsql "database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/skillkit/skillkit/internal/runstore"
)

// DefaultWorkBase is where a worker keeps the work dirs of the runs it
// runs, under the current directory: <base>/<skill>/<run-id>.
const DefaultWorkBase = ".skillkit/work"

// Store is the SQL store of runs, over an open DB.
type Store struct {
	db *DB
	// base is where work dirs are made.
	base string
}

var _ runstore.Store = (*Store)(nil)

// Store returns the store of runs of the database, making work dirs under
// workBase (DefaultWorkBase when empty).
func (d *DB) Store(workBase string) *Store {
	return &Store{db: d, base: cmp.Or(workBase, DefaultWorkBase)}
}

// ctx is the context of the store's statements: the interface of the
// seam has none, and a statement must not be cut short half-way by a
// run's cancellation (the record would miss the run's last transition).
var ctx = context.Background()

// Create records a new run and claims it.
func (s *Store) Create(n runstore.NewRun, co runstore.ClaimOptions) (runstore.Run, error) {
	start := n.Start
	dir := n.WorkDir
	if dir == "" {
		var err error
		if dir, err = runstore.DirUnder(s.base, start.Skill, start.RunID); err != nil {
			return nil, fmt.Errorf("creating run: %w", err)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, &runstore.WriteError{Err: fmt.Errorf("creating run: %w", err)}
	}
	dir = abs(dir)
	start.WorkDir = dir
	c := newClaim(co)
	now := time.Now()
	err := s.db.tx(ctx, func(tx *dbsql.Tx) error {
		var one int
		err := tx.QueryRowContext(ctx, s.db.q(`SELECT 1 FROM runs WHERE id = ?`), start.RunID).Scan(&one)
		if err == nil {
			return fmt.Errorf("creating run %s: %w", start.RunID, runstore.ErrExists)
		}
		if !errors.Is(err, dbsql.ErrNoRows) {
			return err
		}
		_, err = tx.ExecContext(ctx, s.db.q(`INSERT INTO runs (id, skill, started_at, work_dir, holder, token, claimed_at, heartbeat, timeout_ms)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`),
			start.RunID, start.Skill, ms(start.StartedAt), dir, c.holder, c.token, ms(now), ms(now), c.timeout.Milliseconds())
		return err
	})
	if err != nil {
		if errors.Is(err, runstore.ErrExists) {
			return nil, err
		}
		return nil, &runstore.WriteError{Err: fmt.Errorf("creating run %s: %v", start.RunID, oneLine(err))}
	}
	r := s.open(start.RunID, dir, c)
	r.SetState(n.State)
	// state.json exists before the first step, as in the filesystem store.
	if err := r.Flush(); err != nil {
		r.Close()
		return nil, err
	}
	if err := r.Commit(runstore.Event{Time: start.StartedAt, To: string(runstore.RunPending), Detail: start.Skill, Start: &start}); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// open makes the run value of a claimed run and starts its heartbeat.
func (s *Store) open(id, work string, c *claim) *run {
	r := &run{s: s, id: id, work: work, claim: c, lost: make(chan struct{}), stop: make(chan struct{}), done: make(chan struct{})}
	go r.beat()
	return r
}

// Resume claims the run ref names and rebuilds it from its events.
func (s *Store) Resume(ref string, o runstore.ResumeOptions) (runstore.Run, error) {
	id, err := s.locate(ref)
	if err != nil {
		return nil, err
	}
	c := newClaim(o.Claim)
	if err := s.acquire(id, c); err != nil {
		return nil, err
	}
	release := func() { s.release(id, c.token) }
	rec, err := s.replay(id)
	if err != nil {
		release()
		return nil, err
	}
	p := rec.progress
	if p.RunState.Terminal() && !(o.Retry && p.RunState.Retryable()) {
		release()
		hint := ""
		if p.RunState.Retryable() {
			hint = "; after a fix, run it again from where it stopped with --retry"
		}
		return nil, fmt.Errorf("resuming run %s: it is %s: %w%s", p.RunID, p.RunState, runstore.ErrTerminal, hint)
	}
	// The recorded work dir is used where it exists (this machine made
	// it, or it is on a shared mount); elsewhere the run continues in a
	// work dir of this worker's.
	work := rec.workDir
	if st, err := os.Stat(work); work == "" || err != nil || !st.IsDir() {
		if work, err = runstore.DirUnder(s.base, p.Skill, id); err != nil {
			release()
			return nil, fmt.Errorf("resuming run %s: %w", id, err)
		}
		work = abs(work)
		if err := os.MkdirAll(work, 0o755); err != nil {
			release()
			return nil, &runstore.WriteError{Err: fmt.Errorf("resuming run %s: %w", id, err)}
		}
	}
	r := s.open(id, work, c)
	r.progress, r.state, r.seq, r.taken = p, rec.state, rec.seq, rec.taken
	r.stale = true
	// Metrics and logs number on from the rows the run has.
	err = s.db.db.QueryRowContext(ctx, s.db.q(`SELECT COALESCE(MAX(seq), 0) FROM metrics WHERE run_id = ?`), id).Scan(&r.metricSeq)
	if err == nil {
		err = s.db.db.QueryRowContext(ctx, s.db.q(`SELECT COALESCE(MAX(seq), 0) FROM logs WHERE run_id = ?`), id).Scan(&r.logSeq)
	}
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("resuming run %s: %s", id, oneLine(err))
	}
	if err := r.Flush(); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// locate finds the run ref names: its id, or the newest run for "".
func (s *Store) locate(ref string) (string, error) {
	var id string
	var err error
	if ref == "" {
		err = s.db.db.QueryRowContext(ctx, `SELECT id FROM runs ORDER BY started_at DESC, id DESC LIMIT 1`).Scan(&id)
	} else {
		err = s.db.db.QueryRowContext(ctx, s.db.q(`SELECT id FROM runs WHERE id = ?`), ref).Scan(&id)
	}
	switch {
	case errors.Is(err, dbsql.ErrNoRows) && ref == "":
		return "", fmt.Errorf("finding the newest run: %w in %s", runstore.ErrNoRun, s.db.Redacted())
	case errors.Is(err, dbsql.ErrNoRows):
		return "", fmt.Errorf("finding run %q: %w with that id in %s", ref, runstore.ErrNoRun, s.db.Redacted())
	case err != nil:
		return "", fmt.Errorf("finding run %q: %v", ref, oneLine(err))
	}
	return id, nil
}

// record is what a run's events say.
type record struct {
	progress runstore.Progress
	state    map[string]any
	workDir  string
	// seq is the last event's number, taken the checkpoints counted.
	seq   int64
	taken int
}

// replay folds the run's events into its progress and state, as the
// filesystem store folds events.jsonl.
func (s *Store) replay(id string) (*record, error) {
	rows, err := s.db.db.QueryContext(ctx, s.db.q(`SELECT seq, body FROM events WHERE run_id = ? ORDER BY seq`), id)
	if err != nil {
		return nil, fmt.Errorf("reading run %s: %v", id, oneLine(err))
	}
	defer rows.Close()
	rec := &record{}
	var st json.RawMessage
	for rows.Next() {
		var body string
		if err := rows.Scan(&rec.seq, &body); err != nil {
			return nil, err
		}
		var e runstore.Event
		if err := json.Unmarshal([]byte(body), &e); err != nil {
			return nil, fmt.Errorf("run %s event %d: %w: %v", id, rec.seq, runstore.ErrCorrupt, err)
		}
		if e.Start != nil {
			rec.workDir = e.Start.WorkDir
		}
		rec.progress.Apply(&e)
		if e.State != nil {
			st = e.State
		}
		if e.Checkpoint != nil {
			rec.taken++
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading run %s: %v", id, oneLine(err))
	}
	if rec.seq == 0 {
		return nil, fmt.Errorf("opening run %s: %w (it holds no event)", id, runstore.ErrNoRun)
	}
	rec.state = map[string]any{}
	if st != nil {
		if err := json.Unmarshal(st, &rec.state); err != nil {
			return nil, fmt.Errorf("run %s: %w: the last recorded state: %v", id, runstore.ErrCorrupt, err)
		}
	}
	return rec, nil
}

// Status reads the run ref names without claiming it.
func (s *Store) Status(ref string) (*runstore.Summary, error) {
	id, err := s.locate(ref)
	if err != nil {
		return nil, err
	}
	return s.status(id)
}

func (s *Store) status(id string) (*runstore.Summary, error) {
	rec, err := s.replay(id)
	if err != nil {
		return nil, err
	}
	p := rec.progress
	sum := &runstore.Summary{ID: id, Skill: p.Skill, Dir: s.where(id), State: p.RunState, StepsDone: p.StepsDone(),
		Progress: p, WorkDir: rec.workDir, LastState: rec.state}
	var holder dbsql.NullString
	var beat, timeout dbsql.NullInt64
	if err := s.db.db.QueryRowContext(ctx, s.db.q(`SELECT holder, heartbeat, timeout_ms FROM runs WHERE id = ? AND token IS NOT NULL`), id).
		Scan(&holder, &beat, &timeout); err == nil && time.Since(fromMS(beat.Int64)) <= time.Duration(timeout.Int64)*time.Millisecond {
		sum.Holder = holder.String
	}
	if !sum.State.Terminal() && sum.State != runstore.RunPending && sum.Holder == "" {
		sum.State = runstore.RunInterrupted
	}
	return sum, nil
}

// List returns every run, newest first.
func (s *Store) List() ([]*runstore.Summary, error) {
	rows, err := s.db.db.QueryContext(ctx, `SELECT id FROM runs ORDER BY started_at DESC, id DESC`)
	if err != nil {
		return nil, fmt.Errorf("listing runs: %v", oneLine(err))
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, err
		}
		ids = append(ids, id)
	}
	rows.Close()
	var out []*runstore.Summary
	for _, id := range ids {
		if sum, err := s.status(id); err == nil {
			out = append(out, sum)
		}
	}
	return out, nil
}

// where names a run's record for a person.
func (s *Store) where(id string) string { return s.db.Redacted() + "#" + id }

// claim is this process's claim of a run.
type claim struct {
	token, holder      string
	heartbeat, timeout time.Duration
}

func newClaim(o runstore.ClaimOptions) *claim {
	var tok [8]byte
	rand.Read(tok[:])
	host, _ := os.Hostname()
	return &claim{
		token: hex.EncodeToString(tok[:]), holder: fmt.Sprintf("%d@%s", os.Getpid(), host),
		heartbeat: cmp.Or(o.Heartbeat, runstore.DefaultHeartbeat), timeout: cmp.Or(o.Timeout, runstore.DefaultClaimTimeout),
	}
}

// acquire claims the run in one guarded statement: it matches when nobody
// holds the run or the holder's heartbeat is older than its timeout, so
// of two claimers exactly one wins.
func (s *Store) acquire(id string, c *claim) error {
	now := time.Now()
	res, err := s.db.exec(ctx, `UPDATE runs SET holder = ?, token = ?, claimed_at = ?, heartbeat = ?, timeout_ms = ?
		WHERE id = ? AND (token IS NULL OR heartbeat + timeout_ms < ?)`,
		c.holder, c.token, ms(now), ms(now), c.timeout.Milliseconds(), id, ms(now))
	if err != nil {
		return &runstore.WriteError{Err: fmt.Errorf("claiming run %s: %v", id, oneLine(err))}
	}
	if n, _ := res.RowsAffected(); n == 1 {
		return nil
	}
	var holder string
	var claimed, beat int64
	if err := s.db.db.QueryRowContext(ctx, s.db.q(`SELECT holder, claimed_at, heartbeat FROM runs WHERE id = ?`), id).Scan(&holder, &claimed, &beat); err != nil {
		return fmt.Errorf("claiming run %s: %v", id, oneLine(err))
	}
	return &runstore.ClaimedError{Where: s.where(id), Holder: holder, Started: fromMS(claimed), Heartbeat: fromMS(beat)}
}

// release gives the claim up if it is still this one.
func (s *Store) release(id, token string) error {
	if _, err := s.db.exec(ctx, `UPDATE runs SET holder = NULL, token = NULL WHERE id = ? AND token = ?`, id, token); err != nil {
		return fmt.Errorf("releasing run %s: %v", id, oneLine(err))
	}
	return nil
}

func abs(dir string) string {
	if a, err := filepath.Abs(dir); err == nil {
		return a
	}
	return dir
}
