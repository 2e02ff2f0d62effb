package cassette

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"

	"github.com/skillkit/skillkit/internal/agent"
	"github.com/skillkit/skillkit/internal/runstore/fsstore"
)

// Recorder writes a cassette as a run makes its agent calls; it is the
// agent.Tape of skillkit run --record.
type Recorder struct {
	scrub *Scrubber
	mu    sync.Mutex
	f     *os.File
	// attempts counts the calls begun per request and id.
	attempts map[string]int
	// n counts the agent exchanges written, mcp the MCP calls.
	n, mcp int
	err    error
	// mcpBefore is the work dir's files before the MCP call under way.
	mcpBefore map[string]string
	mcpErr    error
}

var _ agent.Tape = (*Recorder)(nil)

// Create starts a cassette at path, replacing what it held.
func Create(path string, h Header, s *Scrubber) (*Recorder, error) {
	h.Cassette = Version
	line, err := marshal(h)
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("recording: %w", err)
	}
	// One recording at a time: two runs writing the same cassette (two
	// --record-test of one name) would interleave their lines. The lock
	// goes with the file's close, or the process.
	if !fsstore.TryLock(f) {
		f.Close()
		return nil, fmt.Errorf("recording: %s is being recorded by another run; record under another name, or once it ends", path)
	}
	if err := f.Truncate(0); err != nil {
		f.Close()
		return nil, fmt.Errorf("recording: %w", err)
	}
	if _, err := f.Write(line); err != nil {
		f.Close()
		return nil, fmt.Errorf("recording: %w", err)
	}
	return &Recorder{scrub: s, f: f, attempts: map[string]int{}}, nil
}

// Continue goes on recording into the cassette at path, for a resumed
// run: its exchanges so far stay, and attempts count on from them. The
// header becomes h: a run that stopped for want of an agent and resumed
// with one replays with that agent. A missing file is created.
func Continue(path string, h Header, s *Scrubber) (*Recorder, error) {
	c, err := Load(path, h.Skill)
	if errors.Is(err, fs.ErrNotExist) {
		return Create(path, h, s)
	}
	if err != nil {
		return nil, err
	}
	r, err := Create(path, h, s)
	if err != nil {
		return nil, err
	}
	for _, x := range c.Exchanges {
		r.attempts[key(x.Request, x.ID)]++
		r.write(x, nil)
	}
	return r, nil
}

// Scrubber is what the recorder scrubs secrets with, for the files
// written beside its cassette.
func (r *Recorder) Scrubber() *Scrubber { return r.scrub }

// key is what attempts are counted by.
func key(request, id string) string { return request + "\x00" + id }

// Begin notes the work dir's files before the call, and returns what
// writes the exchange, with the files the call changed, once it ends.
func (r *Recorder) Begin(a *agent.Agent, x *agent.Exchange) (func(agent.Exchange), bool, error) {
	before, berr := WorkFiles(a.Dir)
	r.mu.Lock()
	k := key(string(x.Request), x.ID)
	r.attempts[k]++
	attempt := r.attempts[k]
	r.mu.Unlock()
	p := placeholdersOf(a)
	return func(x agent.Exchange) {
		prompt := p.prompt(r.scrub, x.Prompt)
		e := Exchange{
			Request: string(x.Request), Unit: unitOf(x.ID), ID: x.ID, Attempt: attempt, PromptHash: Hash(prompt), Prompt: prompt,
			Reply: r.scrub.Scrub(p.hide(x.Reply)), ExitCode: x.ExitCode, Stderr: r.scrub.Scrub(p.hide(x.Stderr)),
			Error: r.scrub.Scrub(p.hide(x.Err)), DurationMS: x.Duration.Milliseconds(), CostUSD: x.CostUSD, Turns: x.Turns, Session: x.Thread,
			ContextTokens: x.Usage.ContextTokens, ContextWindow: x.Usage.ContextWindow,
		}
		err := berr
		if err == nil {
			var after map[string]string
			if after, err = WorkFiles(a.Dir); err == nil {
				e.Files, err = changes(a.Dir, before, after)
			}
		}
		r.scrubFiles(e.Files, p)
		r.write(e, err)
	}, false, nil
}

// scrubFiles scrubs the files a call left, an agent's or an MCP
// server's alike: their names, their text and their bytes.
func (r *Recorder) scrubFiles(files []File, p placeholders) {
	for i := range files {
		f := &files[i]
		f.Path = r.scrub.Scrub(f.Path)
		f.Text = r.scrub.Scrub(p.hide(f.Text))
		if f.Base64 != nil {
			f.Base64 = r.scrub.ScrubBytes(f.Base64)
		}
	}
}

// write appends an exchange as one line; the first failure is kept for
// Close.
func (r *Recorder) write(e Exchange, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err == nil {
		var line []byte
		if line, err = marshal(e); err == nil {
			_, err = r.f.Write(line)
		}
	}
	if err != nil && r.err == nil {
		r.err = fmt.Errorf("recording the %s call %s: %w", e.Request, e.ID, err)
	}
	if e.Request == RequestMCP {
		r.mcp++
	} else {
		r.n++
	}
}

// marshal is v as one line of JSON; prompts keep their <, > and & as
// they are, for a person reading the cassette.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	err := enc.Encode(v)
	return b.Bytes(), err
}

// Exchanges is how many agent exchanges were recorded.
func (r *Recorder) Exchanges() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n
}

// MCPCalls is how many MCP calls were recorded.
func (r *Recorder) MCPCalls() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.mcp
}

// Close ends the cassette; its error is the first the recording met.
func (r *Recorder) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	err := r.f.Close()
	if r.err != nil {
		return r.err
	}
	return err
}
