package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/skillkit/skillkit/internal/proc"
)

// claude is Claude Code in print mode, streaming its events
// (stream-json). The first call of a run starts the conversation under
// the run's session id; later ones resume it; a Task starts one of its
// own. Where the answer must be JSON, --json-schema makes Claude Code
// enforce it.
//
// Claude Code exits 1 with nothing on stderr when it fails for want of a
// login: the reason is in its result event on stdout. So the result is
// read whatever the exit code, and the session it names is recorded even
// when the call failed, as Claude Code saved it (a second --session-id of
// the same id is refused as "already in use").
type claude struct{}

func (claude) command(a *Agent, s *Session, p *Prompt) (string, []string, func(), error) {
	args := []string{"-p", "--output-format", "stream-json", "--verbose"}
	switch {
	case s.Thread != "":
		args = append(args, "--resume", s.Thread)
	case s.ID != "":
		// A call outside the run's conversation has no id: claude names
		// its own.
		args = append(args, "--session-id", s.ID)
	}
	if schema := schemaOf(p.Request); schema != "" {
		args = append(args, "--json-schema", schema)
	}
	if len(a.AllowedTools) > 0 {
		// The flag takes the rest of the arguments: it goes last.
		args = append(args, "--allowedTools")
		args = append(args, a.AllowedTools...)
	}
	return "claude", args, func() {}, nil
}

func (claude) keepsContext() bool { return true }

func (claude) events(*Session, func()) events { return &claudeEvents{} }

// claudeEvent is the part of a stream-json line skillkit reads: the
// system init event (the session), assistant messages (text, tool use,
// usage) and the result.
type claudeEvent struct {
	Type      string `json:"type"`
	Subtype   string `json:"subtype"`
	SessionID string `json:"session_id"`
	Message   struct {
		Usage   claudeUsage `json:"usage"`
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
			Name string `json:"name"`
		} `json:"content"`
	} `json:"message"`
	IsError          bool            `json:"is_error"`
	Result           string          `json:"result"`
	Errors           []string        `json:"errors"`
	NumTurns         int             `json:"num_turns"`
	TotalCostUSD     float64         `json:"total_cost_usd"`
	StructuredOutput json.RawMessage `json:"structured_output"`
	Usage            claudeUsage     `json:"usage"`
	ModelUsage       map[string]struct {
		ContextWindow int `json:"contextWindow"`
	} `json:"modelUsage"`
	// Attempt, MaxRetries, ErrorStatus and Error are an api_retry
	// event's: Claude Code retrying a model request that failed. Error
	// is kept raw, as other events may hold another shape there.
	Attempt     int             `json:"attempt"`
	MaxRetries  int             `json:"max_retries"`
	ErrorStatus *int            `json:"error_status"`
	Error       json.RawMessage `json:"error"`
}

// retrying says an api_retry event in words: "API request retry 3/10
// (error: unknown)".
func (e *claudeEvent) retrying() string {
	why := "error: unknown"
	var s string
	if json.Unmarshal(e.Error, &s) == nil && s != "" {
		why = "error: " + s
	}
	if e.ErrorStatus != nil {
		why = fmt.Sprintf("HTTP %d, %s", *e.ErrorStatus, why)
	}
	return fmt.Sprintf("API request retry %d/%d (%s)", e.Attempt, e.MaxRetries, why)
}

// claudeUsage is the usage of an assistant message (one model request)
// or, in the result, of the whole call.
type claudeUsage struct {
	InputTokens         int `json:"input_tokens"`
	OutputTokens        int `json:"output_tokens"`
	CacheReadTokens     int `json:"cache_read_input_tokens"`
	CacheCreationTokens int `json:"cache_creation_input_tokens"`
}

// input is the tokens read, cached ones included.
func (u claudeUsage) input() int { return u.InputTokens + u.CacheReadTokens + u.CacheCreationTokens }

// claudeEvents reads one call's stream.
type claudeEvents struct {
	session string
	tool    string
	turns   int
	text    string
	// context is the size of the conversation after the last model
	// request that reported its usage.
	context int
	result  *claudeEvent
	// waiting is the API retry Claude Code reports since its last
	// progress.
	waiting string
	// bad counts lines that are not JSON; cut, lines too long to keep.
	bad, cut int
	badLine  string
}

func (c *claudeEvents) line(b []byte, cut bool) bool {
	if cut {
		c.cut++
		return true
	}
	var e claudeEvent
	if err := json.Unmarshal(b, &e); err != nil {
		c.bad++
		c.badLine = string(b)
		return true
	}
	if e.SessionID != "" {
		c.session = e.SessionID
	}
	if e.Type == "system" && e.Subtype == "api_retry" {
		// Claude Code waits for the model's API: no progress, and what
		// a stall or a timeout names.
		c.waiting = e.retrying()
		return false
	}
	c.waiting = ""
	switch e.Type {
	case "assistant":
		c.turns++
		if u := e.Message.Usage; u.input()+u.OutputTokens > 0 {
			c.context = u.input() + u.OutputTokens
		}
		for _, part := range e.Message.Content {
			switch part.Type {
			case "tool_use":
				c.tool = part.Name
			case "text":
				c.text = part.Text
			}
		}
	case "result":
		c.result = &e
	}
	return true
}

func (c *claudeEvents) activity() Activity {
	return Activity{Agent: AdapterClaude, Tool: c.tool, Turns: c.turns, Waiting: c.waiting}
}

// errInUse is the failure of a --session-id that Claude Code already
// saved: the call goes again with --resume.
var errInUse = errors.New("already in use")

func (c *claudeEvents) end(res proc.Result) (reply, error) {
	exitCode, stderr := res.ExitCode, res.Stderr
	out := reply{thread: c.session, text: c.text}
	r := c.result
	if r == nil {
		switch {
		case strings.Contains(stderr, "is already in use"):
			return out, fmt.Errorf("%s: %w", firstLine(stderr), errInUse)
		case exitCode != 0 && strings.TrimSpace(stderr) != "":
			return out, errors.New(lastLines(strings.TrimSpace(stderr), 5))
		case c.cut > 0:
			return out, errors.New("claude printed a line longer than --output-tail keeps, and no result")
		case c.bad > 0:
			return out, fmt.Errorf("reading claude's stream-json output: %d line(s) are not JSON, and no result came; the last: %q", c.bad, tail(c.badLine, 200))
		case exitCode != 0:
			return out, fmt.Errorf("claude %s before its result", exited(res))
		}
		return out, errors.New("claude's output ended before its result (half a stream)")
	}
	out.text, out.turns, out.cost = r.Result, r.NumTurns, r.TotalCostUSD
	out.usage = Usage{InputTokens: r.Usage.input(), OutputTokens: r.Usage.OutputTokens, ContextTokens: c.context}
	if c.context == 0 {
		// No message said its usage: the call's is the best guess.
		out.usage.ContextTokens = r.Usage.input() + r.Usage.OutputTokens
	}
	for _, m := range r.ModelUsage {
		out.usage.ContextWindow = max(out.usage.ContextWindow, m.ContextWindow)
	}
	if r.IsError || r.Subtype != "success" {
		msg := strings.TrimSpace(r.Result)
		if len(r.Errors) > 0 {
			msg = strings.Join(r.Errors, "; ")
		}
		if msg == "" {
			msg = "claude reported " + r.Subtype
		}
		if strings.Contains(msg, "No conversation found with session ID") {
			// Its sessions were cleared, or the run moved to another
			// machine: the call starts the session again, with [CONTEXT].
			return out, fmt.Errorf("%s: %w", msg, errLostThread)
		}
		return out, errors.New(msg)
	}
	// With --json-schema the validated answer is the structured output;
	// the result text may only describe it.
	if len(r.StructuredOutput) > 0 && string(r.StructuredOutput) != "null" {
		out.text = string(r.StructuredOutput)
	}
	return out, nil
}
