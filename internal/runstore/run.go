// Package store is the run directory of DESIGN §3.2: the files a run of a
// skill leaves on disk, written so that a crash at any moment leaves them
// readable and the run resumable.
//
// state.json and skill-state.yaml are replaced atomically (WriteFile) after
// every change. events.jsonl and metrics.jsonl are appended one whole line
// per write, so a killed process leaves at most a partial last line, which
// readers skip. claim.json says which process runs the run (Claim).
package runstore

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"
)

// Names of the files in a run directory.
const (
	StateFile    = "state.json"
	ProgressFile = "skill-state.yaml"
	EventsFile   = "events.jsonl"
	MetricsFile  = "metrics.jsonl"
	ClaimFile    = "claim.json"
	ThreadsDir   = "threads"
	LogsDir      = "logs"
)

// ErrNoRun is returned when a folder holds no run.
var ErrNoRun = errors.New("no run")

// ErrCorrupt is wrapped by the error of a run file that does not parse:
// skillkit writes them atomically, so something else changed or damaged
// them. The error names the file and the position of the damage.
var ErrCorrupt = errors.New("run file is damaged")

// Options tune how a run directory is written.
type Options struct {
	// NoSync skips the fsyncs of WriteFile: faster, and still safe against
	// a killed process, but not against a power loss. Tests use it.
	NoSync bool
}

// Run is an open run directory. Its methods are safe for concurrent use.
type Run struct {
	// Dir is the run directory, which is also the work dir of its steps.
	Dir string
	// Restored is the checkpoint a resume restored a deleted state.json
	// from, or "".
	Restored string

	durable bool

	mu       sync.Mutex
	progress Progress
	events   *os.File
	metrics  *os.File
	threads  int
	// torn names the .jsonl logs whose last line is partial (a killed
	// writer, a full disk): the next line starts with a newline.
	torn map[string]bool
}

// NewID returns a run id: the UTC start time, sortable, and a random suffix
// so that two runs started in the same second differ.
func NewID(now time.Time) string {
	var b [3]byte
	rand.Read(b[:])
	return now.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}

// RunsRoot is where runs live under a base folder: .skillkit/runs.
func RunsRoot(base string) string { return filepath.Join(base, ".skillkit", "runs") }

// DefaultDir is the run directory of a new run: .skillkit/runs/<skill>/<id>
// under base.
func DefaultDir(base, skill, id string) string {
	return filepath.Join(RunsRoot(base), skill, id)
}

// Create makes a new run in dir (which may exist, as with --workdir, but
// must hold no run yet) with its first progress and state.
func Create(dir string, p Progress, state map[string]any, opts Options) (*Run, error) {
	if _, err := os.Stat(filepath.Join(dir, ProgressFile)); err == nil {
		return nil, fmt.Errorf("creating run in %s: the folder already holds a run; resume it with --resume %s", dir, dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating run: %w", err)
	}
	r := &Run{Dir: dir, durable: !opts.NoSync, progress: p.clone(), torn: map[string]bool{}}
	if err := r.SaveState(state); err != nil {
		return nil, err
	}
	if err := r.saveProgress(r.durable); err != nil {
		return nil, err
	}
	return r, nil
}

// Open opens the run in dir. It removes temporary files a killed writer
// left behind.
func Open(dir string, opts Options) (*Run, error) {
	p, err := ReadProgress(dir)
	if err != nil {
		return nil, err
	}
	removeTemps(dir, StateFile, ProgressFile, ClaimFile)
	removeTemps(filepath.Join(dir, ThreadsDir))
	r := &Run{Dir: dir, durable: !opts.NoSync, progress: *p, torn: map[string]bool{}}
	r.threads = countThreads(dir)
	return r, nil
}

// ReadProgress reads skill-state.yaml of the run in dir.
func ReadProgress(dir string) (*Progress, error) {
	data, err := os.ReadFile(filepath.Join(dir, ProgressFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("opening run %s: %w (no %s)", dir, ErrNoRun, ProgressFile)
	}
	if err != nil {
		return nil, fmt.Errorf("opening run: %w", err)
	}
	var p Progress
	if err := yaml.Unmarshal(data, &p); err != nil {
		return nil, corrupt(filepath.Join(dir, ProgressFile), data, err)
	}
	return &p, nil
}

// ID is the run's id.
func (r *Run) ID() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.progress.RunID
}

// Progress returns a copy of the run's progress.
func (r *Run) Progress() Progress {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.progress.clone()
}

// Update changes the progress with fn and writes skill-state.yaml. When the
// write fails the change is undone, so memory and disk agree.
func (r *Run) Update(fn func(p *Progress)) error {
	return r.update(fn, r.durable)
}

// Note is Update without waiting for the disk (no fsync; the write is still
// atomic): for changes only a status display reads, such as the step now
// running, which a power loss may forget without harm.
func (r *Run) Note(fn func(p *Progress)) error {
	return r.update(fn, false)
}

func (r *Run) update(fn func(p *Progress), durable bool) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	old := r.progress.clone()
	fn(&r.progress)
	if err := r.saveProgress(durable); err != nil {
		r.progress = old
		return err
	}
	return nil
}

func (r *Run) saveProgress(durable bool) error {
	return WriteFile(filepath.Join(r.Dir, ProgressFile), encodeProgress(&r.progress), durable)
}

// State reads state.json.
func (r *Run) State() (map[string]any, error) {
	return ReadState(r.Dir)
}

// ReadState reads state.json of the run in dir.
func ReadState(dir string) (map[string]any, error) {
	s, err := readJSON[map[string]any](filepath.Join(dir, StateFile))
	if err != nil {
		return nil, err
	}
	if *s == nil {
		return map[string]any{}, nil
	}
	return *s, nil
}

// readJSON reads a JSON file of the run directory. A missing file is an
// error that wraps fs.ErrNotExist.
func readJSON[T any](path string) (*T, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", filepath.Base(path), err)
	}
	var v T
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, corrupt(path, data, err)
	}
	return &v, nil
}

// yamlErrLine finds the line in a yaml.v3 error ("yaml: line 3: …").
var yamlErrLine = regexp.MustCompile(`line (\d+)`)

// corrupt is the error for a run file that does not parse, positioned at
// the damage as file:line:col where the decoder says where.
func corrupt(path string, data []byte, err error) error {
	off := int64(-1)
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	pos := path
	if off >= 0 {
		off = min(off, int64(len(data)))
		line := 1 + bytes.Count(data[:off], []byte("\n"))
		col := off - int64(bytes.LastIndexByte(data[:off], '\n'))
		if off > 0 && data[off-1] != '\n' {
			// The offset is just past the offending byte.
			col--
		}
		pos = fmt.Sprintf("%s:%d:%d", path, line, max(col, 1))
	} else if m := yamlErrLine.FindStringSubmatch(err.Error()); m != nil {
		pos = path + ":" + m[1]
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return fmt.Errorf("%s: %w: the file is empty", pos, ErrCorrupt)
	}
	return fmt.Errorf("%s: %w: %v", pos, ErrCorrupt, err)
}

// SaveState replaces state.json atomically.
func (r *Run) SaveState(state map[string]any) error {
	if state == nil {
		state = map[string]any{}
	}
	data, err := json.MarshalIndent(state, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding state: %w", err)
	}
	return WriteFile(filepath.Join(r.Dir, StateFile), append(data, '\n'), r.durable)
}

// Close closes the log files. The run directory stays as it is.
func (r *Run) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	var errs []error
	for _, f := range []**os.File{&r.events, &r.metrics} {
		if *f != nil {
			errs = append(errs, (*f).Close())
			*f = nil
		}
	}
	return errors.Join(errs...)
}
