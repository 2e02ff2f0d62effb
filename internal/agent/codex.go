package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/skillkit/skillkit/internal/proc"
)

// codex is OpenAI Codex's non-interactive mode, with its events as JSON
// lines. Codex names the conversation itself (thread.started), so the
// first call starts one and later calls resume the thread it reported.
// The sandbox lets it write in the work dir, which agent steps do; the
// work dir need not be a git repository.
//
// Codex reports transient trouble (a reconnect) as "error" events and
// goes on; the turn's own outcome, turn.completed or turn.failed, decides
// the call.
type codex struct{}

// codexSandbox is the sandbox of every call. `exec resume` has no
// --sandbox flag: there it goes as the configuration key.
const codexSandbox = "workspace-write"

func (codex) command(_ *Agent, s *Session, p *Prompt) (string, []string, func(), error) {
	args := []string{"exec"}
	if s.Thread != "" {
		args = append(args, "resume")
	}
	args = append(args, "--json", "--skip-git-repo-check")
	if s.Thread != "" {
		args = append(args, "-c", `sandbox_mode="`+codexSandbox+`"`)
	} else {
		args = append(args, "--sandbox", codexSandbox)
	}
	cleanup := func() {}
	if schema := strictSchemaOf(p.Request); schema != "" {
		f, err := os.CreateTemp("", "skillkit-schema-*.json")
		if err != nil {
			return "", nil, nil, fmt.Errorf("writing the answer's schema for codex: %w", err)
		}
		_, err = f.WriteString(schema)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(f.Name())
			return "", nil, nil, fmt.Errorf("writing the answer's schema for codex: %w", err)
		}
		args = append(args, "--output-schema", f.Name())
		cleanup = func() { os.Remove(f.Name()) }
	}
	if s.Thread != "" {
		args = append(args, s.Thread)
	}
	// "-" reads the prompt from stdin.
	return "codex", append(args, "-"), cleanup, nil
}

// strictSchemaOf is the answer's schema in the strict form codex's
// --output-schema requires (every property required, no others); ""
// where none can say the answer: an action's stateUpdates is an object
// of any keys, which a strict schema cannot allow.
func strictSchemaOf(r Request) string {
	switch r {
	case RequestSelect, RequestConfirm:
		s := schemaOf(r)
		return strings.TrimSuffix(s, "}") + `,"additionalProperties":false}`
	}
	return ""
}

func (codex) keepsContext() bool { return true }

func (codex) events(s *Session, stop func()) events {
	return &codexEvents{resumed: s.Thread, stop: stop}
}

// codexEvent is one line of `codex exec --json` output, the fields
// skillkit reads.
type codexEvent struct {
	Type     string `json:"type"`
	ThreadID string `json:"thread_id"`
	Item     struct {
		Type    string `json:"type"`
		Text    string `json:"text"`
		Command string `json:"command"`
		Server  string `json:"server"`
		Tool    string `json:"tool"`
		Message string `json:"message"`
	} `json:"item"`
	Error struct {
		Message string `json:"message"`
	} `json:"error"`
	Message string `json:"message"`
	Usage   struct {
		InputTokens  int `json:"input_tokens"`
		OutputTokens int `json:"output_tokens"`
	} `json:"usage"`
}

// codexEvents reads one call's events.
type codexEvents struct {
	// resumed is the thread the call resumes, "" for a first call;
	// stop ends the call early when codex started another.
	resumed string
	stop    func()
	lost    bool

	thread, text, tool string
	turns              int
	usage              Usage
	completed          bool
	// failed is turn.failed's message; fatal the last error event that
	// is not a reconnect.
	failed, fatal string
	// waiting is the reconnect codex reports since its last progress.
	waiting  string
	bad, cut int
	badLine  string
}

// transient reports whether an error event is one codex recovers from
// by itself: "Reconnecting... 2/5 (…)", "Reconnecting... waiting for
// network (…)".
func transient(msg string) bool { return strings.HasPrefix(msg, "Reconnecting...") }

func (c *codexEvents) line(b []byte, cut bool) bool {
	if cut {
		c.cut++
		return true
	}
	var e codexEvent
	if err := json.Unmarshal(b, &e); err != nil {
		c.bad++
		c.badLine = string(b)
		return true
	}
	switch e.Type {
	case "thread.started":
		c.thread = e.ThreadID
		if c.resumed != "" && e.ThreadID != c.resumed && !c.lost {
			// `resume` of a thread codex does not know starts another
			// without [CONTEXT]: stop before the model works, and go
			// again with it.
			c.lost = true
			c.stop()
		}
	case "item.started", "item.completed":
		switch e.Item.Type {
		case "error":
			// A notice of codex's own ("Falling back from WebSockets to
			// HTTPS transport. stream disconnected …"): it still waits.
			c.waiting = e.Item.Message
			return false
		case "agent_message":
			if e.Type == "item.completed" {
				c.text = e.Item.Text
			}
		case "command_execution":
			c.tool = e.Item.Command
		case "mcp_tool_call":
			c.tool = e.Item.Server + "." + e.Item.Tool
		case "file_change", "web_search":
			c.tool = e.Item.Type
		}
	case "turn.completed":
		c.turns++
		c.completed = true
		c.usage.InputTokens += e.Usage.InputTokens
		c.usage.OutputTokens += e.Usage.OutputTokens
	case "turn.failed":
		c.failed = e.Error.Message
	case "error":
		if transient(e.Message) {
			c.waiting = e.Message
			return false
		}
		c.fatal = e.Message
	}
	c.waiting = ""
	return true
}

func (c *codexEvents) activity() Activity {
	return Activity{Agent: AdapterCodex, Tool: c.tool, Turns: c.turns, Waiting: c.waiting}
}

// errLostThread is a resume that did not continue the conversation
// (codex started another thread, or claude has no such session): the
// call goes again as a first call, with [CONTEXT].
var errLostThread = errors.New("the agent did not continue the conversation")

func (c *codexEvents) end(res proc.Result) (reply, error) {
	exitCode, stderr := res.ExitCode, res.Stderr
	out := reply{thread: c.thread, text: c.text, turns: c.turns, usage: c.usage}
	switch {
	case c.lost:
		return out, fmt.Errorf("codex started thread %s instead of resuming %s: %w", c.thread, c.resumed, errLostThread)
	case c.resumed != "" && c.thread == "" && strings.Contains(stderr, "no rollout found"):
		return out, fmt.Errorf("%s: %w", firstLine(stderrReason(stderr)), errLostThread)
	case c.failed != "":
		return out, errors.New(c.failed)
	case c.completed:
		return out, nil
	case c.fatal != "":
		return out, errors.New(c.fatal)
	case exitCode != 0 && stderrReason(stderr) != "":
		return out, errors.New(lastLines(stderrReason(stderr), 5))
	case c.cut > 0:
		return out, errors.New("codex printed a line longer than --output-tail keeps, and its turn did not complete")
	case c.bad > 0:
		return out, fmt.Errorf("reading codex's JSON events: %d line(s) are not JSON, and no turn completed; the last: %q", c.bad, tail(c.badLine, 200))
	case exitCode != 0:
		return out, fmt.Errorf("codex %s before its turn completed", exited(res))
	}
	return out, errors.New("codex's output ended before its turn completed (half a stream)")
}

// stderrReason is a command's stderr without the lines that say nothing
// of the call: codex's log lines and its warning about helper binaries,
// and the stack backtrace a Rust program (codex) prints after an error.
func stderrReason(s string) string {
	var keep []string
	for line := range strings.Lines(s) {
		line = strings.TrimRight(line, "\r\n")
		switch {
		case strings.HasPrefix(line, "Stack backtrace:"):
			return strings.TrimSpace(strings.Join(keep, "\n"))
		case strings.HasPrefix(line, "WARNING: proceeding"), strings.Contains(line, " ERROR codex_"), strings.Contains(line, " WARN codex_"):
			continue
		}
		keep = append(keep, line)
	}
	return strings.TrimSpace(strings.Join(keep, "\n"))
}
