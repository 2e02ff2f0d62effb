// Package runstore is the storage seam of a run: what the runtime needs to
// keep a run's record (its event log, state, progress, metrics, checkpoints,
// logs) and to claim it, as interfaces, with the record types they share.
// The filesystem store (package runstore/fs) is one implementation; a store
// is added without touching the engine or the runners.
//
// The record is an append-only event log. Everything else a run shows
// (state.json, skill-state.yaml, threads/) is a snapshot derived from it:
// Progress.Apply folds events into progress, and an event that changed the
// skill's state carries the state. A store makes the log durable once per
// commit (Run.Commit), so a step or an action costs one sync, and a kill at
// any moment leaves either the whole group of its transitions or none.
package runstore

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/skillkit/skillkit/plan"
)

// Store keeps the records of runs. NewStore makes one over a Backend.
type Store interface {
	// Create records a new run and claims it for this process.
	Create(n NewRun, c ClaimOptions) (Run, error)
	// Resume claims an existing run, named by ref (an id, or whatever else
	// the store can locate a run by; "" is the newest), and rebuilds its
	// progress and state from the record. It refuses a finished run
	// (ErrTerminal), unless o.Retry and the run failed or was aborted, and
	// one another live process holds (*ClaimedError).
	Resume(ref string, o ResumeOptions) (Run, error)
	// Status reads a run without claiming or changing it.
	Status(ref string) (*Summary, error)
	// List returns every run, newest first.
	List() ([]*Summary, error)
	// Events reads the events of the run ref names, for the readers of
	// its history (graph, skilltest, cassettes).
	Events(ref string) ([]Event, error)
	// Metrics reads the metrics of the run ref names (report).
	Metrics(ref string) ([]Metric, error)
}

// Run is one claimed run record. Only one goroutine writes to it at a
// time; Progress and State may be read from any.
type Run interface {
	ID() string
	// WorkDir is the folder the run's steps work in.
	WorkDir() string
	// Where names the record for a person (a folder, a database row).
	Where() string
	// Progress is where the run stands, as its log says.
	Progress() Progress
	// State is the skill's state as last recorded or set.
	State() map[string]any
	// SetState changes the skill's state; the next recorded event carries
	// it.
	SetState(state map[string]any)
	// Append records an event without waiting for the disk: a kill keeps
	// it (it is written), a power loss may not.
	Append(e Event) error
	// Commit records an event and makes the log durable up to it: the end
	// of a group of transitions (a step finished, a unit ended, the run
	// changed state).
	Commit(e Event) error
	// CommitLater records an event that ends a group, as Commit does,
	// where a kill keeps it, and leaves making it survive a power loss
	// to the next Commit, or to Flush or Close, whichever comes first:
	// for a group that only transitions of this process follow until the
	// next commit (a phase's last step, then the phase's end), so that
	// the two cost one sync, and nothing of the skill runs while the
	// first is owed.
	CommitLater(e Event) error
	// CommitPipelined records an event that ends a group, as Commit
	// does, and returns once it is written (a kill keeps it) with the
	// sync that makes it survive a power loss under way: the next
	// Commit, CommitLater, Settle, Flush or Close waits for the syncs
	// under way first, and fails with their error. A CommitPipelined
	// does not wait: a store may cover it and the ones before it with one
	// sync (a group commit), and it fails with the error of a sync that
	// already failed. For a loop action's completion: the next iterations
	// compute while the disk syncs. A store whose write is its own
	// durability commits it as Commit does.
	CommitPipelined(e Event) error
	// AgentCall records an agent call as it begins, before its command
	// starts: c is the conversation with the call counted. It is durable
	// when AgentCall returns, so that a process killed during the call,
	// or before the event after it, still counts it: the budget of a
	// resume (--max-agent-calls) sees every call whose command may have
	// run. It carries nothing else: the state set and a checkpoint taken
	// since the last event wait for the next transition, which keeps a
	// step's state change on the line that ends the step.
	AgentCall(c Conversation) error
	// Settle waits until every commit recorded is durable (an owed one,
	// a pipelined one's sync): the barrier before anything with an
	// effect outside the record happens (skill code's host calls,
	// commands, agent calls). Its error is a write's.
	Settle() error
	// Metric records one metrics line (history, not synced).
	Metric(m Metric) error
	// Checkpoint takes a checkpoint of the state (threads/) for a hook:
	// the next recorded event carries it.
	Checkpoint(hook string, w Worker) error
	// Log appends text to the run's log called name (logs/<name>.log).
	Log(name, text string) error
	// Flush brings the snapshots up to date now (state.json and the
	// like, where a store keeps them beside the work): before a process of
	// the skill starts, so that what it reads is the state.
	Flush() error
	// Notes are what opening the record found and repaired, for a person:
	// a torn last line, snapshots rebuilt.
	Notes() []string
	// Lost is closed when another process took the claim over (this one
	// stalled past its timeout): the holder must stop writing.
	Lost() <-chan struct{}
	// Started and Ended record the process groups of the run's commands
	// (proc.Groups), for a resume after a kill to end what they left
	// running.
	Started(pgid int)
	Ended(pgid int)
	// Close writes the snapshots, releases the claim and closes the record.
	// Every write after it, and Settle, fails with ErrClosed.
	Close() error
}

// NewRun is what a new run's record starts with.
type NewRun struct {
	Start Start
	State map[string]any
	// WorkDir is the work dir (--workdir); empty lets the store choose.
	WorkDir string
	// Workspace asks for the worker lifecycle's layout, for a skill with
	// a worker.yaml: threads/ and metrics.jsonl under the work dir's
	// workspace/ (WorkspaceThreads, WorkspaceMetrics). A store that
	// keeps them elsewhere than files ignores it.
	Workspace bool
}

// ResumeOptions say how a run is taken up again.
type ResumeOptions struct {
	Claim ClaimOptions
	// Retry takes up a run that failed or was aborted, to run it again
	// from where it failed (--retry): terminal states are final, except
	// for this.
	Retry bool
}

// Retryable reports whether a run in state s may be retried.
func (s RunState) Retryable() bool { return s == RunFailed || s == RunAborted }

// ClaimOptions tune a claim's heartbeat; zero values mean the defaults.
type ClaimOptions struct {
	Heartbeat time.Duration
	Timeout   time.Duration
	// Clock is the holder's clock, time.Now when nil, and Host the host
	// its claim names, this machine's when empty: tests stand for a
	// holder on another machine whose clock is ahead.
	Clock func() time.Time
	Host  string
}

// Now is the time by the holder's clock.
func (c ClaimOptions) Now() time.Time {
	if c.Clock != nil {
		return c.Clock()
	}
	return time.Now()
}

// HostName is the holder's host as its claim names it.
func (c ClaimOptions) HostName() string {
	if c.Host != "" {
		return c.Host
	}
	return Hostname()
}

// Default claim timing: the holder refreshes its heartbeat every
// DefaultHeartbeat; a claim whose heartbeat is older than DefaultClaimTimeout
// is stale and may be taken over.
const (
	DefaultHeartbeat    = 2 * time.Second
	DefaultClaimTimeout = 15 * time.Second
)

// NewID returns a run id: the UTC start time, sortable, and a random suffix
// so that two runs started in the same second differ: 32 bits, since a
// fleet starts hundreds of runs and tasks a second (three bytes collided
// once in about thirty queues of a thousand tasks).
func NewID(now time.Time) string {
	var b [4]byte
	rand.Read(b[:])
	return now.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}

// NewSessionID returns a new session id, shaped like a random UUID
// because claude's --session-id takes only that.
func NewSessionID() string {
	var b [16]byte
	rand.Read(b[:])
	return uuid(b)
}

// SessionIDOf is the session id of a run recorded before runs had one:
// derived from the run id, so that every resume of it agrees.
func SessionIDOf(runID string) string {
	sum := sha256.Sum256([]byte(runID))
	return uuid([16]byte(sum[:16]))
}

// uuid formats b as a version 4, variant 1 UUID.
func uuid(b [16]byte) string {
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// Kind is what a metric or a checkpoint is about.
type Kind string

// Kinds of units and steps.
const (
	KindPhase  Kind = "phase"
	KindAction Kind = "action"
	KindStep   Kind = "step"
	// KindAgent is one call of the agent.
	KindAgent Kind = "agent"
)

// Conversation is where the run's conversation with the agent stands: a
// resume continues it rather than starting another.
type Conversation struct {
	// Calls is how many agent calls the run has begun (SKILLKIT_CALL of
	// the last one).
	Calls int `yaml:"calls" json:"calls"`
	// Thread is the agent's own id of the conversation once it reported
	// one (claude's session_id, codex's thread_id): later calls resume it.
	Thread string `yaml:"thread,omitempty" json:"thread,omitempty"`
	// CostUSD is what the calls cost, as the agent reported it: with
	// Calls, what the run's budgets count across resumes.
	CostUSD float64 `yaml:"costUsd,omitempty" json:"costUsd,omitempty"`
}

// AgentCallMark is the To of the run's event that records an agent call
// as it begins (Run.AgentCall): a mark, not a transition of the run,
// which stays in the state its From says. Its Agent is the conversation
// with the call counted.
const AgentCallMark State = "agent_call"

// Event is one line of the run's log: a transition of the run, a phase, an
// action or a step from one lifecycle state to the next (DESIGN §3.1), with
// what the transition changed in the record.
type Event struct {
	Time time.Time `json:"time"`
	// Run is the run's id; a store that keeps a run's events apart (the
	// filesystem's events.jsonl) writes it on the first line only and
	// stamps every event with it as it reads them.
	Run    string `json:"run,omitempty"`
	Phase  string `json:"phase,omitempty"`
	Action string `json:"action,omitempty"`
	Step   string `json:"step,omitempty"`
	// From is left out of the log when it is nothing (a step's and the
	// run's first line) or, on an action's loading line, idle; Detail
	// (an action's title on its loading line) when it is the title of
	// the action's loading line before. Readers fill them in (expand).
	From   State  `json:"from,omitempty"`
	To     State  `json:"to"`
	Detail string `json:"detail,omitempty"`

	// Start is the run's identity, on its first event only.
	Start *Start `json:"start,omitempty"`
	// State is the skill's whole state after the transition: on the
	// first event that records one, and on every change in logs written
	// before events carried Patch.
	State json.RawMessage `json:"state,omitempty"`
	// Patch is what the transition changed in the skill's state, when it
	// changed it (StateFold applies it).
	Patch []Change `json:"patch,omitempty"`
	// Record is a step that finished for good: a resume never runs it
	// again.
	Record *StepRecord `json:"record,omitempty"`
	// Done stands for the Record of an action that completed as its
	// loading transition said it would (Event.implied): the log writes
	// this flag, and readers get the Record back (Expand).
	Done bool `json:"done,omitempty"`
	// Inputs are --input values a resume added.
	Inputs map[string]string `json:"inputs,omitempty"`
	// Error is why the run failed, on its terminal event.
	Error *RunError `json:"error,omitempty"`
	// Loop is the autonomous loop's position after the transition.
	Loop *Loop `json:"loop,omitempty"`
	// Agent is the conversation with the agent after the calls made
	// since the previous event; on an agent call's mark (AgentCallMark),
	// the conversation as the call begins, the call counted.
	Agent *Conversation `json:"agent,omitempty"`
	// Checkpoint is a checkpoint a hook took just before the transition,
	// of the state as recorded up to this event.
	Checkpoint *Mark `json:"checkpoint,omitempty"`
	// Position is the run position (1-based) of the step or action that
	// starts with this event, or of the record it carries.
	Position int `json:"position,omitempty"`
	// Scope is what the native JS steps of the phase bound so far, after
	// a step that ran JS: a resume in mid-phase gives it to the steps left.
	Scope map[string]any `json:"scope,omitempty"`
}

// State is where the run, a phase, an action or a step is in its
// lifecycle, as an event's From and To say: a RunState, or the engine's
// unit and step states, each of which converts to it and back without
// loss (they are strings of the lifecycle's names). Event.Level says
// which lifecycle it is of.
type State string

// Mark is a checkpoint in the log: who took it, for whom.
type Mark struct {
	Hook   string `json:"hook"`
	Worker Worker `json:"worker"`
	// implied is set when the event it rides on says the rest: a loop
	// action's auto_checkpoint (Event.Paced) of the worker of the mark
	// before, completed without error. Only its times are written then,
	// and Expand fills in the rest (impliedMark). timed is set when the
	// times are said too: the action's loading transition's and the
	// event's own. Nothing is written then.
	implied, timed bool
}

// MarshalJSON writes only the times of an implied mark, or nothing when
// they are implied too: a loop writes one per action, and its hook,
// worker, skill, unit and state were a third of the line.
func (m Mark) MarshalJSON() ([]byte, error) {
	switch {
	case m.implied && m.timed:
		return []byte("{}"), nil
	case m.implied:
		return json.Marshal(impliedJSON{Worker: workerTimes{m.Worker.StartedAt, m.Worker.CompletedAt}})
	}
	type plain Mark
	return json.Marshal(plain(m))
}

// impliedJSON is an implied mark as the log has it.
type impliedJSON struct {
	Worker workerTimes `json:"worker"`
}

type workerTimes struct {
	StartedAt   time.Time  `json:"started_at"`
	CompletedAt *time.Time `json:"completed_at"`
}

// implies reports whether m, riding on e after a mark of worker last,
// can be written implied.
func (m *Mark) implies(e *Event, last Worker) bool {
	w := m.Worker
	return e.Paced() && m.Hook == plan.HookAutoCheckpoint && w.Unit == e.Action && w.State == "completed" && w.Error == nil &&
		w.ID == last.ID && w.Skill == last.Skill && w.ID != ""
}

// impliedMark fills in what an implied mark on e leaves out, from last,
// the worker of the mark before it, and l, the action's loading
// transition. A mark written whole is as it was.
func impliedMark(m Mark, e *Event, last Worker, l *loaded) Mark {
	if m.Hook != "" {
		return m
	}
	m.Hook = plan.HookAutoCheckpoint
	m.Worker.ID, m.Worker.Skill, m.Worker.Unit, m.Worker.State = last.ID, last.Skill, e.Action, "completed"
	if m.Worker.StartedAt.IsZero() && l.of(e) {
		t := e.Time
		m.Worker.StartedAt, m.Worker.CompletedAt = l.at, &t
	}
	return m
}

// Metric is one line of metrics.jsonl: a phase, action or step that
// finished, however it finished.
type Metric struct {
	Time time.Time `json:"time"`
	// Run is the run's id, stamped as Event.Run is.
	Run    string `json:"run,omitempty"`
	Kind   Kind   `json:"kind"`
	Phase  string `json:"phase,omitempty"`
	Action string `json:"action,omitempty"`
	Step   string `json:"step,omitempty"`
	// DurationMS is the wall time in milliseconds, retries and backoff
	// included.
	DurationMS float64 `json:"duration_ms"`
	Attempts   int     `json:"attempts"`
	Outcome    string  `json:"outcome"`

	// An agent call (KindAgent) says which request it was, its number in
	// the run, the agent's session, and what the agent reported of its
	// work: turns and cost in US dollars (zero when it does not say).
	Request string  `json:"request,omitempty"`
	Call    int     `json:"call,omitempty"`
	Session string  `json:"session,omitempty"`
	Turns   int     `json:"turns,omitempty"`
	CostUSD float64 `json:"cost_usd,omitempty"`
	// The tokens the call used (input with cached input) and the model's
	// context window, where the agent reports them.
	InputTokens   int `json:"input_tokens,omitempty"`
	OutputTokens  int `json:"output_tokens,omitempty"`
	ContextWindow int `json:"context_window,omitempty"`
}

// Worker is the worker record of a checkpoint (the worker lifecycle
// specification's thread worker): the worker, and the phase or action that
// was running when it was taken.
type Worker struct {
	// ID is the worker's id: worker.yaml's worker.id, <skill>-worker
	// without one.
	ID    string `json:"id"`
	Skill string `json:"skill"`
	// Unit is the phase or action, which the specification's record has
	// no field for.
	Unit        string     `json:"unit"`
	State       string     `json:"state"`
	StartedAt   time.Time  `json:"started_at"`
	CompletedAt *time.Time `json:"completed_at"`
	Error       *string    `json:"error"`
}

// Checkpoint is threads/<n>.json: the state after a phase or action, or
// after it failed, with who produced it.
type Checkpoint struct {
	N    int       `json:"n"`
	Time time.Time `json:"time"`
	// Hook is the hook that took it: auto_checkpoint or
	// checkpoint_error_state.
	Hook   string          `json:"hook"`
	State  json.RawMessage `json:"state"`
	Worker Worker          `json:"worker"`
}

// Summary is what `skillkit status` and `skillkit runs` show of a run.
type Summary struct {
	ID    string `json:"id"`
	Skill string `json:"skill"`
	Dir   string `json:"dir"`
	// State is the run state as a reader should see it: a run marked
	// running whose claim is gone or stale shows as interrupted.
	State     RunState `json:"state"`
	StepsDone int      `json:"stepsDone"`
	// Holder is the live claim's pid@host, empty when nobody runs it.
	Holder   string   `json:"holder,omitempty"`
	Progress Progress `json:"progress"`
	// WorkDir is where the run's steps work; LastState is the state as
	// last recorded.
	WorkDir   string         `json:"-"`
	LastState map[string]any `json:"-"`
}

// ErrNoRun is returned when a reference names no run.
var ErrNoRun = errors.New("no run")

// ErrCorrupt is wrapped by the error of a record that does not parse:
// skillkit writes it whole, so something else changed or damaged it. The
// error names the file and the position of the damage.
var ErrCorrupt = errors.New("run record is damaged")

// ErrExists is returned when a new run is made where a run already is.
var ErrExists = errors.New("a run is already there")

// ErrTerminal is returned when a finished run is resumed: terminal states
// are final.
var ErrTerminal = errors.New("the run has finished; terminal states are final")

// ErrWrite is matched (errors.Is) by every failure to write a record: a
// full disk, a read-only or failing device. The run is not at fault and
// stays resumable.
var ErrWrite = errors.New("writing the run record failed")

// ErrClaimLost is matched by the error of a write refused because another
// process holds the run now (this one's claim was taken over or replaced):
// the process stops before it writes anything more.
var ErrClaimLost = errors.New("another process holds the run now; this one stops without writing")

// ErrRunRemoved is matched by the error of a write to a run whose folder
// was removed while it ran (a step's rm -rf of its own work dir): the
// record went with it, so the run can neither go on nor be resumed.
var ErrRunRemoved = errors.New("the run's folder was removed while the run was running")

// ErrClosed is matched by the error of a write, or a Settle, made on a
// run's record after its Close: the run was released, and another process
// may hold it now.
var ErrClosed = errors.New("the run's record is closed; this process writes no more of it")

// WriteError reads as the failure it wraps and also matches ErrWrite.
type WriteError struct{ Err error }

func (e *WriteError) Error() string   { return e.Err.Error() }
func (e *WriteError) Unwrap() []error { return []error{e.Err, ErrWrite} }

// ClaimedError is returned when another live process holds the run.
type ClaimedError struct {
	Where  string
	Holder string
	// Started and Heartbeat are when the holder claimed the run and last
	// said it is alive, by the holder's clock.
	Started, Heartbeat time.Time
	// Watch is how long the heartbeat must be seen to stand still
	// before the claim is stale, when only its movement can tell: it
	// lies in the future, by the clock of a holder on another host. It
	// is 0 when the claim was judged by its age or its holder's
	// liveness.
	Watch time.Duration
}

func (e *ClaimedError) Error() string {
	beat := fmt.Sprintf("heartbeat %s ago", time.Since(e.Heartbeat).Round(time.Second))
	if e.Watch > 0 {
		beat = fmt.Sprintf("heartbeat %s ahead of this clock, and moving", time.Until(e.Heartbeat).Round(time.Second))
	}
	return fmt.Sprintf("run %s is claimed by %s (started %s, %s)",
		e.Where, e.Holder, e.Started.Format(time.RFC3339), beat)
}
