package runstore

import "context"

// Backend is what one kind of store keeps its own way: where the records
// of runs live, how a run is claimed, how a batch of its record is
// written and how it is read back. Everything a run's record means (its
// state, checkpoint marks, stamping, the replay of events into progress,
// the terminal and interrupted rules, state.json in the work dir) is the
// Record's, written once above every backend. A new backend is a package
// with a Backend that passes the suite of runstore/storetest.
type Backend interface {
	// Create makes the record of a new run and claims it. The run's work
	// dir is n.WorkDir, or one the backend chooses, made and absolute. A
	// run already recorded under the same name is refused (ErrExists).
	Create(ctx context.Context, n NewRun, c ClaimOptions) (*Claimed, error)
	// Claim claims the recorded run key for this process; a live holder
	// refuses it (*ClaimedError). Taking over a stale claim kills the
	// process groups its holder left on this host.
	Claim(ctx context.Context, key string, c ClaimOptions) (*Claimed, error)
	// Locate finds the key of the run a non-empty ref names (an id, or
	// whatever else the backend can locate a run by).
	Locate(ctx context.Context, ref string) (string, error)
	// List returns the keys of every run, in any order.
	List(ctx context.Context) ([]string, error)
	// ReadEvents reads the log of run key as far as it is whole: a
	// partial last write is dropped and said in Log.Notes; damage is an
	// error wrapping ErrCorrupt that says where.
	ReadEvents(ctx context.Context, key string) (*Log, error)
	// ReadMetrics reads the metrics of run key.
	ReadMetrics(ctx context.Context, key string) ([]Metric, error)
	// Holder is the live claim's pid@host, "" when nobody holds run key
	// or the claim is stale.
	Holder(ctx context.Context, key string) (string, error)
	// WorkDir is where a resumed run works, recorded the dir its record
	// says (empty in logs older than that field): the backend makes one
	// where the recorded one is not on this machine.
	WorkDir(ctx context.Context, key, recorded, skill string) (string, error)
	// Where names run key's record for a person (a folder, a database
	// row); for "" the place of every run, as it follows "no run"
	// ("under …/.skillkit/runs", "in sqlite:…").
	Where(key string) string
}

// Claimed is a run a backend claimed for this process.
type Claimed struct {
	Handle
	// Key names the run to its backend.
	Key string
	// WorkDir is where a new run's steps work; a resumed run's comes
	// from Backend.WorkDir.
	WorkDir string
	// Fresh says nobody held the run before (the filesystem's claim.json
	// was missing): a run recorded running may have a live holder whose
	// claim was deleted.
	Fresh bool
}

// Handle writes the record of a claimed run. The Record calls it under
// its lock, one call at a time, except Heartbeat, which its ticker calls.
type Handle interface {
	// Append writes a batch of the record as mode says. It fails with an
	// error matching ErrClaimLost when another process holds the run now,
	// and with one matching ErrWrite when the write failed.
	Append(ctx context.Context, b Batch, mode Mode) error
	// Snapshot brings what the backend derives from the log up to date
	// (the filesystem's skill-state.yaml and threads/): p is the
	// progress as it will be once the events appended are in.
	Snapshot(ctx context.Context, p *Progress) error
	// Verify reports whether the claim is still this process's (an
	// error matching ErrClaimLost when it is not).
	Verify(ctx context.Context) error
	// Heartbeat says the holder is alive; ErrClaimLost when another
	// process took the claim over.
	Heartbeat(ctx context.Context) error
	// Started and Ended record the process groups of the holder's
	// commands, for a takeover to kill.
	Started(pgid int)
	Ended(pgid int)
	// Release gives the claim up and closes what the handle holds. With
	// running set (the record says the run is running) the release is
	// said in the claim, so that its absence is not taken for a claim
	// deleted under a live holder.
	Release(ctx context.Context, running bool) error
}

// Mode is how far a write must get before Append returns.
type Mode int

// Modes of Append, from the cheapest.
const (
	// Buffered may wait for the next Visible or Durable write: a backend
	// that writes in transactions groups a step's transitions into one.
	Buffered Mode = iota
	// Visible is seen by readers of the record once Append returns, and
	// survives a killed process.
	Visible
	// Durable also survives a power loss: the end of a commit group.
	Durable
	// Pipelined is Durable whose sync may end after Append returns: the
	// batch is written (Visible) and its sync under way, and the
	// handle's next call but a Buffered or Pipelined Append, Verify and
	// Heartbeat waits for the syncs under way first and fails with their
	// error; a Pipelined Append may be covered by the sync after the one
	// under way, with every other written meanwhile. A backend whose
	// write is its own durability (a database's commit) makes it
	// Durable.
	Pipelined
)

// Batch is what one Append writes. Checkpoints are those the batch's
// events carry, numbered and with the state they took.
type Batch struct {
	Events      []Event
	Checkpoints []Checkpoint
	Metrics     []Metric
	Logs        []LogLine
}

// Empty reports whether the batch holds nothing.
func (b *Batch) Empty() bool {
	return len(b.Events)+len(b.Checkpoints)+len(b.Metrics)+len(b.Logs) == 0
}

// LogLine is text for the run's log called Name (logs/<name>.log).
type LogLine struct{ Name, Text string }

// Log is a run's events as a backend read them, with what the reading
// found and passed over, for a person.
type Log struct {
	Events []Event
	Notes  []string
}

// Timing is c with the defaults filled in: what a backend records.
func (c ClaimOptions) Timing() ClaimOptions {
	if c.Heartbeat <= 0 {
		c.Heartbeat = DefaultHeartbeat
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultClaimTimeout
	}
	return c
}
