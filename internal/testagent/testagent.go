// Package testagent is a scripted agent that follows the protocol of
// DESIGN §3.4 to the letter and decides nothing: tests run real skills
// with it to see whether skillkit carries them to the end. It leaves the
// files a step or action must leave ([OUTPUTS]), answers actions with
// {"stateUpdates": {}}, selects the first action not yet completed whose
// preconditions do not fail (then null), confirms yes, and answers tasks
// and steps with a line of text. Only tests use it: a test binary re-runs
// itself as the agent command when Env is set (see Command).
package testagent

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/skillkit/skillkit/internal/agent"
)

// Env marks a test binary run as the agent. LogEnv, when set, names a file
// each request appends a line to: its kind, prompt size, phase and
// whether it asks for the hand-off, tab-separated; ClaudeEnv makes the
// agent answer in the shapes of claude -p --output-format stream-json,
// for the claude adapter (see ClaudeOnPath). ClaudeStateEnv, when set,
// names a folder where the stand-in keeps its sessions as the real CLI
// does: a session id is saved by every call, failed ones too, and a
// second --session-id of it fails as "already in use". While the file
// LoggedOut is in that folder, every call fails as the real CLI does
// without a login.
const (
	Env            = "SKILLKIT_TESTAGENT"
	LogEnv         = "SKILLKIT_TESTAGENT_LOG"
	ClaudeEnv      = "SKILLKIT_TESTAGENT_CLAUDE"
	ClaudeStateEnv = "SKILLKIT_TESTAGENT_CLAUDE_STATE"
	// ClaudeContextEnv, when set, names a file of the tokens in context
	// the claude stand-in reports, one number a line: line n for call n
	// (SKILLKIT_CALL), the last line for the calls after it, of a
	// window of ClaudeWindow tokens. The test may rewrite it between
	// runs. A prompt asking for the hand-off ([HANDOFF]) gets
	// handoff.md written in the work dir.
	ClaudeContextEnv = "SKILLKIT_TESTAGENT_CLAUDE_CONTEXT"
	ClaudeWindow     = 1000000
	// CodexEnv makes the agent answer in the events of codex exec
	// --json (see CodexOnPath), after a reconnect loop as codex prints
	// one when its network falters.
	CodexEnv  = "SKILLKIT_TESTAGENT_CODEX"
	LoggedOut = "logged-out"
	// argsEnv carries the stand-in's command line to the test binary,
	// one argument a line.
	argsEnv = "SKILLKIT_TESTAGENT_ARGS"
)

// Command is the agent command that runs the test binary as the agent.
func Command() string { return fmt.Sprintf("%s=1 %q -test.run='^$'", Env, os.Args[0]) }

// Active reports whether this process was started as the agent.
func Active() bool { return os.Getenv(Env) != "" }

// Main answers one request from stdin and returns the exit code.
func Main() int {
	prompt, err := io.ReadAll(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testagent:", err)
		return 1
	}
	request := os.Getenv("SKILLKIT_REQUEST")
	if log := os.Getenv(LogEnv); log != "" {
		f, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err == nil {
			_, handoff := Sections(string(prompt))["HANDOFF"]
			fmt.Fprintf(f, "%s\t%d\t%s\t%v\n", request, len(prompt), phaseOf(string(prompt)), handoff)
			f.Close()
		}
	}
	switch {
	case os.Getenv(ClaudeEnv) != "":
		return claude(request, string(prompt))
	case os.Getenv(CodexEnv) != "":
		return codex(request, string(prompt))
	}
	reply, err := Answer(request, string(prompt), ".")
	if err != nil {
		fmt.Fprintln(os.Stderr, "testagent:", err)
		return 1
	}
	fmt.Println(reply)
	return 0
}

// claude answers as Claude Code 2.1.197 does in print mode with
// stream-json output: the events captured from it
// (internal/agent/testdata/real), with the fields a logged-in call fills
// in.
func claude(request, prompt string) int {
	args := strings.Split(os.Getenv(argsEnv), "\n")
	session := ""
	for i, a := range args {
		if (a == "--session-id" || a == "--resume") && i+1 < len(args) {
			session = args[i+1]
		}
	}
	if session == "" {
		session = "5a1e0000-0000-4000-8000-000000000001"
	}
	state := os.Getenv(ClaudeStateEnv)
	if state != "" {
		saved := filepath.Join(state, "session-"+session)
		_, err := os.Stat(saved)
		if slices.Contains(args, "--session-id") && err == nil {
			fmt.Fprintf(os.Stderr, "Error: Session ID %s is already in use.\n", session)
			return 1
		}
		os.WriteFile(saved, nil, 0o644)
	}
	event := func(e map[string]any) {
		e["session_id"] = session
		out, _ := json.Marshal(e)
		fmt.Println(string(out))
	}
	event(map[string]any{"type": "system", "subtype": "init", "cwd": ".", "tools": []string{"Bash", "Read", "Write"},
		"model": "claude-opus-4-8[1m]", "apiKeySource": "none", "claude_code_version": "2.1.197"})
	if _, err := os.Stat(filepath.Join(state, LoggedOut)); state != "" && err == nil {
		const msg = "Not logged in · Please run /login"
		event(map[string]any{"type": "assistant", "message": map[string]any{"model": "<synthetic>", "role": "assistant",
			"content": []any{map[string]any{"type": "text", "text": msg}}}, "error": "authentication_failed"})
		event(map[string]any{"type": "result", "subtype": "success", "is_error": true, "num_turns": 1, "result": msg, "total_cost_usd": 0})
		return 1
	}
	reply, err := Answer(request, prompt, ".")
	if err == nil && Sections(prompt)["HANDOFF"] != "" {
		err = os.WriteFile(agent.HandoffFile, []byte("# Hand-off\n\nDone: the calls up to "+os.Getenv("SKILLKIT_CALL")+
			".\nRemaining: the rest of the skill.\nState: the run's record.\n"), 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "testagent:", err)
		return 1
	}
	// The usage of the model request, as Claude Code puts it on each
	// assistant message, and of the call in the result.
	usage := map[string]any{"input_tokens": len(prompt) / 4, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": len(reply) / 4}
	if n, err := contextTokens(); err != nil {
		fmt.Fprintln(os.Stderr, "testagent:", err)
		return 1
	} else if n > 0 {
		usage["cache_read_input_tokens"] = n - usage["input_tokens"].(int) - usage["output_tokens"].(int)
	}
	event(map[string]any{"type": "assistant", "message": map[string]any{"role": "assistant", "usage": usage,
		"content": []any{map[string]any{"type": "text", "text": reply}}}})
	event(map[string]any{"type": "result", "subtype": "success", "is_error": false, "num_turns": 1, "result": reply, "total_cost_usd": 0,
		"usage":      usage,
		"modelUsage": map[string]any{"claude-opus-4-8[1m]": map[string]any{"contextWindow": ClaudeWindow}}})
	return 0
}

// contextTokens is the context size this call reports (ClaudeContextEnv);
// zero without the file.
func contextTokens() (int, error) {
	file := os.Getenv(ClaudeContextEnv)
	if file == "" {
		return 0, nil
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return 0, err
	}
	lines := strings.Fields(string(data))
	if len(lines) == 0 {
		return 0, fmt.Errorf("%s: no context sizes", file)
	}
	call, _ := strconv.Atoi(os.Getenv("SKILLKIT_CALL"))
	return strconv.Atoi(lines[min(max(call, 1), len(lines))-1])
}

// codex answers as Codex 0.169.0 does in exec --json: the events captured
// from it (internal/agent/testdata/real/codex-reconnect.jsonl), reconnects
// first, then the turn a logged-in call completes. A resume continues the
// thread it names.
func codex(request, prompt string) int {
	args := strings.Split(os.Getenv(argsEnv), "\n")
	thread := "01a2174b-8d43-7cf2-8680-802e0c8adc1f"
	if len(args) > 2 && args[1] == "resume" {
		thread = args[len(args)-2]
	}
	fmt.Printf(`{"type":"thread.started","thread_id":%q}`+"\n", thread)
	fmt.Println(`{"type":"turn.started"}`)
	for i := 2; i <= 3; i++ {
		fmt.Printf(`{"type":"error","message":"Reconnecting... %d/5 (stream disconnected before completion: failed to lookup address information: Name does not resolve)"}`+"\n", i)
	}
	reply, err := Answer(request, prompt, ".")
	if err != nil {
		fmt.Fprintln(os.Stderr, "testagent:", err)
		return 1
	}
	item, _ := json.Marshal(map[string]any{"type": "item.completed", "item": map[string]any{"id": "item_1", "type": "agent_message", "text": reply}})
	fmt.Println(string(item))
	fmt.Printf(`{"type":"turn.completed","usage":{"input_tokens":%d,"cached_input_tokens":0,"output_tokens":%d}}`+"\n", len(prompt)/4, len(reply)/4)
	return 0
}

// CodexOnPath writes an executable named codex into dir that runs the
// test binary as the agent in codex's events: put dir first on PATH and
// pass --agent codex. It answers skillkit doctor's status commands as
// the real CLI does, logged in.
func CodexOnPath(dir string) error {
	return onPath(dir, "codex", CodexEnv, `--version) echo 'codex-cli 0.169.0'; exit 0;;
login) echo 'Logged in using ChatGPT'; exit 0;;`)
}

// ClaudeOnPath writes an executable named claude into dir that runs the
// test binary as the agent in claude's shapes: put dir first on PATH and
// pass --agent claude. It answers skillkit doctor's status commands as
// the real CLI does, logged in.
func ClaudeOnPath(dir string) error {
	return onPath(dir, "claude", ClaudeEnv, `--version) echo '2.1.197 (Claude Code)'; exit 0;;
auth) printf '{\n  "loggedIn": true,\n  "authMethod": "claude.ai",\n  "apiProvider": "firstParty"\n}\n'; exit 0;;`)
}

// onPath writes the executable name into dir: status answers the CLI's
// own status commands (case branches of its first argument); any other
// call runs the test binary as the agent, in the shapes modeEnv selects,
// with its arguments in argsEnv.
func onPath(dir, name, modeEnv, status string) error {
	script := fmt.Sprintf("#!/bin/sh\ncase \"$1\" in\n%s\nesac\nexport %s=\"$(printf '%%s\\n' \"$@\")\"\nexec env %s=1 %s=1 %q -test.run='^$'\n",
		status, argsEnv, Env, modeEnv, os.Args[0])
	return os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755)
}

// phaseOf is the phase id of a step prompt's [PHASE] section ("01-x: T").
func phaseOf(prompt string) string {
	id, _, _ := strings.Cut(Sections(prompt)["PHASE"], ":")
	return strings.TrimSpace(id)
}

// Answer is the reply to one request, leaving its outputs under workDir.
func Answer(request, prompt, workDir string) (string, error) {
	sec := Sections(prompt)
	switch request {
	case "step", "action":
		if err := leaveOutputs(sec["OUTPUTS"], workDir); err != nil {
			return "", err
		}
		if request == "action" {
			return `{"stateUpdates": {}}`, nil
		}
		return "Done.", nil
	case "select":
		return selectAction(sec["STATE"], sec["ACTIONS"]), nil
	case "confirm":
		return "yes", nil
	}
	return "Done.", nil
}

// Sections splits a prompt into its [NAME] sections.
func Sections(prompt string) map[string]string {
	out := map[string]string{}
	name := ""
	var body []string
	flush := func() {
		if name != "" {
			out[name] = strings.TrimSpace(strings.Join(body, "\n"))
		}
	}
	sc := bufio.NewScanner(strings.NewReader(prompt))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Text()
		if n, ok := strings.CutPrefix(line, "["); ok && strings.HasSuffix(n, "]") && !strings.ContainsAny(n, " \t") && strings.ToUpper(n) == n {
			flush()
			name, body = strings.TrimSuffix(n, "]"), nil
			continue
		}
		body = append(body, line)
	}
	flush()
	return out
}

// leaveOutputs writes each path<TAB>format line's file, with content that
// parses as its format.
func leaveOutputs(outputs, workDir string) error {
	for _, line := range strings.Split(outputs, "\n") {
		path, format, _ := strings.Cut(line, "\t")
		path = strings.TrimSpace(path)
		if path == "" {
			continue
		}
		// A pattern names files to make: make one that matches.
		path = strings.NewReplacer("**", "out", "*", "out", "?", "x").Replace(path)
		content := "# Output\n\nWritten by the scripted agent.\n"
		switch strings.ToLower(format) {
		case "json":
			content = "{}\n"
		case "yaml", "yml":
			content = "{}\n"
		}
		full := filepath.Join(workDir, path)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// selectAction picks the first action of [ACTIONS] that has not
// completed and whose preconditions do not fail, else null.
func selectAction(state, actions string) string {
	var st struct {
		Completed []string `json:"completed_actions"`
	}
	_ = json.Unmarshal([]byte(state), &st)
	for _, line := range strings.Split(actions, "\n") {
		f := strings.Split(line, "\t")
		if len(f) < 3 || f[0] == "" {
			continue
		}
		if slices.Contains(st.Completed, f[0]) || f[len(f)-1] == "no" {
			continue
		}
		return fmt.Sprintf(`{"action": %q}`, f[0])
	}
	return `{"action": null}`
}
