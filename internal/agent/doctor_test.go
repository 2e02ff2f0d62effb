package agent

import (
	"context"
	"strings"
	"testing"
)

// The stand-ins answer the status commands with the outputs captured
// from the real CLIs (testdata/real).
func TestCheck(t *testing.T) {
	tests := []struct {
		name, agent, body string
		want              Status
	}{
		{"claude not logged in", AdapterClaude, `case "$1" in --version) cat "$REAL/claude-version.txt";; auth) cat "$REAL/claude-auth-status.json"; exit 1;; esac`,
			Status{Agent: "claude", Version: "2.1.197", Detail: "not logged in", Fix: "claude auth login (or set ANTHROPIC_API_KEY)"}},
		{"claude with an API key", AdapterClaude, `case "$1" in --version) cat "$REAL/claude-version.txt";; auth) cat "$REAL/claude-auth-status-api-key.json";; esac`,
			Status{Agent: "claude", Version: "2.1.197", Usable: true, Detail: "logged in (api_key ANTHROPIC_API_KEY)"}},
		{"codex not logged in", AdapterCodex, `case "$1" in --version) cat "$REAL/codex-version.txt";; login) cat "$REAL/codex-login-status.stderr" >&2; exit 1;; esac`,
			Status{Agent: "codex", Version: "0.169.0", Detail: "not logged in", Fix: "codex login (or set CODEX_API_KEY)"}},
		{"codex logged in", AdapterCodex, `case "$1" in --version) cat "$REAL/codex-version.txt";; login) echo "Logged in using ChatGPT";; esac`,
			Status{Agent: "codex", Version: "0.169.0", Usable: true, Detail: "Logged in using ChatGPT"}},
		{"broken install", AdapterCodex, `echo "node: not found" >&2; exit 127`,
			Status{Agent: "codex", Detail: "`codex --version` failed: node: not found", Fix: "reinstall it: npm install -g @openai/codex"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("CODEX_API_KEY", "")
			standIn(t, tt.agent, tt.body)
			got := Check(context.Background(), tt.agent)
			got.Path = ""
			if got != tt.want {
				t.Errorf("Check = %+v\nwant    %+v", got, tt.want)
			}
		})
	}
	t.Run("not installed", func(t *testing.T) {
		t.Setenv("PATH", t.TempDir())
		err := CheckCommand(context.Background(), "claude")
		want := `agent "claude" cannot work: not installed (claude is not on PATH); fix: npm install -g @anthropic-ai/claude-code`
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("err = %v, want %q", err, want)
		}
	})
}
