package agent

import (
	"os"
	"strings"
	"testing"

	"github.com/skillkit/skillkit/internal/proc"
)

// feed runs stdout through the line splitter into ev in chunks of n
// bytes, as a pipe hands it over, and returns how the call ended.
func feed(ev events, stdout string, n, max int) (reply, error) {
	l := &lines{max: max, ev: ev}
	for len(stdout) > 0 {
		k := min(n, len(stdout))
		l.Write([]byte(stdout[:k]))
		stdout = stdout[k:]
	}
	l.flush()
	return ev.end(proc.Result{ExitCode: 1})
}

// The captured streams read alike whatever the chunks they come in.
func TestEventsInChunks(t *testing.T) {
	for _, tt := range []struct {
		file   string
		ev     func() events
		want   string
		thread string
	}{
		{"testdata/real/claude-not-logged-in.jsonl", func() events { return &claudeEvents{} }, "Not logged in · Please run /login", "21111111-2222-4333-8444-555555555555"},
		{"testdata/real/claude-resume-unknown.jsonl", func() events { return &claudeEvents{} }, "No conversation found with session ID: 31111111-2222-4333-8444-555555555555: the agent did not continue the conversation", "31111111-2222-4333-8444-555555555555"},
		{"testdata/real/codex-reconnect.jsonl", func() events { return &codexEvents{} }, "codex exited with status 1 before its turn completed", "01a2174b-8d43-7cf2-8680-802e0c8adc1f"},
	} {
		data, err := os.ReadFile(tt.file)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{1, 7, 4096} {
			r, err := feed(tt.ev(), string(data), n, 1<<20)
			if err == nil || err.Error() != tt.want || r.thread != tt.thread {
				t.Errorf("%s in chunks of %d: thread %q, err %v; want %q, %q", tt.file, n, r.thread, err, tt.thread, tt.want)
			}
		}
	}
}

// FuzzEvents feeds any output to both readers, in any chunks, with a
// small line limit: a clear error or an answer, never a panic.
func FuzzEvents(f *testing.F) {
	for _, file := range []string{"claude-not-logged-in.jsonl", "claude-api-retry.jsonl", "claude-resume-unknown.jsonl", "codex-reconnect.jsonl", "codex-resume-new-thread.jsonl"} {
		data, err := os.ReadFile("testdata/real/" + file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(data), uint8(5))
	}
	f.Add(`{"type":"result","subtype":"success","is_error":false,"result":"ok","structured_output":{"action":null}}`, uint8(3))
	f.Add(`{"type":"turn.completed"}`+"\n"+`{"type":"turn.failed","error":{"message":"x"}}`, uint8(1))
	f.Fuzz(func(t *testing.T, stdout string, n uint8) {
		chunk := int(n) + 1
		for _, ev := range []events{&claudeEvents{}, &codexEvents{resumed: "t", stop: func() {}}} {
			r, err := feed(ev, stdout, chunk, 256)
			if err == nil && strings.TrimSpace(stdout) == "" {
				t.Fatalf("empty output read as an answer %+v", r)
			}
			if err != nil && err.Error() == "" {
				t.Fatal("an error without a message")
			}
		}
	})
}

// A CLI that only waits for its model's API is making no progress, and
// says what it waits for: claude's api_retry events (captured), codex's
// reconnects and its fallback notice, an error item.
func TestWaitingIsNotProgress(t *testing.T) {
	data, err := os.ReadFile("testdata/real/claude-api-retry.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	fallback := `{"type":"item.completed","item":{"id":"item_0","type":"error","message":"Falling back from WebSockets to HTTPS transport. stream disconnected before completion"}}`
	for _, tt := range []struct {
		ev    events
		lines []string
		want  string
	}{
		{&claudeEvents{}, lines, "API request retry 3/10 (error: unknown)"},
		{&codexEvents{}, []string{`{"type":"thread.started","thread_id":"t"}`, `{"type":"error","message":"Reconnecting... 2/5 (x)"}`, fallback}, "Falling back from WebSockets to HTTPS transport. stream disconnected before completion"},
	} {
		for i, l := range tt.lines {
			progress := tt.ev.line([]byte(l), false)
			if i > 0 && progress {
				t.Errorf("%s: read as progress", l)
			}
		}
		if got := tt.ev.activity().Waiting; got != tt.want {
			t.Errorf("waiting %q, want %q", got, tt.want)
		}
	}
}

// The live line shows what the agent runs on one line of the terminal:
// codex's commands are the model's, often a heredoc over several lines,
// and may hold control bytes; a line break in the live line left a line
// behind at every redraw.
func TestActivityIsOneLine(t *testing.T) {
	a := Activity{Agent: AdapterCodex, Tool: "/bin/bash -lc \"cat <<'EOF' > a.md\n# Title\t\x1b[2J\nEOF\"", Turns: 2}
	got := a.String()
	if want := `codex: /bin/bash -lc "cat <<'EOF' > a.md # Title \x1b[2J EOF" · 2 turns`; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}
