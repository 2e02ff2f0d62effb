// Package fsstore is the filesystem store of runs: a run's record is a
// folder, .skillkit/runs/<skill>/<run-id>/ by default, which is also the
// work dir its steps run in unless --workdir says otherwise (DESIGN §3.2).
//
// events.jsonl is the record: an append-only log, one whole JSON line per
// write, fsynced once per commit (a loop's completions written during one
// sync share the next: logSync). state.json, skill-state.yaml and
// threads/<n>.json are snapshots derived from it, replaced atomically (a
// temporary file renamed over the old one), refreshed as the Record paces
// them (runstore.SnapshotEvery), before anything of the skill's runs
// (Flush) and when the run closes, and rebuilt from the log when a run is
// resumed.
// metrics.jsonl and logs/ are history, appended without syncs. claim.json
// says which process runs the run.
package fsstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/skillkit/skillkit/internal/runstore"
)

// Names of the files in a run directory.
const (
	StateFile    = runstore.StateFile
	ProgressFile = runstore.ProgressFile
	EventsFile   = runstore.EventsFile
	MetricsFile  = runstore.MetricsFile
	ClaimFile    = runstore.ClaimFile
	LockFile     = runstore.ClaimLockFile
	GroupsFile   = runstore.ClaimGroupsFile
	ThreadsDir   = runstore.ThreadsDir
	LogsDir      = runstore.LogsDir
	// WorkspaceThreads and WorkspaceMetrics are the folders of the
	// workspace layout (layout).
	WorkspaceThreads = runstore.WorkspaceThreads
	WorkspaceMetrics = runstore.WorkspaceMetrics
)

// handle writes a claimed run's folder.
type handle struct {
	dir     string
	layout  layout
	files   runstore.Files
	durable bool
	claim   *claim
	// line is the buffer the last line was made in (appendLine).
	line []byte
	// created says the run is new: its log's folder entry must be synced
	// once the first line is.
	created bool
	// unsynced says events were written since the log's last sync: a
	// commit owed (runstore.Run.CommitLater) is made durable by the next
	// durable write, which may bring no event of its own.
	unsynced bool
	// piped is the log's sync behind Pipelined commits; settle waits for
	// it. broken is the error of a sync that failed: the log may have
	// lost what was written before it (a failed fsync leaves the pages
	// clean, and a sync tried again may report success over lost data),
	// so every later write fails with it.
	piped  logSync
	broken error

	// threads are the checkpoints taken and not yet in threads/.
	threads []runstore.Checkpoint
	// writing is the write of checkpoints to threads/ under way, which
	// the next snapshot and the release wait for (waitThreads).
	writing chan written
	events  *logFile
	metrics *logFile
	logs    map[string]*os.File
}

// logFile is an append-only .jsonl file of the run.
type logFile struct {
	f runstore.AppendFile
	// torn says the last line is partial (a killed writer, a full disk):
	// the next line starts with a newline.
	torn bool
	// size is the file's length as this process left it.
	size int64
}

func (h *handle) Started(pgid int) { h.claim.Started(pgid) }
func (h *handle) Ended(pgid int)   { h.claim.Ended(pgid) }

func (h *handle) Verify(context.Context) error { return h.claim.verify() }

func (h *handle) Heartbeat(context.Context) error { return h.claim.refresh() }

// Append writes each line of b at once: a killed process keeps them. A
// process that lost its claim stops before its write could overlay the
// record of the process that holds the run now: the claim is read before
// every commit, and a log longer than this process left it (a cheap
// check, before every write) was written by another process, one that
// took the run over and may have released it since.
//
// A Pipelined commit is written and returns; its sync is made behind it
// (logSync), and a Pipelined commit written while a sync is under way
// does not wait for it: the sync that follows covers it. Every other
// call but a Buffered write waits for the syncs (settle), so nothing is
// made durable, or said to be, before every commit before it is. A
// Buffered line written meanwhile may or may not be in a sync, as a
// Buffered line may or may not survive a power loss.
func (h *handle) Append(_ context.Context, b runstore.Batch, mode runstore.Mode) error {
	return h.orRemoved(h.appendBatch(b, mode))
}

// orRemoved says why a write found no file or folder when the run's
// folder was removed (claim.removed): "no such file or directory" alone
// does not say that the whole run went.
func (h *handle) orRemoved(err error) error {
	if errors.Is(err, fs.ErrNotExist) && h.claim.removed() {
		return h.claim.errRemoved()
	}
	return err
}

func (h *handle) appendBatch(b runstore.Batch, mode runstore.Mode) error {
	if mode == runstore.Pipelined && h.created {
		// The log is new: its first commit syncs its folder too, in line.
		mode = runstore.Durable
	}
	if mode != runstore.Buffered && mode != runstore.Pipelined {
		if err := h.settle(); err != nil {
			return err
		}
	} else if err := h.syncedSoFar(); err != nil {
		return err
	}
	if len(b.Events) > 0 {
		if mode == runstore.Durable || mode == runstore.Pipelined {
			if err := h.claim.verify(); err != nil {
				return err
			}
		}
		if l := h.events; l != nil {
			if size, err := l.f.Size(); err == nil && size != l.size {
				h.claim.setLost()
				return h.claim.errLost()
			}
		}
	}
	for _, e := range b.Events {
		// The folder is the run's: its id is on the first line, which
		// starts it, and readers stamp the others (readLog).
		if e.Start == nil {
			e.Run = ""
		}
		if err := h.appendLine(&h.events, EventsFile, e.AppendJSON); err != nil {
			return err
		}
		h.unsynced = true
	}
	h.threads = append(h.threads, b.Checkpoints...)
	for _, m := range b.Metrics {
		m.Run = ""
		if err := h.appendLine(&h.metrics, h.layout.metrics, m.AppendJSON); err != nil {
			return err
		}
	}
	for _, l := range b.Logs {
		if err := h.log(l); err != nil {
			return err
		}
	}
	if mode != runstore.Durable && mode != runstore.Pipelined || !h.unsynced || !h.durable {
		return nil
	}
	if mode == runstore.Pipelined {
		h.unsynced = false
		h.piped.start(h.events.f)
		return nil
	}
	if err := h.events.f.Sync(); err != nil {
		return h.syncFailed(err)
	}
	h.unsynced = false
	if h.created {
		// The log is new: its folder entry must survive a power loss too.
		if err := runstore.SyncDir(h.dir); err != nil {
			return &runstore.WriteError{Err: err}
		}
		h.created = false
	}
	return nil
}

// settle waits for the syncs under way, if any, and says whether the log
// is still whole: an error once a sync failed.
func (h *handle) settle() error {
	if err := h.piped.wait(); err != nil {
		return h.syncFailed(err)
	}
	return h.broken
}

// syncedSoFar is settle without the wait: an error once a sync failed,
// as far as the syncs that ended say.
func (h *handle) syncedSoFar() error {
	if err := h.piped.failed(); err != nil {
		return h.syncFailed(err)
	}
	return h.broken
}

// syncFailed notes that the log's sync failed with err, and returns the
// error every write returns from now on.
func (h *handle) syncFailed(err error) error {
	h.unsynced = true
	h.broken = &runstore.WriteError{Err: fmt.Errorf("syncing %s: %w", filepath.Join(h.dir, EventsFile), err)}
	return h.broken
}

func (h *handle) log(l runstore.LogLine) error {
	f := h.logs[l.Name]
	if f == nil {
		dir := filepath.Join(h.dir, LogsDir)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return &runstore.WriteError{Err: err}
		}
		var err error
		f, err = os.OpenFile(filepath.Join(dir, l.Name+".log"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return &runstore.WriteError{Err: err}
		}
		h.logs[l.Name] = f
	}
	if _, err := f.WriteString(l.Text); err != nil {
		return &runstore.WriteError{Err: err}
	}
	return nil
}

// Snapshot writes skill-state.yaml and starts writing the checkpoints
// not yet in threads/, which the run's next steps need not wait for:
// creating a file per phase's checkpoint was the biggest wait of a run of
// many short phases after the log's sync (the file system's inode
// allocation). A finished run's are written before Snapshot returns: its
// record says it finished next, and nothing rebuilds the snapshots of a
// finished run.
//
// The snapshots wait for the log's sync under way: they must never say
// more than the log would after a power loss.
func (h *handle) Snapshot(_ context.Context, p *runstore.Progress) error {
	// A folder made again in place of the run's would take the
	// snapshots without a word: a stat per snapshot tells it.
	if h.claim.removed() {
		return h.claim.errRemoved()
	}
	return h.orRemoved(h.snapshot(p))
}

func (h *handle) snapshot(p *runstore.Progress) error {
	if err := h.settle(); err != nil {
		return err
	}
	if err := h.waitThreads(); err != nil {
		return err
	}
	write := func(w io.Writer) error { return runstore.WriteProgress(w, p) }
	if err := runstore.WriteFileFrom(h.files, filepath.Join(h.dir, ProgressFile), write, false); err != nil {
		return err
	}
	if len(h.threads) == 0 {
		return nil
	}
	cs := h.threads
	h.threads = nil
	done := make(chan written, 1)
	h.writing = done
	go func() {
		rest, err := h.writeThreads(cs)
		done <- written{rest, err}
	}()
	if p.RunState.Terminal() {
		return h.waitThreads()
	}
	return nil
}

// written is how a write of checkpoints ended: the checkpoints it did not
// write, and why.
type written struct {
	rest []runstore.Checkpoint
	err  error
}

// waitThreads waits for the checkpoints' write under way, if any: those
// it did not write are written by the next snapshot, before those taken
// since.
func (h *handle) waitThreads() error {
	if h.writing == nil {
		return nil
	}
	w := <-h.writing
	h.writing = nil
	h.threads = append(w.rest, h.threads...)
	return w.err
}

// writeThreads writes checkpoints to threads/, in order, and returns
// those it did not write: the log has them all, so memory holds a
// snapshot period's worth. It touches nothing of h but what Claim set.
func (h *handle) writeThreads(cs []runstore.Checkpoint) ([]runstore.Checkpoint, error) {
	dir := filepath.Join(h.dir, h.layout.threads)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return cs, &runstore.WriteError{Err: fmt.Errorf("writing checkpoints: %w", err)}
	}
	for len(cs) > 0 {
		c := cs[0]
		// Encoded as it is written: the state of a long loop's
		// checkpoint is hundreds of kilobytes, and a copy of it with
		// the newline appended was two more.
		write := func(w io.Writer) error { return json.NewEncoder(w).Encode(c) }
		if err := runstore.WriteFileFrom(h.files, filepath.Join(dir, strconv.Itoa(c.N)+".json"), write, false); err != nil {
			return cs, err
		}
		cs = cs[1:]
	}
	return nil, nil
}

// appendLine writes the JSON line encode appends as one line with a
// single write call, so that a killed process leaves whole lines (and at
// worst one partial last line). The line is made in a buffer kept for
// the next, unless it grew past keepLine.
func (h *handle) appendLine(lf **logFile, name string, encode func([]byte) ([]byte, error)) error {
	if *lf == nil {
		f, err := h.files.OpenAppend(filepath.Join(h.dir, name))
		if err != nil {
			// The open's error names the path.
			return &runstore.WriteError{Err: fmt.Errorf("opening %s: %w", name, err)}
		}
		size, _ := f.Size()
		*lf = &logFile{f: f, torn: endsMidLine(f, size), size: size}
	}
	l := *lf
	line := h.line[:0]
	if l.torn {
		line = append(line, '\n')
	}
	line, err := encode(line)
	if err != nil {
		return fmt.Errorf("encoding %s line: %w", name, err)
	}
	line = append(line, '\n')
	if cap(line) <= keepLine {
		h.line = line
	}
	n, err := l.f.Write(line)
	l.size += int64(n)
	if err != nil {
		l.torn = n > 0 || l.torn
		return &runstore.WriteError{Err: fmt.Errorf("appending to %s: %w", filepath.Join(h.dir, name), err)}
	}
	l.torn = false
	return nil
}

// keepLine is the largest buffer appendLine keeps for the next line: a
// line with the whole state (a run's first, or an old log's) may be
// megabytes, and is not kept live for the short lines after it.
const keepLine = 64 << 10

// endsMidLine reports whether the file, size bytes long, is not empty and
// its last byte is not a newline.
func endsMidLine(f runstore.AppendFile, size int64) bool {
	if size == 0 {
		return false
	}
	var b [1]byte
	_, err := f.ReadAt(b[:], size-1)
	return err == nil && b[0] != '\n'
}

// Release closes the files and releases the claim.
func (h *handle) Release(_ context.Context, running bool) error {
	// A failed sync before this one was the failure of the write that
	// met it; one under way is waited for, and its failure said.
	var errs []error
	if err := h.piped.wait(); err != nil {
		errs = append(errs, h.syncFailed(err))
	}
	errs = append(errs, h.waitThreads())
	for _, lf := range []*logFile{h.events, h.metrics} {
		if lf != nil {
			errs = append(errs, lf.f.Close())
		}
	}
	h.events, h.metrics = nil, nil
	for name, f := range h.logs {
		errs = append(errs, f.Close())
		delete(h.logs, name)
	}
	errs = append(errs, h.claim.release(running))
	return errors.Join(errs...)
}
