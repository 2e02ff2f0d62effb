// Package fs is the filesystem store of runs: a run's record is a folder,
// .skillkit/runs/<skill>/<run-id>/ by default, which is also the work dir
// its steps run in unless --workdir says otherwise (DESIGN §3.2).
//
// events.jsonl is the record: an append-only log, one whole JSON line per
// write, fsynced once per commit. state.json, skill-state.yaml and
// threads/<n>.json are snapshots derived from it, replaced atomically (a
// temporary file renamed over the old one), refreshed at least every
// SnapshotEvery, before anything of the skill's runs (Flush) and when the
// run closes, and rebuilt from the log when a run is resumed. metrics.jsonl
// and logs/ are history, appended without syncs. claim.json says which
// process runs the run.
package fs

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/skillkit/skillkit/internal/runstore"
)

// Names of the files in a run directory.
const (
	StateFile    = "state.json"
	ProgressFile = "skill-state.yaml"
	EventsFile   = "events.jsonl"
	MetricsFile  = "metrics.jsonl"
	ClaimFile    = "claim.json"
	// LockFile serialises the processes that replace claim.json.
	LockFile = ".claim.lock"
	// GroupsFile lists the process groups of the holder's commands.
	GroupsFile = ".claim.groups"
	ThreadsDir = "threads"
	LogsDir    = "logs"
)

// RecordFile reports whether a name at the top of a run directory is the
// record's (the files above, their temporary copies and the claim's lock),
// not the work the steps left beside it.
func RecordFile(name string) bool {
	switch name {
	case StateFile, ProgressFile, EventsFile, MetricsFile, ClaimFile, LockFile, GroupsFile, ThreadsDir, LogsDir:
		return true
	}
	// Files are replaced through hidden temporary copies (.state.json…).
	return strings.HasPrefix(name, ".") && strings.Contains(name, tmpMark)
}

// SnapshotEvery bounds how stale skill-state.yaml may get during a run:
// rewriting it after every step would make a long run quadratic (its list
// of completed steps grows) and cost a file replacement per step.
const SnapshotEvery = 200 * time.Millisecond

// run is an open, claimed run record.
type run struct {
	dir, work string
	files     Files
	durable   bool
	claim     *claim

	mu       sync.Mutex
	progress runstore.Progress
	state    map[string]any
	// pending is a state set and not yet in the log; stale says state.json
	// is behind the state, moved that skill-state.yaml is behind the
	// progress.
	pending, stale, moved bool
	// mark is a checkpoint waiting for the next event.
	mark *runstore.Mark
	// threads are the checkpoints taken and not yet in threads/; taken
	// counts all of them, so that they number on.
	threads []runstore.Checkpoint
	taken   int
	// snapped is when skill-state.yaml was last written.
	snapped time.Time
	events  *logFile
	metrics *logFile
	logs    map[string]*os.File
	notes   []string
}

// logFile is an append-only .jsonl file of the run.
type logFile struct {
	f AppendFile
	// torn says the last line is partial (a killed writer, a full disk):
	// the next line starts with a newline.
	torn bool
	// size is the file's length as this process left it.
	size int64
}

func (r *run) ID() string      { return r.Progress().RunID }
func (r *run) WorkDir() string { return r.work }
func (r *run) Where() string   { return r.dir }
func (r *run) Notes() []string { return r.notes }

func (r *run) Lost() <-chan struct{} { return r.claim.lostC() }

// Started and Ended keep the process groups of the run's commands in
// claim.json (proc.Groups), for a takeover to kill.
func (r *run) Started(pgid int) { r.claim.Started(pgid) }
func (r *run) Ended(pgid int)   { r.claim.Ended(pgid) }

func (r *run) Progress() runstore.Progress {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.progress.Clone()
}

func (r *run) State() map[string]any {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.state
}

func (r *run) SetState(state map[string]any) {
	if state == nil {
		state = map[string]any{}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.state = state
	r.pending, r.stale = true, true
}

func (r *run) Checkpoint(hook string, w runstore.Worker) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.mark = &runstore.Mark{Hook: hook, Worker: w}
	return nil
}

func (r *run) Append(e runstore.Event) error { return r.record(e, false) }
func (r *run) Commit(e runstore.Event) error { return r.record(e, true) }

// record appends e to the log with the state and checkpoint waiting for
// it, and applies it to the progress once it is written.
func (r *run) record(e runstore.Event, commit bool) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	// A process that lost its claim stops here, before its write could
	// overlay the record of the process that holds the run now: the
	// claim is read before every commit, and a log longer than this
	// process left it (a cheap check, before every write) was written by
	// another process, one that took the run over and may have released
	// it since.
	if commit {
		if err := r.claim.verify(); err != nil {
			return err
		}
	}
	if l := r.events; l != nil {
		if size, err := l.f.Size(); err == nil && size != l.size {
			r.claim.setLost()
			return r.claim.errLost()
		}
	}
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	if e.Run == "" {
		e.Run = r.progress.RunID
		if e.Start != nil {
			e.Run = e.Start.RunID
		}
	}
	if r.pending {
		st, err := json.Marshal(r.state)
		if err != nil {
			return fmt.Errorf("encoding state: %w", err)
		}
		e.State = st
	}
	if r.mark != nil {
		e.Checkpoint = r.mark
	}
	if final := terminal(&e); final {
		// A finished run is never resumed, so nothing would rebuild its
		// snapshots after a kill: write them, as they will be, before the
		// record says it finished. A kill in between leaves a run that
		// resumes and finishes again.
		p := r.progress.Clone()
		p.Apply(&e)
		if err := r.snapshot(&p); err != nil {
			return err
		}
	}
	if err := r.appendLine(&r.events, EventsFile, e); err != nil {
		return err
	}
	if commit && r.durable {
		if err := r.events.f.Sync(); err != nil {
			return &runstore.WriteError{Err: fmt.Errorf("syncing %s: %w", EventsFile, err)}
		}
	}
	r.pending = false
	if m := r.mark; m != nil {
		r.taken++
		r.threads = append(r.threads, runstore.Checkpoint{N: r.taken, Time: e.Time, Hook: m.Hook, Worker: m.Worker, State: r.lastState(e)})
		r.mark = nil
	}
	r.progress.Apply(&e)
	r.moved = true
	if commit && time.Since(r.snapped) >= SnapshotEvery {
		return r.flush(true)
	}
	return nil
}

// lastState is the state as recorded up to e, encoded.
func (r *run) lastState(e runstore.Event) json.RawMessage {
	if e.State != nil {
		return e.State
	}
	st, _ := json.Marshal(r.state)
	return st
}

func (r *run) Metric(m runstore.Metric) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if m.Time.IsZero() {
		m.Time = time.Now()
	}
	if m.Run == "" {
		m.Run = r.progress.RunID
	}
	return r.appendLine(&r.metrics, MetricsFile, m)
}

func (r *run) Log(name, text string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	f := r.logs[name]
	if f == nil {
		dir := filepath.Join(r.dir, LogsDir)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return &runstore.WriteError{Err: err}
		}
		var err error
		f, err = os.OpenFile(filepath.Join(dir, name+".log"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return &runstore.WriteError{Err: err}
		}
		r.logs[name] = f
	}
	if _, err := f.WriteString(text); err != nil {
		return &runstore.WriteError{Err: err}
	}
	return nil
}

// Flush writes state.json now if it is behind: before a process of the
// skill starts (a shell step, a hook, the agent), so that what it reads is
// the state. The other snapshots wait for their time or the end.
func (r *run) Flush() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.flush(false)
}

// terminal reports whether e ends the run.
func terminal(e *runstore.Event) bool {
	return e.Phase == "" && e.Action == "" && e.Step == "" && runstore.RunState(e.To).Terminal()
}

// snapshot writes every snapshot now, the progress as p says.
func (r *run) snapshot(p *runstore.Progress) error {
	if err := r.flush(false); err != nil {
		return err
	}
	if err := writeFile(r.files, filepath.Join(r.dir, ProgressFile), runstore.EncodeProgress(p), false); err != nil {
		return err
	}
	return r.writeThreads()
}

// flush writes state.json if it is behind and, with all set, the other
// snapshots that are.
func (r *run) flush(all bool) error {
	var errs []error
	if r.stale {
		data, err := runstore.EncodeState(r.state)
		if err == nil {
			err = writeFile(r.files, filepath.Join(r.dir, StateFile), data, false)
		}
		if err == nil {
			r.stale = false
		}
		errs = append(errs, err)
	}
	if !all {
		return errors.Join(errs...)
	}
	if r.moved {
		err := writeFile(r.files, filepath.Join(r.dir, ProgressFile), runstore.EncodeProgress(&r.progress), false)
		if err == nil {
			r.moved = false
		}
		errs = append(errs, err)
	}
	r.snapped = time.Now()
	errs = append(errs, r.writeThreads())
	return errors.Join(errs...)
}

// writeThreads writes the checkpoints not yet in threads/, and forgets
// them: the log has them, so memory holds a snapshot period's worth.
func (r *run) writeThreads() error {
	if len(r.threads) == 0 {
		return nil
	}
	dir := filepath.Join(r.dir, ThreadsDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return &runstore.WriteError{Err: fmt.Errorf("writing checkpoints: %w", err)}
	}
	for len(r.threads) > 0 {
		c := r.threads[0]
		data, err := json.Marshal(c)
		if err != nil {
			return fmt.Errorf("encoding checkpoint: %w", err)
		}
		if err := writeFile(r.files, filepath.Join(dir, strconv.Itoa(c.N)+".json"), append(data, '\n'), false); err != nil {
			return err
		}
		r.threads = r.threads[1:]
	}
	r.threads = nil
	return nil
}

// appendLine writes v as one JSON line with a single write call, so that a
// killed process leaves whole lines (and at worst one partial last line).
func (r *run) appendLine(lf **logFile, name string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encoding %s line: %w", name, err)
	}
	if *lf == nil {
		f, err := r.files.OpenAppend(filepath.Join(r.dir, name))
		if err != nil {
			return &runstore.WriteError{Err: fmt.Errorf("opening %s: %w", name, err)}
		}
		size, _ := f.Size()
		*lf = &logFile{f: f, torn: endsMidLine(f, size), size: size}
	}
	l := *lf
	line := append(data, '\n')
	if l.torn {
		line = append([]byte{'\n'}, line...)
	}
	n, err := l.f.Write(line)
	l.size += int64(n)
	if err != nil {
		l.torn = n > 0 || l.torn
		return &runstore.WriteError{Err: fmt.Errorf("appending to %s: %w", name, err)}
	}
	l.torn = false
	return nil
}

// endsMidLine reports whether the file, size bytes long, is not empty and
// its last byte is not a newline.
func endsMidLine(f AppendFile, size int64) bool {
	if size == 0 {
		return false
	}
	var b [1]byte
	_, err := f.ReadAt(b[:], size-1)
	return err == nil && b[0] != '\n'
}

// Close writes the snapshots, releases the claim and closes the files.
func (r *run) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	var errs []error
	if r.claim.verify() == nil {
		// Otherwise the run is another process's now: its snapshots
		// are not ours to write.
		errs = append(errs, r.flush(true))
	}
	for _, lf := range []*logFile{r.events, r.metrics} {
		if lf != nil {
			errs = append(errs, lf.f.Close())
		}
	}
	r.events, r.metrics = nil, nil
	for name, f := range r.logs {
		errs = append(errs, f.Close())
		delete(r.logs, name)
	}
	errs = append(errs, r.claim.release(r.progress.RunState == runstore.RunRunning))
	return errors.Join(errs...)
}
