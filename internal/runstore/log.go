package runstore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Event is one line of events.jsonl: one transition of the run, a phase, an
// action or a step from one lifecycle state to the next (DESIGN §3.1).
type Event struct {
	Time   time.Time `json:"time"`
	Run    string    `json:"run"`
	Phase  string    `json:"phase,omitempty"`
	Action string    `json:"action,omitempty"`
	Step   string    `json:"step,omitempty"`
	From   string    `json:"from"`
	To     string    `json:"to"`
	Detail string    `json:"detail,omitempty"`
}

// Metric kinds.
const (
	KindPhase  = "phase"
	KindAction = "action"
	KindStep   = "step"
)

// Metric is one line of metrics.jsonl: a phase, action or step that
// finished, however it finished.
type Metric struct {
	Time   time.Time `json:"time"`
	Run    string    `json:"run"`
	Kind   string    `json:"kind"`
	Phase  string    `json:"phase,omitempty"`
	Action string    `json:"action,omitempty"`
	Step   string    `json:"step,omitempty"`
	// DurationMS is the wall time in milliseconds, retries and backoff
	// included.
	DurationMS float64 `json:"duration_ms"`
	Attempts   int     `json:"attempts"`
	Outcome    string  `json:"outcome"`
}

// Event appends e to events.jsonl, filling in the time and run id when
// they are zero.
func (r *Run) Event(e Event) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	if e.Run == "" {
		e.Run = r.progress.RunID
	}
	return r.appendLine(&r.events, EventsFile, e)
}

// Metric appends m to metrics.jsonl, filling in the time and run id when
// they are zero.
func (r *Run) Metric(m Metric) error {
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

// appendLine writes v as one JSON line with a single write call, so that a
// killed process leaves whole lines (and at worst one partial last line).
func (r *Run) appendLine(f **os.File, name string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encoding %s line: %w", name, err)
	}
	path := filepath.Join(r.Dir, name)
	if *f == nil {
		*f, err = os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return &writeError{fmt.Errorf("opening %s: %w", name, err)}
		}
		// A process killed mid-write, or a full disk, can leave a partial
		// last line: end it, so the next line starts on its own.
		if endsMidLine(*f) {
			r.torn[name] = true
		}
	}
	line := append(data, '\n')
	if r.torn[name] {
		line = append([]byte{'\n'}, line...)
	}
	if ferr := fault(path); ferr != nil {
		(*f).Write(line[:len(line)/2])
		r.torn[name] = true
		return &writeError{fmt.Errorf("appending to %s: %w", name, ferr)}
	}
	if n, err := (*f).Write(line); err != nil {
		r.torn[name] = n > 0 || r.torn[name]
		return &writeError{fmt.Errorf("appending to %s: %w", name, err)}
	}
	r.torn[name] = false
	return nil
}

// endsMidLine reports whether the file is not empty and its last byte is
// not a newline.
func endsMidLine(f *os.File) bool {
	st, err := f.Stat()
	if err != nil || st.Size() == 0 {
		return false
	}
	var b [1]byte
	_, err = f.ReadAt(b[:], st.Size()-1)
	return err == nil && b[0] != '\n'
}

// ReadEvents reads events.jsonl of the run in dir, skipping a partial last
// line left by a killed process.
func ReadEvents(dir string) ([]Event, error) {
	return readLines[Event](filepath.Join(dir, EventsFile))
}

// ReadMetrics reads metrics.jsonl of the run in dir.
func ReadMetrics(dir string) ([]Metric, error) {
	return readLines[Metric](filepath.Join(dir, MetricsFile))
}

func readLines[T any](path string) ([]T, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	// A killed writer can leave a partial last line: drop it. Any other
	// line that does not parse is damage and reported.
	if i := bytes.LastIndexByte(data, '\n'); i < len(data)-1 {
		data = data[:i+1]
	}
	var out []T
	for n, line := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		var v T
		if err := json.Unmarshal(line, &v); err != nil {
			var se *json.SyntaxError
			if errors.As(err, &se) && se.Offset == int64(len(line)) {
				// A line cut short (a full disk, then a later line that
				// ended it) is a lost line, not damage.
				continue
			}
			return out, fmt.Errorf("%s:%d: %w", path, n+1, err)
		}
		out = append(out, v)
	}
	return out, nil
}

// Worker is the worker record of a checkpoint: the phase or action that
// was running when it was taken.
type Worker struct {
	ID          string     `json:"id"`
	Skill       string     `json:"skill"`
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
	Hook   string         `json:"hook"`
	State  map[string]any `json:"state"`
	Worker Worker         `json:"worker"`
}

// Checkpoint writes c as the next threads/<n>.json and returns its path.
func (r *Run) Checkpoint(c Checkpoint) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	dir := filepath.Join(r.Dir, ThreadsDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", &writeError{fmt.Errorf("writing checkpoint: %w", err)}
	}
	r.threads++
	c.N = r.threads
	if c.Time.IsZero() {
		c.Time = time.Now()
	}
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		r.threads--
		return "", fmt.Errorf("encoding checkpoint: %w", err)
	}
	path := filepath.Join(dir, strconv.Itoa(c.N)+".json")
	// Checkpoints are history: atomic, but not worth an fsync each; the
	// resume reads state.json and skill-state.yaml, which are synced.
	if err := WriteFile(path, append(data, '\n'), false); err != nil {
		r.threads--
		return "", err
	}
	return path, nil
}

// countThreads returns the highest checkpoint number in threads/.
func countThreads(dir string) int {
	entries, _ := os.ReadDir(filepath.Join(dir, ThreadsDir))
	n := 0
	for _, e := range entries {
		if i, err := strconv.Atoi(strings.TrimSuffix(e.Name(), ".json")); err == nil && i > n {
			n = i
		}
	}
	return n
}
