package fsstore

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"path/filepath"
	"regexp"

	"github.com/skillkit/skillkit/internal/runstore"
)

// readLog reads events.jsonl of the run in dir. A partial last line (a
// writer killed mid-line) is dropped and said in the notes; a line cut
// short further up, and ended by the next write (a full disk), is a write
// that failed and is skipped; any other line that does not parse is
// damage, reported with its position.
func readLog(dir string) (*runstore.Log, error) {
	path := filepath.Join(dir, EventsFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, iofs.ErrNotExist) {
		return nil, fmt.Errorf("opening run %s: %w (no %s)", dir, runstore.ErrNoRun, EventsFile)
	}
	if err != nil {
		return nil, fmt.Errorf("opening run %s: %w", dir, err)
	}
	log := &runstore.Log{}
	lines := bytes.Split(data, []byte("\n"))
	tornAt := 0
	if last := lines[len(lines)-1]; len(last) > 0 {
		tornAt = len(lines)
	}
	lines = lines[:len(lines)-1]
	for n, line := range lines {
		if len(line) == 0 {
			continue
		}
		var e runstore.Event
		if err := json.Unmarshal(line, &e); err != nil {
			var se *json.SyntaxError
			if errors.As(err, &se) && se.Offset == int64(len(line)) {
				continue
			}
			return nil, corruptLine(path, n+1, line, err)
		}
		if len(log.Events) == 0 && e.Start == nil {
			return nil, fmt.Errorf("%s:%d: %w: the first event does not start a run (a run of an older skillkit cannot be resumed)", path, n+1, runstore.ErrCorrupt)
		}
		if e.Run == "" {
			// Written on the first line only (older logs have it on each).
			first := &e
			if len(log.Events) > 0 {
				first = &log.Events[0]
			}
			e.Run = cmp.Or(first.Run, first.Start.RunID)
		}
		log.Events = append(log.Events, e)
	}
	if len(log.Events) == 0 {
		// A writer killed before its first line was whole.
		if tornAt > 0 {
			return nil, fmt.Errorf("%s:%d: %w: its first line was cut short (the run was killed as it started); start a new run", path, tornAt, runstore.ErrNoRun)
		}
		return nil, fmt.Errorf("opening run %s: %w (%s holds no whole event)", dir, runstore.ErrNoRun, EventsFile)
	}
	if tornAt > 0 {
		log.Notes = append(log.Notes, fmt.Sprintf("%s:%d: the last line was cut short (the run was killed while writing it); it is ignored", path, tornAt))
	}
	return log, nil
}

// firstRun is the run id on the first line of the log in dir, "" when it
// cannot be read.
func firstRun(dir string) string {
	f, err := os.Open(filepath.Join(dir, EventsFile))
	if err != nil {
		return ""
	}
	defer f.Close()
	line, _ := bufio.NewReader(f).ReadBytes('\n')
	var e runstore.Event
	if json.Unmarshal(line, &e) != nil || e.Start == nil {
		return ""
	}
	return cmp.Or(e.Run, e.Start.RunID)
}

// corruptLine is the error for a log line that does not parse, at the
// column the decoder names.
func corruptLine(path string, n int, line []byte, err error) error {
	col := 1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		col = int(max(se.Offset, 1))
	case errors.As(err, &te):
		col = int(max(te.Offset, 1))
	}
	return fmt.Errorf("%s:%d:%d: %w: %v", path, n, min(col, len(line)+1), runstore.ErrCorrupt, err)
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

// yamlErrLine finds the line in a YAML decoder's error ("yaml: line 3: …").
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
		return fmt.Errorf("%s: %w: the file is empty", pos, runstore.ErrCorrupt)
	}
	return fmt.Errorf("%s: %w: %v", pos, runstore.ErrCorrupt, err)
}

func readLines[T any](path string) ([]T, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, iofs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
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
				continue
			}
			return out, corruptLine(path, n+1, line, err)
		}
		out = append(out, v)
	}
	return out, nil
}
