package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/skillkit/skillkit/internal/proc"
)

// Status is what skillkit doctor finds of an agent: installed or not,
// its version, whether it can work (logged in, or an API key in the
// environment), and the command that fixes it when it cannot.
type Status struct {
	Agent   string `json:"agent"`
	Path    string `json:"path,omitempty"`
	Version string `json:"version,omitempty"`
	Usable  bool   `json:"usable"`
	// Detail says how it is logged in, or why it cannot work.
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"`
}

// Err is the error of an agent that cannot work, with its fix; nil for
// one that can.
func (s Status) Err() error {
	if s.Usable {
		return nil
	}
	return fmt.Errorf("agent %q cannot work: %s; fix: %s (then skillkit doctor checks again)", s.Agent, s.Detail, s.Fix)
}

// statusTimeout bounds each status command: they read local files only.
const statusTimeout = 20 * time.Second

// install is how each known agent is installed.
var install = map[string]string{
	AdapterClaude: "npm install -g @anthropic-ai/claude-code",
	AdapterCodex:  "npm install -g @openai/codex",
}

// Check finds out whether the agent name (claude or codex) can work,
// with the CLI's own status commands, which cost nothing: --version and
// `claude auth status` or `codex login status`. It never sends a prompt.
func Check(ctx context.Context, name string) Status { return check(ctx, name, true) }

// check is Check, with or without the version: a run needs only the
// login, and each status command starts a node program (a second or
// more on a loaded machine).
func check(ctx context.Context, name string, version bool) Status {
	s := Status{Agent: name}
	path, err := exec.LookPath(name)
	if err != nil {
		s.Detail = "not installed (" + name + " is not on PATH)"
		s.Fix = install[name]
		return s
	}
	s.Path = path
	if version {
		out, errOut, code, err := status(ctx, path, "--version")
		if err != nil || code != 0 {
			s.Detail = fmt.Sprintf("`%s --version` failed: %s", name, firstLine(cmpOr(err, errOut+out)))
			s.Fix = "reinstall it: " + install[name]
			return s
		}
		s.Version = versionOf(out)
	}
	switch name {
	case AdapterClaude:
		checkClaude(ctx, &s)
	case AdapterCodex:
		checkCodex(ctx, &s)
	}
	return s
}

// checkClaude reads `claude auth status`, JSON whatever the exit code:
// {"loggedIn": false, "authMethod": "none", …}.
func checkClaude(ctx context.Context, s *Status) {
	out, errOut, _, err := status(ctx, s.Path, "auth", "status")
	var st struct {
		LoggedIn     bool   `json:"loggedIn"`
		AuthMethod   string `json:"authMethod"`
		APIKeySource string `json:"apiKeySource"`
	}
	if err == nil {
		err = json.Unmarshal([]byte(out), &st)
	}
	s.Fix = "claude auth login (or set ANTHROPIC_API_KEY)"
	switch {
	case err != nil:
		s.Detail = "`claude auth status` said: " + firstLine(cmpOr(err, errOut+out))
	case !st.LoggedIn:
		s.Detail = "not logged in"
	default:
		s.Usable, s.Fix = true, ""
		s.Detail = "logged in (" + strings.Trim(st.AuthMethod+" "+st.APIKeySource, " ") + ")"
	}
}

// checkCodex reads `codex login status`: exit 0 and "Logged in using …"
// on stdout, or exit 1 and "Not logged in" on stderr. codex exec also
// works with CODEX_API_KEY in the environment, which the status does not
// see.
func checkCodex(ctx context.Context, s *Status) {
	out, errOut, code, err := status(ctx, s.Path, "login", "status")
	s.Fix = "codex login (or set CODEX_API_KEY)"
	switch {
	case err != nil:
		s.Detail = "`codex login status` failed: " + err.Error()
	case code == 0:
		s.Usable, s.Fix = true, ""
		s.Detail = strings.TrimSpace(firstLine(out + "\n" + stderrReason(errOut)))
	case os.Getenv("CODEX_API_KEY") != "":
		s.Usable, s.Fix = true, ""
		s.Detail = "CODEX_API_KEY is set"
	default:
		s.Detail = strings.ToLower(cmpOr(nil, stderrReason(errOut)+out))
	}
}

// status runs a status command of an agent.
func status(ctx context.Context, path string, args ...string) (stdout, stderr string, code int, err error) {
	ctx, cancel := context.WithTimeout(ctx, statusTimeout)
	defer cancel()
	res, err := proc.Run(ctx, proc.Cmd{Name: path, Args: args, Stdin: strings.NewReader(""), Tail: 64 << 10})
	return res.Stdout, res.Stderr, res.ExitCode, err
}

// versionOf is the version in a --version line: "2.1.197 (Claude
// Code)", "codex-cli 0.169.0".
func versionOf(out string) string {
	for _, f := range strings.Fields(firstLine(out)) {
		if f != "" && f[0] >= '0' && f[0] <= '9' {
			return f
		}
	}
	return firstLine(out)
}

// cmpOr is err's message, or text when err is nil; "no output" when
// both are empty.
func cmpOr(err error, text string) string {
	switch {
	case err != nil:
		return err.Error()
	case strings.TrimSpace(text) != "":
		return strings.TrimSpace(text)
	}
	return "no output"
}

// CheckCommand checks the agent of a run before it starts: claude and
// codex as Check does; any other command is taken as it is.
func CheckCommand(ctx context.Context, command string) error {
	name := Adapter(command)
	if name == AdapterCommand {
		return nil
	}
	return check(ctx, name, false).Err()
}
