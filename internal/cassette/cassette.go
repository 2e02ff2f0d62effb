// Package cassette records the agent exchanges of a run to a file
// (skillkit run --record) and plays them back in place of the agent
// (skillkit test). It works at the agent's one boundary, agent.Tape, so
// that steps, actions, selections, confirmations and Tasks are recorded
// alike.
//
// A cassette is JSON Lines: a header line, then one exchange per line,
// written as each call ends, so that a run killed halfway leaves the
// exchanges it made. Prompts and replies are kept with the run's folders,
// ids and times replaced by placeholders, so that a replay in another
// work dir, at another time, matches them; secrets are scrubbed.
package cassette

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/skillkit/skillkit/internal/skillfs"
)

// Version is the cassette format this skillkit writes and reads. A
// cassette of another version is refused with a word on re-recording it.
const Version = 1

// NoAgent is the Header.Agent of a run that had no agent: its replay
// has none either, as an agent changes what a run does (it takes over
// native code that fails).
const NoAgent = "none"

// Header is a cassette's first line.
type Header struct {
	// Cassette is the format's version.
	Cassette int `json:"cassette"`
	// Skill is the name of the skill recorded: a cassette replays only
	// its own skill.
	Skill string `json:"skill"`
	// Agent is the adapter that was recorded (agent.Adapter): claude and
	// codex keep a conversation, so their prompts leave [CONTEXT] out
	// after the first call, and a replay must render prompts the same way;
	// NoAgent for a run without one.
	Agent string `json:"agent"`
	// SkillFiles are the skill's files when it was recorded (SkillFiles):
	// a replay that fails says which changed since. A cassette recorded
	// before this field has none.
	SkillFiles map[string]string `json:"skillFiles,omitempty"`
}

// Exchange is one recorded agent call.
type Exchange struct {
	// Request is the kind of work (step, action, select, task, confirm).
	Request string `json:"request"`
	// Unit is the phase or action the call was made in; ID the step
	// (01-collect#2), action, "select", "task" or "<phase>-outputs".
	Unit string `json:"unit,omitempty"`
	ID   string `json:"id"`
	// Attempt counts the calls of the same request and id, from 1: a
	// retried step's second call is attempt 2.
	Attempt int `json:"attempt"`
	// PromptHash is the SHA-256 of Prompt, which a replay matches.
	PromptHash string `json:"promptHash"`
	Prompt     string `json:"prompt"`
	Reply      string `json:"reply"`
	ExitCode   int    `json:"exitCode"`
	Stderr     string `json:"stderr,omitempty"`
	// Error is why the call failed when its exit code does not say.
	Error      string `json:"error,omitempty"`
	DurationMS int64  `json:"durationMs"`
	// CostUSD, Turns and Session are what the agent reported, if it did.
	CostUSD float64 `json:"costUsd,omitempty"`
	Turns   int     `json:"turns,omitempty"`
	Session string  `json:"session,omitempty"`
	// ContextTokens and ContextWindow are the conversation's context use
	// after the call, as the agent reported it: a replay sees the same
	// use, so it asks for the hand-off, and stops, where the run did.
	ContextTokens int `json:"contextTokens,omitempty"`
	ContextWindow int `json:"contextWindow,omitempty"`
	// Files are what the call changed in the work dir: the agent does
	// its work there, and a replay must leave the same files.
	Files []File `json:"files,omitempty"`
}

// File is a file an agent call wrote or removed, relative to the work
// dir. Text holds UTF-8 content, Base64 any other.
type File struct {
	Path    string      `json:"path"`
	Text    string      `json:"text,omitempty"`
	Base64  []byte      `json:"base64,omitempty"`
	Mode    fs.FileMode `json:"mode,omitempty"`
	Removed bool        `json:"removed,omitempty"`
}

// Cassette is a cassette file read.
type Cassette struct {
	Path string
	Header
	Exchanges []Exchange
	// Cut is the line cut short, left out, when there is one: a run
	// killed while writing its last exchange.
	Cut int
}

// Error is a cassette that cannot be used, at a line of its file.
type Error struct {
	File string
	Line int
	Msg  string
}

func (e *Error) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// ErrFormat is matched by the error of a cassette of another format
// version.
var ErrFormat = errors.New("cassette format")

// Load reads the cassette at path, refusing one of another format or of
// another skill than skill.
func Load(path, skill string) (*Cassette, error) {
	data, err := skillfs.ReadFile(filepath.Dir(path), filepath.Base(path))
	if err != nil {
		return nil, fmt.Errorf("reading the cassette: %w", err)
	}
	c := &Cassette{Path: path}
	// An editor may have put a byte order mark before the header.
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 256<<20)
	line := 0
	for sc.Scan() {
		line++
		text := sc.Bytes()
		if line == 1 {
			if err := json.Unmarshal(text, &c.Header); err != nil || c.Cassette == 0 {
				return nil, &Error{path, 1, "not a skillkit cassette: the first line must be a header such as {\"cassette\": 1, \"skill\": …}"}
			}
			switch {
			case c.Cassette != Version:
				return nil, &Error{path, 1, fmt.Sprintf("%v %d; this skillkit reads format %d: record it again (skillkit test --update)", ErrFormat, c.Cassette, Version)}
			case c.Skill != skill:
				return nil, &Error{path, 1, fmt.Sprintf("a cassette of the skill %q, not %q", c.Skill, skill)}
			}
			continue
		}
		if len(bytes.TrimSpace(text)) == 0 {
			continue
		}
		var x Exchange
		dec := json.NewDecoder(bytes.NewReader(text))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&x); err != nil {
			if line == lines(data) && !bytes.HasSuffix(data, []byte("\n")) {
				// The recording run stopped while writing its last
				// exchange: the ones before it still replay.
				c.Cut = line
				break
			}
			return nil, &Error{path, line, "reading an exchange: " + err.Error()}
		}
		switch {
		case x.Request == "" || x.ID == "":
			return nil, &Error{path, line, "an exchange needs its request and id"}
		case x.PromptHash != Hash(x.Prompt):
			// A replay matches the hash: a prompt edited alone would
			// still answer the old one.
			return nil, &Error{path, line, "the promptHash is not the SHA-256 of the prompt: was the prompt edited? record the case again (skillkit test --update)"}
		}
		c.Exchanges = append(c.Exchanges, x)
	}
	if err := sc.Err(); err != nil {
		return nil, &Error{path, line + 1, err.Error()}
	}
	if line == 0 {
		return nil, &Error{path, 1, "empty cassette"}
	}
	return c, nil
}

// lines counts the lines of data, a last one without newline included.
func lines(data []byte) int {
	n := bytes.Count(data, []byte("\n"))
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	return n
}

// Hash is the prompt hash of a prompt as a cassette keeps it.
func Hash(prompt string) string {
	sum := sha256.Sum256([]byte(prompt))
	return hex.EncodeToString(sum[:])
}

// unitOf is the phase or action of a prompt id: a step's phase, the
// phase of a "-outputs" call, else the id itself.
func unitOf(id string) string {
	if unit, _, ok := strings.Cut(id, "#"); ok {
		return unit
	}
	return strings.TrimSuffix(id, "-outputs")
}
