package sqlstore

import (
	"cmp"
	"context"
	dbsql "database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/skillkit/skillkit/internal/proc"
	"github.com/skillkit/skillkit/internal/runstore"
)

// DefaultWorkBase is where a worker keeps the work dirs of the runs it
// runs, under the current directory: <base>/<skill>/<run-id>.
const DefaultWorkBase = ".skillkit/work"

// Backend is the SQL backend of runs, over an open DB: a run's key is its
// id.
type Backend struct {
	db *DB
	// base is where work dirs are made.
	base string
	// task is the task whose runs these are, if any: a run created is
	// recorded on it (TaskStore).
	task string
}

var _ runstore.Backend = (*Backend)(nil)

// Store returns the store of runs of the database, making work dirs under
// workBase (DefaultWorkBase when empty).
func (d *DB) Store(workBase string) runstore.Store {
	return runstore.NewStore(d.Backend(workBase), runstore.Options{})
}

// TaskStore is Store for the runs of task id: the run it creates is
// recorded on the task in the same transaction, so that whoever takes the
// task over resumes that run.
func (d *DB) TaskStore(workBase, id string) runstore.Store {
	b := d.Backend(workBase)
	b.task = id
	return runstore.NewStore(b, runstore.Options{})
}

// Backend returns the backend of the store of runs of the database.
func (d *DB) Backend(workBase string) *Backend {
	return &Backend{db: d, base: cmp.Or(workBase, DefaultWorkBase)}
}

// Create records a new run and claims it.
func (b *Backend) Create(ctx context.Context, n runstore.NewRun, co runstore.ClaimOptions) (*runstore.Claimed, error) {
	start := n.Start
	dir, err := runstore.NewRunDir(b.base, n)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, &runstore.WriteError{Err: fmt.Errorf("creating run: %w", err)}
	}
	dir = abs(dir)
	c := newClaim(co)
	now := c.now()
	err = b.db.RetryWrite(ctx, "creating run "+start.RunID, func() (bool, error) { return b.db.holds(ctx, start.RunID, c.token) }, func() error {
		return b.insert(ctx, []any{start.RunID, start.Skill, ms(start.StartedAt), dir, c.holder, c.token, ms(now), ms(now), c.timeout.Milliseconds()})
	})
	if err != nil {
		if errors.Is(err, runstore.ErrExists) {
			return nil, err
		}
		return nil, &runstore.WriteError{Err: fmt.Errorf("creating run %s: %v", start.RunID, oneLine(err))}
	}
	return &runstore.Claimed{Handle: b.open(start.RunID, c), Key: start.RunID, WorkDir: dir}, nil
}

// insertRun inserts a run's row (placeholders: id, skill, started_at,
// work_dir, holder, token, claimed_at, heartbeat, timeout_ms); a run id
// already taken inserts nothing.
const insertRun = `INSERT INTO runs (id, skill, started_at, work_dir, holder, token, claimed_at, heartbeat, timeout_ms)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`

// setTaskRun records the run of a task (placeholders: run id, task id).
const setTaskRun = `UPDATE tasks SET run_id = ? WHERE id = ?`

// insert writes a new run's row, and the run on the backend's task, in one
// transaction: a task never names a run that is not there, nor loses the
// run it started. On PostgreSQL it is one statement, one round trip, where
// a read of the id, the insert and then the task's update took six.
func (b *Backend) insert(ctx context.Context, run []any) error {
	exists := fmt.Errorf("creating run %s: %w", run[0], runstore.ErrExists)
	if b.db.dialect == postgres {
		var n int
		err := b.db.db.QueryRowContext(ctx, b.db.q(`WITH run AS (`+insertRun+` RETURNING id),
			task AS (UPDATE tasks SET run_id = run.id FROM run WHERE tasks.id = ?)
			SELECT count(*) FROM run`), append(run, b.task)...).Scan(&n)
		if err == nil && n != 1 {
			return exists
		}
		return err
	}
	return b.db.tx(ctx, func(tx *dbsql.Tx) error {
		res, err := b.db.txExec(ctx, tx, insertRun, run...)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return exists
		}
		if b.task != "" {
			_, err = b.db.txExec(ctx, tx, setTaskRun, run[0], b.task)
		}
		return err
	})
}

func (b *Backend) open(id string, c *claim) *handle {
	return &handle{db: b.db, id: id, claim: c}
}

// Claim claims run id: it reads the claim, judges it by this process's
// clock (runstore.Lease), and takes it in one statement guarded by the
// token and heartbeat it read, so that of two claimers exactly one wins
// and a holder that beat meanwhile keeps its run; a claim that changed
// between the read and the takeover is judged again (maxClaimTries). The
// process groups a stale holder on this host left running are killed.
func (b *Backend) Claim(ctx context.Context, id string, co runstore.ClaimOptions) (*runstore.Claimed, error) {
	c := newClaim(co)
	for try := 1; ; try++ {
		l, started, err := b.readLease(ctx, id)
		if err != nil {
			return nil, err
		}
		if l.Token != "" && !l.Stale(time.Now()) {
			return nil, l.Claimed(b.Where(id), started)
		}
		took, err := b.take(ctx, id, c, l)
		if err != nil {
			return nil, err
		}
		if took {
			break
		}
		// Another claimer won, or the holder's heartbeat moved since it
		// was read: it is judged again. A holder killed with a heartbeat
		// under way moves it after its death (the server runs a statement
		// whose client is gone): it is still stale, and is taken over.
		if try == maxClaimTries {
			l, started, err := b.readLease(ctx, id)
			if err != nil {
				return nil, err
			}
			return nil, l.Claimed(b.Where(id), started)
		}
	}
	if err := b.db.Retry(ctx, "claiming run "+id, func() error { return b.killGroups(ctx, id) }); err != nil {
		b.db.exec(ctx, `UPDATE runs SET holder = NULL, token = NULL WHERE id = ? AND token = ?`, id, c.token)
		return nil, &runstore.WriteError{Err: fmt.Errorf("claiming run %s: %v", id, oneLine(err))}
	}
	h := b.open(id, c)
	if err := b.db.Retry(ctx, "resuming run "+id, func() error { return h.numberOn(ctx) }); err != nil {
		h.Release(ctx, false)
		return nil, err
	}
	return &runstore.Claimed{Handle: h, Key: id}, nil
}

// maxClaimTries is how many times Claim reads and judges a claim whose
// guarded takeover found it changed.
const maxClaimTries = 3

// take takes run id for c in one statement guarded by the claim l it
// read: the token and heartbeat, or no claim at all. It reports whether
// the statement took it.
func (b *Backend) take(ctx context.Context, id string, c *claim, l runstore.Lease) (bool, error) {
	guard, args := `token IS NULL`, []any{}
	if l.Token != "" {
		guard, args = `token = ? AND heartbeat = ?`, []any{l.Token, ms(l.Heartbeat)}
	}
	now := ms(c.now())
	var n int64
	err := b.db.RetryWrite(ctx, "claiming run "+id, func() (bool, error) {
		ok, err := b.db.holds(ctx, id, c.token)
		if ok {
			n = 1
		}
		return ok, err
	}, func() error {
		res, err := b.db.exec(ctx, `UPDATE runs SET holder = ?, token = ?, claimed_at = ?, heartbeat = ?, timeout_ms = ? WHERE id = ? AND `+guard,
			append([]any{c.holder, c.token, now, now, c.timeout.Milliseconds(), id}, args...)...)
		if err == nil {
			n, _ = res.RowsAffected()
		}
		return err
	})
	if err != nil {
		return false, &runstore.WriteError{Err: fmt.Errorf("claiming run %s: %v", id, oneLine(err))}
	}
	return n == 1, nil
}

// killGroups kills the process groups of run id recorded on this host,
// and forgets them: whatever a holder killed with SIGKILL left running
// would run beside the steps run again now.
func (b *Backend) killGroups(ctx context.Context, id string) error {
	host := runstore.Hostname()
	rows, err := b.db.db.QueryContext(ctx, b.db.q(`SELECT pgid FROM process_groups WHERE run_id = ? AND host = ?`), id, host)
	if err != nil {
		return err
	}
	var groups []int
	for rows.Next() {
		var pgid int
		if err := rows.Scan(&pgid); err != nil {
			rows.Close()
			return err
		}
		groups = append(groups, pgid)
	}
	rows.Close()
	for _, pgid := range groups {
		proc.KillGroup(pgid)
	}
	_, err = b.db.exec(ctx, `DELETE FROM process_groups WHERE run_id = ? AND host = ?`, id, host)
	return err
}

// Locate finds the run ref names: by its id, or by its work dir (the
// newest run that worked there).
func (b *Backend) Locate(ctx context.Context, ref string) (id string, err error) {
	err = b.db.Retry(ctx, "finding run "+ref, func() (err error) {
		id, err = b.locate(ctx, ref)
		return err
	})
	return id, err
}

func (b *Backend) locate(ctx context.Context, ref string) (string, error) {
	var id string
	err := b.db.db.QueryRowContext(ctx, b.db.q(`SELECT id FROM runs WHERE id = ?`), ref).Scan(&id)
	if errors.Is(err, dbsql.ErrNoRows) {
		if st, serr := os.Stat(ref); serr == nil && st.IsDir() {
			err = b.db.db.QueryRowContext(ctx, b.db.q(`SELECT id FROM runs WHERE work_dir = ? ORDER BY started_at DESC, id DESC LIMIT 1`), abs(ref)).Scan(&id)
		}
	}
	switch {
	case errors.Is(err, dbsql.ErrNoRows):
		return "", fmt.Errorf("finding run %q: %w with that id in %s", ref, runstore.ErrNoRun, b.db.Redacted())
	case err != nil:
		return "", fmt.Errorf("finding run %q: %v", ref, oneLine(err))
	}
	return id, nil
}

// ReadEvents reads the events of run id, in order.
func (b *Backend) ReadEvents(ctx context.Context, id string) (*runstore.Log, error) {
	events, err := readBodies[runstore.Event](ctx, b.db, "events", id)
	if err != nil {
		return nil, err
	}
	return &runstore.Log{Events: events}, nil
}

// ReadMetrics reads the metrics of run id, in order.
func (b *Backend) ReadMetrics(ctx context.Context, id string) ([]runstore.Metric, error) {
	return readBodies[runstore.Metric](ctx, b.db, "metrics", id)
}

// readBodies decodes the JSON bodies of run id's rows of table, in order.
func readBodies[T any](ctx context.Context, d *DB, table, id string) (out []T, err error) {
	err = d.Retry(ctx, "reading run "+id, func() (err error) {
		out, err = readRows[T](ctx, d, table, id)
		return err
	})
	return out, err
}

func readRows[T any](ctx context.Context, d *DB, table, id string) ([]T, error) {
	rows, err := d.db.QueryContext(ctx, d.q(`SELECT seq, body FROM `+table+` WHERE run_id = ? ORDER BY seq`), id)
	if err != nil {
		return nil, fmt.Errorf("reading run %s: %v", id, oneLine(err))
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		var seq int64
		var body string
		if err := rows.Scan(&seq, &body); err != nil {
			return nil, err
		}
		var v T
		if err := json.Unmarshal([]byte(body), &v); err != nil {
			return nil, fmt.Errorf("run %s %s %d: %w: %v", id, table, seq, runstore.ErrCorrupt, err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading run %s: %v", id, oneLine(err))
	}
	return out, nil
}

// Holder is the holder of run id's claim while it is not stale.
func (b *Backend) Holder(ctx context.Context, id string) (string, error) {
	l, _, err := b.readLease(ctx, id)
	switch {
	case errors.Is(err, runstore.ErrNoRun):
		return "", nil
	case err != nil:
		return "", err
	case l.Token == "" || l.Stale(time.Now()):
		return "", nil
	}
	return l.Holder, nil
}

// readLease is lease, riding out an outage.
func (b *Backend) readLease(ctx context.Context, id string) (l runstore.Lease, started time.Time, err error) {
	err = b.db.Retry(ctx, "reading the claim of run "+id, func() (err error) {
		l, started, err = b.lease(ctx, id)
		return err
	})
	return l, started, err
}

// holds reports whether run id is claimed with token: a claim whose
// answer was lost went through, and a holder still holds its run.
func (d *DB) holds(ctx context.Context, id, token string) (bool, error) {
	var one int
	err := d.db.QueryRowContext(ctx, d.q(`SELECT 1 FROM runs WHERE id = ? AND token = ?`), id, token).Scan(&one)
	if errors.Is(err, dbsql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

// lease reads the claim of run id, with when its holder claimed it; a
// run nobody holds has no token.
func (b *Backend) lease(ctx context.Context, id string) (runstore.Lease, time.Time, error) {
	var holder, token dbsql.NullString
	var claimed, beat, timeout dbsql.NullInt64
	err := b.db.db.QueryRowContext(ctx, b.db.q(`SELECT holder, token, claimed_at, heartbeat, timeout_ms FROM runs WHERE id = ?`), id).
		Scan(&holder, &token, &claimed, &beat, &timeout)
	if errors.Is(err, dbsql.ErrNoRows) {
		return runstore.Lease{}, time.Time{}, fmt.Errorf("claiming run %s: %w", id, runstore.ErrNoRun)
	}
	if err != nil {
		return runstore.Lease{}, time.Time{}, fmt.Errorf("reading the claim of run %s: %v", id, oneLine(err))
	}
	return runstore.Lease{Holder: holder.String, Token: token.String, Heartbeat: fromMS(beat.Int64),
		Timeout: time.Duration(timeout.Int64) * time.Millisecond}, fromMS(claimed.Int64), nil
}

// WorkDir is the recorded work dir where it exists (this machine made
// it, or it is on a shared mount); elsewhere the run continues in a work
// dir of this worker's.
func (b *Backend) WorkDir(_ context.Context, id, recorded, skill string) (string, error) {
	if st, err := os.Stat(recorded); recorded != "" && err == nil && st.IsDir() {
		return recorded, nil
	}
	work, err := runstore.DirUnder(b.base, skill, id)
	if err != nil {
		return "", fmt.Errorf("resuming run %s: %w", id, err)
	}
	work = abs(work)
	if err := os.MkdirAll(work, 0o755); err != nil {
		return "", &runstore.WriteError{Err: fmt.Errorf("resuming run %s: %w", id, err)}
	}
	return work, nil
}

// List returns the ids of every run.
func (b *Backend) List(ctx context.Context) ([]string, error) {
	rows, err := b.db.db.QueryContext(ctx, `SELECT id FROM runs`)
	if err != nil {
		return nil, fmt.Errorf("listing runs: %v", oneLine(err))
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// Where names a run's record for a person.
func (b *Backend) Where(id string) string {
	if id == "" {
		return "in " + b.db.Redacted()
	}
	return b.db.Redacted() + "#" + id
}

// claim is this process's claim of a run.
type claim struct {
	token, holder string
	timeout       time.Duration
	// now is the holder's clock (runstore.ClaimOptions.Now).
	now func() time.Time
}

func newClaim(o runstore.ClaimOptions) *claim {
	return &claim{token: runstore.NewToken(), holder: runstore.Holder(os.Getpid(), o.HostName()), timeout: o.Timing().Timeout, now: o.Now}
}

func abs(dir string) string {
	if a, err := filepath.Abs(dir); err == nil {
		return a
	}
	return dir
}
