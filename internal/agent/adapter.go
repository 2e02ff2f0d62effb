package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
)

// adapter is how one kind of agent is called and how its output reads.
type adapter interface {
	// command is the program and arguments of a call.
	command(a *Agent, s *Session, p *Prompt) (name string, args []string)
	// parse reads the answer out of what the program printed.
	parse(stdout string) (reply, error)
	// keepsContext reports whether the agent remembers the conversation,
	// so that [CONTEXT] need not be sent again.
	keepsContext() bool
}

// reply is what a call answered, and what the agent said of its work.
type reply struct {
	text   string
	thread string
	turns  int
	cost   float64
}

// The adapters by name (Adapter).
const (
	AdapterClaude  = "claude"
	AdapterCodex   = "codex"
	AdapterCommand = "command"
)

// Adapter names the adapter that drives a command: claude and codex by
// their bare name, any other command line is a plain command. A cassette
// keeps it, as the prompts it recorded depend on it (see Prompt.Text).
func Adapter(command string) string {
	switch c := strings.TrimSpace(command); c {
	case AdapterClaude, AdapterCodex:
		return c
	}
	return AdapterCommand
}

// adapterFor picks the adapter of a command (see Adapter).
func adapterFor(command string) adapter {
	switch Adapter(command) {
	case AdapterClaude:
		return claude{}
	case AdapterCodex:
		return codex{}
	}
	return plain(command)
}

// plain is a command line run by the shell with the prompt on stdin; its
// stdout is the answer. It keeps no conversation.
type plain string

func (c plain) command(*Agent, *Session, *Prompt) (string, []string) {
	if runtime.GOOS == "windows" {
		return "cmd", []string{"/c", string(c)}
	}
	return "sh", []string{"-c", string(c)}
}

func (plain) parse(stdout string) (reply, error) { return reply{text: stdout}, nil }
func (plain) keepsContext() bool                 { return false }

// claude is Claude Code in print mode. The first call of a run starts the
// conversation under the run's session id; later ones resume it; a Task
// starts one of its own. Where the
// answer must be JSON, --json-schema makes Claude Code enforce it.
type claude struct{}

func (claude) command(a *Agent, s *Session, p *Prompt) (string, []string) {
	args := []string{"-p", "--output-format", "json"}
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
	return "claude", args
}

// claudeResult is the part of `claude -p --output-format json` output
// skillkit reads.
type claudeResult struct {
	Subtype          string          `json:"subtype"`
	IsError          bool            `json:"is_error"`
	Result           string          `json:"result"`
	SessionID        string          `json:"session_id"`
	NumTurns         int             `json:"num_turns"`
	TotalCostUSD     float64         `json:"total_cost_usd"`
	StructuredOutput json.RawMessage `json:"structured_output"`
}

func (claude) parse(stdout string) (reply, error) {
	var r claudeResult
	if err := json.Unmarshal([]byte(strings.TrimSpace(stdout)), &r); err != nil {
		return reply{}, fmt.Errorf("reading claude's JSON output: %w; it printed: %q", err, tail(stdout, 200))
	}
	out := reply{text: r.Result, thread: r.SessionID, turns: r.NumTurns, cost: r.TotalCostUSD}
	if r.IsError {
		return out, fmt.Errorf("claude reported an error (%s): %s", r.Subtype, tail(r.Result, 200))
	}
	// With --json-schema the validated answer is the structured output;
	// the result text may only describe it.
	if len(r.StructuredOutput) > 0 && string(r.StructuredOutput) != "null" {
		out.text = string(r.StructuredOutput)
	}
	return out, nil
}

func (claude) keepsContext() bool { return true }

// codex is OpenAI Codex's non-interactive mode. Codex names the
// conversation itself (thread.started), so the first call starts one and
// later calls resume the thread it reported. The sandbox lets it write in
// the work dir, which agent steps do; the work dir need not be a git
// repository.
type codex struct{}

func (codex) command(_ *Agent, s *Session, _ *Prompt) (string, []string) {
	args := []string{"exec", "--json", "--skip-git-repo-check", "--sandbox", "workspace-write"}
	if s.Thread != "" {
		args = append(args, "resume", s.Thread)
	}
	// "-" reads the prompt from stdin.
	return "codex", append(args, "-")
}

// codexEvent is one line of `codex exec --json` output, the fields
// skillkit reads.
type codexEvent struct {
	Type     string `json:"type"`
	ThreadID string `json:"thread_id"`
	Item     struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"item"`
	Error struct {
		Message string `json:"message"`
	} `json:"error"`
	Message string `json:"message"`
}

func (codex) parse(stdout string) (reply, error) {
	var out reply
	var failure string
	for line := range strings.Lines(stdout) {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "{") {
			continue
		}
		var e codexEvent
		if err := json.NewDecoder(bytes.NewReader([]byte(line))).Decode(&e); err != nil {
			continue
		}
		switch e.Type {
		case "thread.started":
			out.thread = e.ThreadID
		case "item.completed":
			if e.Item.Type == "agent_message" {
				out.text = e.Item.Text
			}
		case "turn.completed":
			out.turns++
		case "turn.failed":
			failure = e.Error.Message
		case "error":
			failure = e.Message
		}
	}
	switch {
	case failure != "":
		return out, fmt.Errorf("codex reported an error: %s", failure)
	case out.thread == "" && out.text == "":
		return out, errors.New("reading codex's JSON output: no thread.started and no agent message; run codex exec --json by hand to see why")
	}
	return out, nil
}

func (codex) keepsContext() bool { return true }
