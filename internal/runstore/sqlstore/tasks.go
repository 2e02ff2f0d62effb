package sqlstore

import (
	"context"
	dbsql "database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/skillkit/skillkit/internal/runstore"
)

// TaskState is where a task is in the specification's state machine
// (seeds/003, DESIGN §3.6).
type TaskState string

// Task states. The worker (the musician) sets working, needs_review,
// error, complete and exited; the conductor (skillkit review, skillkit
// recover) sets the others. Complete and exited are final.
const (
	Watching       TaskState = "watching"
	Working        TaskState = "working"
	NeedsReview    TaskState = "needs_review"
	Error          TaskState = "error"
	Complete       TaskState = "complete"
	Exited         TaskState = "exited"
	ReviewApproved TaskState = "review_approved"
	ReviewFailed   TaskState = "review_failed"
	FixProposed    TaskState = "fix_proposed"
	ExitRequested  TaskState = "exit_requested"
)

// TaskStates returns every state, for validating a --state flag.
func TaskStates() []TaskState {
	return []TaskState{Watching, Working, NeedsReview, Error, Complete, Exited, ReviewApproved, ReviewFailed, FixProposed, ExitRequested}
}

// claimable is the guard clause of the claim, the specification's.
const claimable = `state IN ('watching', 'fix_proposed', 'exit_requested')`

// recoverable are the states a worker holds a task in: a task in one of
// them whose heartbeat is stale lost its worker.
const recoverable = `state IN ('working', 'needs_review', 'review_approved', 'review_failed', 'error')`

// ReviewMode says whether a task's end waits for the conductor.
type ReviewMode string

// Review modes. With ReviewCompletion a task whose run completed goes to
// needs_review, and the conductor's approval makes it complete
// (seeds/003: complete means the conductor approved); with ReviewNone it
// goes to complete when its run completes.
const (
	ReviewNone       ReviewMode = ""
	ReviewCompletion ReviewMode = "completion"
)

// Task is one row of the queue.
type Task struct {
	ID     string            `json:"id"`
	Skill  string            `json:"skill"`
	Inputs map[string]string `json:"inputs,omitempty"`
	Args   []string          `json:"args,omitempty"`
	State  TaskState         `json:"state"`
	// Review is whether its end waits for the conductor's approval.
	Review ReviewMode `json:"review,omitempty"`
	Worker string     `json:"worker,omitempty"`
	RunID  string     `json:"runId,omitempty"`
	// Message is the review message, the hand-off or the error: what the
	// last transition says to whoever acts next.
	Message   string    `json:"message,omitempty"`
	Heartbeat time.Time `json:"heartbeat,omitzero"`
	// Claims counts the claims of the task: more than one means it was
	// taken over or sent back.
	Claims  int       `json:"claims"`
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
}

// ErrNoTask is returned for a task id that names no task.
var ErrNoTask = errors.New("no such task")

// ErrTransition is returned for a transition the state machine does not
// have from the task's state, and for any change to a final task:
// refused by the database itself.
var ErrTransition = errors.New("transition not allowed")

// ErrClaimBlocked is returned when the guard clause blocked a claim: the
// task is not in a claimable state (someone else claimed it first).
var ErrClaimBlocked = errors.New("the task cannot be claimed in its state")

// AddTask queues a run of skill, in watching, whose end waits for the
// conductor when review is ReviewCompletion.
func (d *DB) AddTask(ctx context.Context, skill string, inputs map[string]string, args []string, review ReviewMode) (*Task, error) {
	now := time.Now()
	t := &Task{ID: "t" + runstore.NewID(now), Skill: skill, Inputs: inputs, Args: args, State: Watching, Review: review, Created: now, Updated: now}
	in, _ := json.Marshal(inputs)
	ar, _ := json.Marshal(args)
	if _, err := d.exec(ctx, `INSERT INTO tasks (id, skill, inputs, args, state, review, created_at, updated_at) VALUES (?, ?, ?, ?, 'watching', ?, ?, ?)`,
		t.ID, skill, string(in), string(ar), string(review), ms(now), ms(now)); err != nil {
		return nil, fmt.Errorf("adding task: %s", oneLine(err))
	}
	return t, nil
}

const taskColumns = `id, skill, inputs, args, state, review, worker, run_id, message, heartbeat, claims, created_at, updated_at`

// taskByID reads one task.
const taskByID = `SELECT ` + taskColumns + ` FROM tasks WHERE id = ?`

func scanTask(row rowScanner) (*Task, error) {
	var t Task
	var inputs, args string
	var worker, runID, msg dbsql.NullString
	var beat dbsql.NullInt64
	var created, updated int64
	if err := row.Scan(&t.ID, &t.Skill, &inputs, &args, &t.State, &t.Review, &worker, &runID, &msg, &beat, &t.Claims, &created, &updated); err != nil {
		return nil, err
	}
	json.Unmarshal([]byte(inputs), &t.Inputs)
	json.Unmarshal([]byte(args), &t.Args)
	t.Worker, t.RunID, t.Message = worker.String, runID.String, msg.String
	if beat.Valid {
		t.Heartbeat = fromMS(beat.Int64)
	}
	t.Created, t.Updated = fromMS(created), fromMS(updated)
	return &t, nil
}

// Task reads one task.
func (d *DB) Task(ctx context.Context, id string) (*Task, error) {
	t, err := scanTask(d.db.QueryRowContext(ctx, d.q(taskByID), id))
	if errors.Is(err, dbsql.ErrNoRows) {
		return nil, fmt.Errorf("task %s: %w", id, ErrNoTask)
	}
	if err != nil {
		return nil, fmt.Errorf("reading task %s: %s", id, oneLine(err))
	}
	return t, nil
}

// Tasks lists the tasks, oldest first; state "" lists all.
func (d *DB) Tasks(ctx context.Context, state TaskState) ([]*Task, error) {
	query, args := `SELECT `+taskColumns+` FROM tasks ORDER BY created_at, id`, []any{}
	if state != "" {
		query, args = `SELECT `+taskColumns+` FROM tasks WHERE state = ? ORDER BY created_at, id`, []any{string(state)}
	}
	rows, err := d.db.QueryContext(ctx, d.q(query), args...)
	if err != nil {
		return nil, fmt.Errorf("listing tasks: %s", oneLine(err))
	}
	defer rows.Close()
	var out []*Task
	for rows.Next() {
		t, err := scanTask(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// ClaimNext claims the oldest claimable task for worker and returns it
// with the state it was claimed from; nil when none is claimable. The
// pick and the claim are one transaction: on PostgreSQL the pick skips
// rows other claimers hold (FOR UPDATE SKIP LOCKED), so claimers do not
// queue on one row; on SQLite the transaction holds the write lock.
func (d *DB) ClaimNext(ctx context.Context, worker string) (*Task, TaskState, error) {
	if d.dialect == postgres {
		return d.claimNextPostgres(ctx, worker)
	}
	pick := `SELECT id, state FROM tasks WHERE ` + claimable + ` ORDER BY created_at, id LIMIT 1`
	var id string
	var from TaskState
	var t *Task
	// The task is read in the claim's transaction: a claim committed
	// whose read failed after it would be retried as another claim,
	// and the first task left working with nobody on it.
	err := d.tx(ctx, func(tx *dbsql.Tx) (err error) {
		if err := d.txQueryRow(ctx, tx, pick).Scan(&id, &from); err != nil {
			return err
		}
		t, err = d.claim(ctx, tx, id, worker)
		return err
	})
	if errors.Is(err, dbsql.ErrNoRows) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", d.taskErr("claiming a task", err)
	}
	return t, from, nil
}

// claimSet is what a claim writes: the worker, its heartbeat, one more
// claim (placeholders: worker, heartbeat, updated_at).
const claimSet = `state = 'working', worker = ?, heartbeat = ?, claims = claims + 1, updated_at = ?`

// claimNextPostgres picks and claims the next task in one guarded
// statement: one round trip and one commit, where a transaction of a
// pick, a claim and a read took five (claims per second were a quarter
// of one UPDATE per commit). The pick skips rows other claimers hold, and
// the claim still matches only a claimable task.
func (d *DB) claimNextPostgres(ctx context.Context, worker string) (*Task, TaskState, error) {
	now := ms(time.Now())
	var from TaskState
	row := d.db.QueryRowContext(ctx, d.q(`WITH picked AS (
		SELECT id AS picked_id, state AS picked_state FROM tasks WHERE `+claimable+` ORDER BY created_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)
		UPDATE tasks SET `+claimSet+` FROM picked WHERE id = picked_id AND `+claimable+`
		RETURNING picked_state, `+taskColumns), worker, now, now)
	t, err := scanTask(scanAfter{row, &from})
	if errors.Is(err, dbsql.ErrNoRows) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", d.taskErr("claiming a task", err)
	}
	return t, from, nil
}

// scanAfter scans first, then the columns its caller asks for.
type scanAfter struct {
	row   *dbsql.Row
	first any
}

func (s scanAfter) Scan(dest ...any) error { return s.row.Scan(append([]any{s.first}, dest...)...) }

// Claim claims the task id for worker with the guard clause. A claim that
// matches no row did not happen: it writes the specification's fallback
// row, fallback-<session> in exited, so that the session can end cleanly,
// and returns ErrClaimBlocked.
func (d *DB) Claim(ctx context.Context, id, worker, session string) error {
	err := d.tx(ctx, func(tx *dbsql.Tx) error {
		_, err := d.claim(ctx, tx, id, worker)
		return err
	})
	if !errors.Is(err, ErrClaimBlocked) {
		return d.taskErr("claiming task "+id, err)
	}
	now := ms(time.Now())
	if _, ferr := d.exec(ctx, `INSERT INTO tasks (id, skill, inputs, args, state, worker, message, created_at, updated_at)
		VALUES (?, '', '{}', '[]', 'exited', ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
		"fallback-"+session, worker, "the claim of task "+id+" was blocked by the guard clause", now, now); ferr != nil {
		return errors.Join(err, fmt.Errorf("writing the fallback row: %s", oneLine(ferr)))
	}
	return err
}

// claim is the guarded UPDATE of the claim; it returns the task as
// claimed.
func (d *DB) claim(ctx context.Context, tx *dbsql.Tx, id, worker string) (*Task, error) {
	now := ms(time.Now())
	t, err := scanTask(d.txQueryRow(ctx, tx, `UPDATE tasks SET `+claimSet+` WHERE id = ? AND `+claimable+` RETURNING `+taskColumns, worker, now, now, id))
	if errors.Is(err, dbsql.ErrNoRows) {
		return nil, fmt.Errorf("claiming task %s: %w", id, ErrClaimBlocked)
	}
	return t, err
}

// Move is a worker's transition of a task it holds: from → to, guarded by
// the state it expects and its name, with the message for whoever acts
// next. It fails with ErrTransition when the task is no longer where the
// worker left it (the conductor recovered it) or the machine has no such
// transition.
func (d *DB) Move(ctx context.Context, id, worker string, from, to TaskState, message string) error {
	now := ms(time.Now())
	res, err := d.exec(ctx, `UPDATE tasks SET state = ?, message = ?, heartbeat = ?, updated_at = ? WHERE id = ? AND state = ? AND worker = ?`,
		string(to), message, now, now, id, string(from), worker)
	if err != nil {
		return d.taskErr(fmt.Sprintf("task %s: %s → %s", id, from, to), err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return fmt.Errorf("task %s: %s → %s: %w: it is no longer %s held by %s", id, from, to, ErrTransition, from, worker)
	}
	return nil
}

// Heartbeat says the worker is alive and returns the task's state; the
// heartbeat is only written while the worker holds the task, and never on
// a final one, which the database keeps as it ended. The write returns
// the task, one round trip; a task it did not write is read as it is.
func (d *DB) Heartbeat(ctx context.Context, id, worker string) (*Task, error) {
	var t *Task
	err := d.queryRow(ctx, func(row rowScanner) (err error) {
		t, err = scanTask(row)
		return err
	}, `UPDATE tasks SET heartbeat = ? WHERE id = ? AND worker = ? AND state NOT IN ('complete', 'exited') RETURNING `+taskColumns, ms(time.Now()), id, worker)
	if errors.Is(err, dbsql.ErrNoRows) {
		return d.Task(ctx, id)
	}
	if err != nil {
		return nil, fmt.Errorf("heartbeat of task %s: %s", id, oneLine(err))
	}
	return t, nil
}

// Review is the conductor's transition of a task to to, with its message:
// only from the states the conductor may move it from (task_transitions,
// who = conductor). Approving a completion review (a ReviewCompletion
// task waiting in needs_review with its run completed) goes on to
// complete. It returns the state the task is left in. A review the
// task's state does not allow is ErrTransition, naming the state.
func (d *DB) Review(ctx context.Context, id string, to TaskState, message string) (TaskState, error) {
	if to == ReviewApproved {
		if done, err := d.approveCompletion(ctx, id, message); err != nil {
			return "", err
		} else if done {
			return Complete, nil
		}
	}
	now := ms(time.Now())
	res, err := d.exec(ctx, `UPDATE tasks SET state = ?, message = ?, updated_at = ? WHERE id = ? AND state IN (
		SELECT from_state FROM task_transitions WHERE to_state = ? AND who = 'conductor')`,
		string(to), message, now, id, string(to))
	if err != nil {
		return "", d.taskErr("reviewing task "+id, err)
	}
	if n, _ := res.RowsAffected(); n == 1 {
		return to, nil
	}
	t, err := d.Task(ctx, id)
	if err != nil {
		return "", err
	}
	return "", fmt.Errorf("task %s is %s: %w to %s (the conductor moves a task to %s from %s only)", id, t.State, ErrTransition, to, to, d.conductorFrom(ctx, to))
}

// approveCompletion approves the completion review of task id, if that is
// what the task waits for: needs_review → review_approved → complete in
// one transaction. A needs_review whose run is not completed is a step's
// checkpoint, approved by Review as usual.
func (d *DB) approveCompletion(ctx context.Context, id, message string) (bool, error) {
	t, err := d.Task(ctx, id)
	if err != nil {
		return false, err
	}
	if t.Review != ReviewCompletion || t.State != NeedsReview || t.RunID == "" {
		return false, nil
	}
	if sum, err := d.Store("").Status(t.RunID); err != nil || sum.State != runstore.RunCompleted {
		return false, nil
	}
	err = d.tx(ctx, func(tx *dbsql.Tx) error {
		now := ms(time.Now())
		res, err := tx.ExecContext(ctx, d.q(`UPDATE tasks SET state = 'review_approved', message = ?, updated_at = ? WHERE id = ? AND state = 'needs_review'`), message, now, id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return fmt.Errorf("task %s left needs_review: %w", id, ErrTransition)
		}
		_, err = tx.ExecContext(ctx, d.q(`UPDATE tasks SET state = 'complete', updated_at = ? WHERE id = ? AND state = 'review_approved'`), now, id)
		return err
	})
	return err == nil, d.taskErr("approving the completion of task "+id, err)
}

// conductorFrom lists the states the conductor may move a task to to from.
func (d *DB) conductorFrom(ctx context.Context, to TaskState) string {
	rows, err := d.db.QueryContext(ctx, d.q(`SELECT from_state FROM task_transitions WHERE to_state = ? AND who = 'conductor' ORDER BY from_state`), string(to))
	if err != nil {
		return "?"
	}
	defer rows.Close()
	var from []string
	for rows.Next() {
		var s string
		rows.Scan(&s)
		from = append(from, s)
	}
	return strings.Join(from, ", ")
}

// Recover is the conductor's crash recovery: every task a worker holds
// whose heartbeat is older than staleAfter moves to fix_proposed, with a
// hand-off message naming the last completed step of its run, so that the
// next worker claims it and resumes the run from the record.
func (d *DB) Recover(ctx context.Context, staleAfter time.Duration) ([]*Task, error) {
	cutoff := ms(time.Now().Add(-staleAfter))
	rows, err := d.db.QueryContext(ctx, d.q(`SELECT `+taskColumns+` FROM tasks WHERE `+recoverable+` AND heartbeat < ? ORDER BY created_at, id`), cutoff)
	if err != nil {
		return nil, fmt.Errorf("recovering tasks: %s", oneLine(err))
	}
	var stale []*Task
	for rows.Next() {
		t, err := scanTask(rows)
		if err != nil {
			rows.Close()
			return nil, err
		}
		stale = append(stale, t)
	}
	rows.Close()
	var moved []*Task
	for _, t := range stale {
		msg := fmt.Sprintf(recoveredPrefix+"worker %s stopped heartbeating at %s while %s; %s",
			t.Worker, t.Heartbeat.UTC().Format(time.RFC3339), t.State, d.handOff(t.RunID))
		res, err := d.exec(ctx, `UPDATE tasks SET state = 'fix_proposed', message = ?, updated_at = ? WHERE id = ? AND state = ? AND heartbeat < ?`,
			msg, ms(time.Now()), t.ID, string(t.State), cutoff)
		if err != nil {
			return moved, d.taskErr("recovering task "+t.ID, err)
		}
		if n, _ := res.RowsAffected(); n == 1 {
			t.State, t.Message = FixProposed, msg
			moved = append(moved, t)
		}
	}
	return moved, nil
}

// The messages of a task moved to fix_proposed by Recover and Release
// begin so: they say where the run stands, and propose no fix.
const (
	recoveredPrefix = "recovered: "
	releasedPrefix  = "released: "
)

// IsHandOff reports whether msg, the message of a task in fix_proposed,
// is Recover's or Release's hand-off rather than a conductor's fix: a
// worker that claims the task resumes its run and has nothing to hand
// its agent.
func IsHandOff(msg string) bool {
	return strings.HasPrefix(msg, recoveredPrefix) || strings.HasPrefix(msg, releasedPrefix)
}

// handOff says where a task's run stands, for the next worker: its last
// completed step, and that the run resumes from its record.
func (d *DB) handOff(runID string) string {
	last := "no step completed"
	if runID != "" {
		if sum, err := d.Store("").Status(runID); err == nil && sum.Progress.LastAction != "" {
			last = "last completed: " + sum.Progress.LastAction
		}
	}
	return last + "; the next worker resumes run " + runID + " from its record"
}

// Release hands back a task that worker holds in working and stops
// working on because it is shutting down (SIGTERM, Ctrl-C): working →
// fix_proposed, with the hand-off message Recover writes, at once rather
// than once its heartbeat is stale, so that the next worker resumes its
// run. A task the worker no longer holds in working is left as it is.
func (d *DB) Release(ctx context.Context, id, worker string) error {
	t, err := d.Task(ctx, id)
	if err != nil {
		return err
	}
	msg := fmt.Sprintf(releasedPrefix+"worker %s stopped while working; %s", worker, d.handOff(t.RunID))
	return d.Move(ctx, id, worker, Working, FixProposed, msg)
}

// taskErr names a refusal of the database's transition trigger as
// ErrTransition; other errors keep their first line.
func (d *DB) taskErr(what string, err error) error {
	if err == nil || errors.Is(err, ErrClaimBlocked) || errors.Is(err, ErrTransition) {
		return err
	}
	if errors.Is(err, ErrReplaced) {
		return fmt.Errorf("%s: %w", what, err)
	}
	if msg := err.Error(); strings.Contains(msg, "skillkit: task state transition not allowed") || strings.Contains(msg, "skillkit: a task starts in watching") ||
		strings.Contains(msg, "skillkit: a complete or exited task is final") {
		return fmt.Errorf("%s: %w (refused by the database)", what, ErrTransition)
	}
	return fmt.Errorf("%s: %s", what, oneLine(err))
}

// Fill queues n tasks of skill in one transaction: for benchmarks and
// load tests, where committing each would measure the setup.
func (d *DB) Fill(ctx context.Context, skill string, n int) error {
	now := time.Now()
	return d.tx(ctx, func(tx *dbsql.Tx) error {
		stmt, err := tx.PrepareContext(ctx, d.q(`INSERT INTO tasks (id, skill, inputs, args, state, created_at, updated_at) VALUES (?, ?, '{}', '[]', 'watching', ?, ?)`))
		if err != nil {
			return err
		}
		defer stmt.Close()
		for i := range n {
			if _, err := stmt.ExecContext(ctx, fmt.Sprintf("t%s-%08d", runstore.NewID(now), i), skill, ms(now), ms(now)); err != nil {
				return err
			}
		}
		return nil
	})
}
