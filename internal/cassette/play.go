package cassette

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/diff"

	"github.com/skillkit/skillkit/internal/agent"
)

// Player answers a run's agent calls from recorded exchanges, so that no
// agent runs; it is the agent.Tape of skillkit test. A call is answered by
// the first exchange not yet used with its request, id and prompt hash;
// an exchange without a request or hash (an inline reply of a test file)
// answers any prompt of its id.
type Player struct {
	exchanges []Exchange
	scrub     *Scrubber
	mu        sync.Mutex
	used      []bool
	misses    []*MissError
	calls     int
	mcpCalls  int
}

var _ agent.Tape = (*Player)(nil)

// NewPlayer plays exchanges; s scrubs the prompts as the recording did,
// so that they hash the same.
func NewPlayer(exchanges []Exchange, s *Scrubber) *Player {
	return &Player{exchanges: exchanges, scrub: s, used: make([]bool, len(exchanges))}
}

// MissError is a call that nothing recorded answers: the prompt changed
// since the recording, or the run went where the recorded one did not.
type MissError struct {
	Request string
	ID      string
	Hash    string
	// Diff is a unified diff from the closest recorded prompt to this
	// one; empty when nothing of the request and id was recorded (or all
	// were used).
	Diff string
}

func (e *MissError) Error() string {
	what, differs := "prompt", "the prompt differs from the closest recorded one"
	if e.Request == RequestMCP {
		what, differs = "arguments", "the arguments differ from the closest recorded ones"
	}
	msg := fmt.Sprintf("no recorded reply for the %s call of %s (%s %s)", e.Request, e.ID, what, short(e.Hash))
	if e.Diff == "" {
		return msg + ": the cassette has no unused exchange for it; record the case again with skillkit test --update"
	}
	return msg + "; " + differs + ":\n" + e.Diff
}

// take finds the first unused exchange of request and id whose prompt
// hashes as prompt does, and marks it used; with none it notes and
// returns the miss, with a diff against the closest recorded prompt.
// Agent calls and MCP calls are looked up alike.
func (p *Player) take(request, id, prompt string) (*Exchange, *MissError) {
	hash := Hash(prompt)
	p.mu.Lock()
	defer p.mu.Unlock()
	i := p.match(request, id, hash)
	if i < 0 {
		miss := &MissError{Request: request, ID: id, Hash: hash, Diff: p.closest(request, id, prompt)}
		p.misses = append(p.misses, miss)
		return nil, miss
	}
	p.used[i] = true
	return &p.exchanges[i], nil
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// Begin answers the call from the recording and leaves the files the
// recorded call left.
func (p *Player) Begin(a *agent.Agent, x *agent.Exchange) (func(agent.Exchange), bool, error) {
	ph := placeholdersOf(a)
	p.mu.Lock()
	p.calls++
	p.mu.Unlock()
	e, miss := p.take(string(x.Request), x.ID, ph.prompt(p.scrub, x.Prompt))
	if miss != nil {
		return nil, true, miss
	}
	x.Reply, x.ExitCode, x.Stderr, x.Err = ph.show(e.Reply), e.ExitCode, ph.show(e.Stderr), ph.show(e.Error)
	x.Thread, x.Turns, x.CostUSD, x.Duration = e.Session, e.Turns, e.CostUSD, time.Duration(e.DurationMS)*time.Millisecond
	x.Usage = agent.Usage{ContextTokens: e.ContextTokens, ContextWindow: e.ContextWindow}
	if err := apply(a.Dir, e.Files, ph); err != nil {
		return nil, true, fmt.Errorf("replaying the %s call of %s: %w", x.Request, x.ID, err)
	}
	return nil, true, nil
}

// match is the first unused exchange that answers the call, or -1.
func (p *Player) match(request, id, hash string) int {
	for i, e := range p.exchanges {
		if p.used[i] || e.ID != id || e.Request != "" && e.Request != request {
			continue
		}
		if e.PromptHash == "" || e.PromptHash == hash {
			return i
		}
	}
	return -1
}

// closest diffs prompt against the recorded prompt of the same request
// and id that it differs least from, unused ones first.
func (p *Player) closest(request, id, prompt string) string {
	best := ""
	for _, unused := range []bool{true, false} {
		for i, e := range p.exchanges {
			if p.used[i] == unused || e.Request != request || e.ID != id || e.Prompt == "" {
				continue
			}
			d := string(diff.Diff("recorded", []byte(e.Prompt), "now", []byte(prompt)))
			if best == "" || len(d) < len(best) {
				best = d
			}
		}
		if best != "" {
			break
		}
	}
	// The diff's own first line ("diff recorded now") says nothing.
	if first, rest, ok := strings.Cut(best, "\n"); ok && strings.HasPrefix(first, "diff ") {
		best = rest
	}
	return strings.TrimRight(best, "\n")
}

// Misses are the calls nothing recorded answered, in order.
func (p *Player) Misses() []*MissError {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]*MissError(nil), p.misses...)
}

// Calls is how many agent calls the run made.
func (p *Player) Calls() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.calls
}
