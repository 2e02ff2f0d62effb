package agent

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skillkit/skillkit/internal/testfs"
)

// standIn puts an executable named name first on PATH whose body is the
// shell script body: a stand-in for the real CLI that answers with the
// outputs captured from it (testdata/real). $REAL is that folder; every
// call's arguments and stdin are appended to $CALLS, one call a line.
func standIn(t *testing.T, name, body string) (a *Agent, calls string) {
	t.Helper()
	bin := t.TempDir()
	real, err := filepath.Abs("testdata/real")
	if err != nil {
		t.Fatal(err)
	}
	calls = filepath.Join(bin, "calls")
	script := "#!/bin/sh\nREAL='" + real + "'\nCALLS='" + calls + "'\n" +
		"echo \"ARGS $*\" >> \"$CALLS\"\ncat > \"$CALLS.stdin\"; cat \"$CALLS.stdin\" >> \"$CALLS\"\n" + body
	if err := os.WriteFile(filepath.Join(bin, name), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	return &Agent{Command: name, Dir: t.TempDir(), Timeout: 10 * time.Second, Session: &Session{ID: "21111111-2222-4333-8444-555555555555"}}, calls
}

// claudeSuccess is a stream of a call that worked: the shapes of the
// captured stream (testdata/real/claude-not-logged-in.jsonl) with the
// fields a logged-in call fills in.
const claudeSuccess = `echo '{"type":"system","subtype":"init","cwd":"/w","session_id":"21111111-2222-4333-8444-555555555555","tools":["Bash"],"model":"claude-opus-4-8[1m]","claude_code_version":"2.1.197"}'
echo '{"type":"assistant","message":{"role":"assistant","usage":{"input_tokens":5,"cache_creation_input_tokens":100,"cache_read_input_tokens":400,"output_tokens":20},"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]},"session_id":"21111111-2222-4333-8444-555555555555"}'
echo '{"type":"assistant","message":{"role":"assistant","usage":{"input_tokens":5,"cache_creation_input_tokens":0,"cache_read_input_tokens":600,"output_tokens":30},"content":[{"type":"text","text":"Done: {\"stateUpdates\": {}}"}]},"session_id":"21111111-2222-4333-8444-555555555555"}'
echo '{"type":"result","subtype":"success","is_error":false,"num_turns":2,"result":"Done: {\"stateUpdates\": {}}","session_id":"21111111-2222-4333-8444-555555555555","total_cost_usd":0.012,"usage":{"input_tokens":10,"cache_creation_input_tokens":100,"cache_read_input_tokens":1000,"output_tokens":50},"modelUsage":{"claude-opus-4-8[1m]":{"inputTokens":10,"outputTokens":50,"contextWindow":1000000}}}'
`

func TestClaudeNotLoggedIn(t *testing.T) {
	a, _ := standIn(t, "claude", `cat "$REAL/claude-not-logged-in.jsonl"; exit 1`)
	_, err := a.Ask(context.Background(), &Prompt{Request: RequestStep})
	want := `agent "claude" (step request): Not logged in · Please run /login`
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %q", err, want)
	}
	// Claude Code saved the session although the call failed.
	if a.Session.Thread != a.Session.ID {
		t.Errorf("thread = %q, want the session recorded", a.Session.Thread)
	}
}

// The real CLI refuses a --session-id it saved before ("already in use"):
// the call goes again with --resume, and the retry after a failed first
// call resumes rather than starting over.
func TestClaudeSessionInUse(t *testing.T) {
	a, calls := standIn(t, "claude", `case "$*" in
*--session-id*) cat "$REAL/claude-session-in-use.stderr" >&2; exit 1;;
esac
`+claudeSuccess)
	reply, err := a.Ask(context.Background(), &Prompt{Request: RequestAction})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(reply, "stateUpdates") {
		t.Errorf("reply = %q", reply)
	}
	log := testfs.ReadFile(t, calls)
	if !strings.Contains(log, "--session-id") || !strings.Contains(log, "--resume 21111111-2222-4333-8444-555555555555") {
		t.Errorf("calls:\n%s\nwant --session-id, then --resume", log)
	}
}

func TestClaudeRetryAfterFailedFirstCall(t *testing.T) {
	// The real CLI's behaviour: every call saves the session, a second
	// --session-id is refused.
	a, _ := standIn(t, "claude", `case "$*" in
*--session-id*) if [ -e "$CALLS.saved" ]; then cat "$REAL/claude-session-in-use.stderr" >&2; exit 1; fi
  touch "$CALLS.saved"; cat "$REAL/claude-not-logged-in.jsonl"; exit 1;;
esac
`+claudeSuccess)
	if _, err := a.Ask(context.Background(), &Prompt{Request: RequestStep}); err == nil {
		t.Fatal("the first call worked, want it to fail as not logged in")
	}
	// A resume starts a new Agent from the run's record.
	b := *a
	b.Session = &Session{ID: a.Session.ID, Thread: a.Session.Thread, Calls: a.Session.Calls}
	var got []Call
	b.Session.Done = func(c Call) { got = append(got, c) }
	if _, err := b.Ask(context.Background(), &Prompt{Request: RequestStep}); err != nil {
		t.Fatalf("the retry failed: %v", err)
	}
	c := got[0]
	if c.Turns != 2 || c.CostUSD != 0.012 || c.Usage != (Usage{InputTokens: 1110, OutputTokens: 50, ContextTokens: 635, ContextWindow: 1000000}) {
		t.Errorf("call = %+v, want the result's turns, cost and usage, and the last message's context", c)
	}
}

// A resume of a session Claude Code does not have (its sessions were
// cleared) starts it again, with [CONTEXT].
func TestClaudeLostSession(t *testing.T) {
	a, calls := standIn(t, "claude", `case "$*" in
*--resume*) cat "$REAL/claude-resume-unknown.jsonl"; cat "$REAL/claude-resume-unknown.stderr" >&2; exit 1;;
esac
`+claudeSuccess)
	a.Session.Thread = a.Session.ID
	p := &Prompt{Request: RequestStep}
	p.add(contextSection, "the skill's instructions")
	p.add("STEP", "do it")
	if _, err := a.Ask(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	log := testfs.ReadFile(t, calls)
	first, second, _ := strings.Cut(log, "--session-id")
	if !strings.Contains(first, "--resume") || strings.Contains(first, "[CONTEXT]") || !strings.Contains(second, "[CONTEXT]") {
		t.Errorf("calls:\n%s\nwant a resume without [CONTEXT], then --session-id with it", log)
	}
}

func TestClaudeBadOutput(t *testing.T) {
	init := `echo '{"type":"system","subtype":"init","session_id":"21111111-2222-4333-8444-555555555555"}'` + "\n"
	tests := []struct{ name, body, want string }{
		{"invalid JSON", "echo 'Segmentation fault {'", `line(s) are not JSON, and no result came; the last: "Segmentation fault {"`},
		{"half a stream", init, "claude's output ended before its result (half a stream)"},
		{"exit mid-stream", init + "exit 3", "claude exited with status 3 before its result"},
		{"killed mid-stream", init + "kill -9 $$", "claude was killed (signal: killed) before its result"},
		{"exit 0 with is_error", `sed 's/"is_error":true/"is_error":true/' "$REAL/claude-not-logged-in.json"; exit 0`, "Not logged in · Please run /login"},
		{"error subtype", `sed 's/No conversation found with session ID: /Tool permission denied for /' "$REAL/claude-resume-unknown.jsonl"; exit 1`, "Tool permission denied for 31111111-2222-4333-8444-555555555555"},
		{"a line without end", init + "head -c 3000000 /dev/zero | tr '\\0' x", "claude printed a line longer than --output-tail keeps, and no result"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, _ := standIn(t, "claude", tt.body)
			_, err := a.Ask(context.Background(), &Prompt{Request: RequestStep})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

// A 50 MB stream is read line by line: the call works and keeps no more
// than a line and the tails.
func TestClaudeLongStream(t *testing.T) {
	line := `{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Read"}]},"session_id":"21111111-2222-4333-8444-555555555555","pad":"` + strings.Repeat("x", 900) + `"}`
	a, _ := standIn(t, "claude", "yes '"+line+"' | head -n 52000\n"+claudeSuccess)
	// 50 MB of JSON is seconds of work, many more under the race
	// detector on a busy machine: the limit is not what this tests.
	a.Timeout = 5 * time.Minute
	var mu sync.Mutex
	var last Activity
	a.Progress = func(x Activity) { mu.Lock(); last = x; mu.Unlock() }
	reply, err := a.Ask(context.Background(), &Prompt{Request: RequestStep})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(reply, "Done:") {
		t.Errorf("reply = %q", reply)
	}
	mu.Lock()
	defer mu.Unlock()
	if !last.Done || last.Turns != 52002 || last.Tool != "Bash" {
		t.Errorf("last activity = %+v, want the call's end after 52002 turns", last)
	}
}

func TestAgentNotInstalled(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	a := &Agent{Command: "codex", Timeout: 5 * time.Second}
	_, err := a.Ask(context.Background(), &Prompt{Request: RequestStep})
	if err == nil || !strings.Contains(err.Error(), `exec: "codex": executable file not found in $PATH; install it or put it on PATH (skillkit doctor says how)`) {
		t.Fatalf("err = %v", err)
	}
}

func TestAgentNotExecutable(t *testing.T) {
	dir := t.TempDir()
	testfs.WriteFile(t, filepath.Join(dir, "agent.sh"), "#!/bin/sh\necho hi\n")
	a := &Agent{Command: filepath.Join(dir, "agent.sh"), Timeout: 5 * time.Second}
	_, err := a.Ask(context.Background(), &Prompt{Request: RequestStep})
	if err == nil || !strings.Contains(err.Error(), "exit status 126") || !strings.Contains(err.Error(), "Permission denied") {
		t.Fatalf("err = %v, want sh's permission denied", err)
	}
}

// codexSuccess ends a call that worked: the shapes of codex's events
// (testdata/real/codex-reconnect.jsonl) with a completed turn.
const codexSuccess = `echo '{"type":"item.started","item":{"id":"item_1","type":"command_execution","command":"bash -lc ls","status":"in_progress"}}'
echo '{"type":"item.completed","item":{"id":"item_2","type":"agent_message","text":"{\"action\": null}"}}'
echo '{"type":"turn.completed","usage":{"input_tokens":1200,"cached_input_tokens":1000,"output_tokens":30}}'
`

// Codex's reconnects are progress: a call with reconnects that then
// completes its turn works.
func TestCodexReconnectThenSuccess(t *testing.T) {
	a, calls := standIn(t, "codex", `head -6 "$REAL/codex-reconnect.jsonl"`+"\n"+codexSuccess)
	var got Call
	a.Session.Done = func(c Call) { got = c }
	reply, err := a.Ask(context.Background(), &Prompt{Request: RequestSelect})
	if err != nil {
		t.Fatal(err)
	}
	if reply != `{"action": null}` || a.Session.Thread != "01a2174b-8d43-7cf2-8680-802e0c8adc1f" {
		t.Errorf("reply %q, thread %q", reply, a.Session.Thread)
	}
	if got.Turns != 1 || got.Usage.InputTokens != 1200 || got.Usage.OutputTokens != 30 {
		t.Errorf("call = %+v", got)
	}
	if log := testfs.ReadFile(t, calls); !strings.Contains(log, "--output-schema") {
		t.Errorf("calls:\n%s\nwant --output-schema for a select", log)
	}
}

func TestCodexTurnFailed(t *testing.T) {
	a, _ := standIn(t, "codex", `head -3 "$REAL/codex-reconnect.jsonl"
echo '{"type":"error","message":"stream error: unexpected status 401 Unauthorized"}'
echo '{"type":"turn.failed","error":{"message":"unexpected status 401 Unauthorized: Missing bearer authentication"}}'
exit 1`)
	_, err := a.Ask(context.Background(), &Prompt{Request: RequestStep})
	want := `agent "codex" (step request): unexpected status 401 Unauthorized: Missing bearer authentication`
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %q", err, want)
	}
	if a.Session.Thread == "" {
		t.Error("the thread codex started was not recorded")
	}
}

// Without network codex reconnects for ever, printing a reconnect every
// few seconds: that is no progress, so the stall notice comes, saying
// what codex waits for, and the call stops at its time limit.
func TestCodexStallAndTimeout(t *testing.T) {
	a, _ := standIn(t, "codex", `cat "$REAL/codex-reconnect.jsonl"
while :; do tail -1 "$REAL/codex-reconnect.jsonl"; sleep 0.1; done`)
	a.Timeout, a.StallAfter = 1500*time.Millisecond, 300*time.Millisecond
	var mu sync.Mutex
	var notices []string
	a.Progress = func(x Activity) {
		mu.Lock()
		defer mu.Unlock()
		if n := x.Notice(); n != "" {
			notices = append(notices, n)
		}
	}
	_, err := a.Ask(context.Background(), &Prompt{Request: RequestStep})
	if err == nil || !strings.Contains(err.Error(), "timed out after 1.5s (--agent-timeout)") {
		t.Fatalf("err = %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(notices) != 1 || !strings.HasPrefix(notices[0], "no progress from codex for ") ||
		!strings.Contains(notices[0], ", it says: Reconnecting... waiting for network (Connection failed: error sending request); the call ends at --agent-timeout 1.5s") {
		t.Errorf("notices = %q, want one stall notice", notices)
	}
}

// A resume that started another thread, or found none, goes again as a
// first call with [CONTEXT].
func TestCodexLostThread(t *testing.T) {
	for _, tt := range []struct{ name, resume string }{
		{"another thread", `head -3 "$REAL/codex-resume-new-thread.jsonl"; exec sleep 30`},
		{"unknown id", `cat "$REAL/codex-resume-unknown-id.stderr" >&2; printf 'Stack backtrace:\n   0: <unknown>\n' >&2; exit 1`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a, calls := standIn(t, "codex", `case "$1 $2" in
"exec resume") `+tt.resume+`;;
esac
echo '{"type":"thread.started","thread_id":"01a2174d-0000-7000-8000-000000000001"}'
`+codexSuccess)
			a.Session.Thread = "0199aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee"
			p := &Prompt{Request: RequestStep}
			p.add(contextSection, "the skill's instructions")
			p.add("STEP", "do it")
			if _, err := a.Ask(context.Background(), p); err != nil {
				t.Fatal(err)
			}
			log := testfs.ReadFile(t, calls)
			first, second, _ := strings.Cut(log, "ARGS exec --json")
			if strings.Contains(first, "[CONTEXT]") || !strings.Contains(second, "[CONTEXT]") {
				t.Errorf("calls:\n%s\nwant a resume without [CONTEXT], then a first call with it", log)
			}
			if a.Session.Thread != "01a2174d-0000-7000-8000-000000000001" {
				t.Errorf("thread = %q, want the new one", a.Session.Thread)
			}
		})
	}
}

// The arguments each adapter builds, flag by flag where the real CLI
// accepts them (real_test.go runs them through it).
func TestArgumentVectors(t *testing.T) {
	for _, v := range argumentVectors() {
		t.Run(v.name, func(t *testing.T) {
			_, args, cleanup, err := adapterFor(v.agent).command(v.a, v.s, v.p)
			if err != nil {
				t.Fatal(err)
			}
			defer cleanup()
			got := strings.Join(args, " ")
			for _, w := range v.want {
				if !strings.Contains(got, w) {
					t.Errorf("args %q lack %q", got, w)
				}
			}
		})
	}
}

type vector struct {
	name, agent string
	a           *Agent
	s           *Session
	p           *Prompt
	want        []string
}

// argumentVectors are the calls each adapter makes: first call, resume,
// a JSON answer, allowed tools, a task.
func argumentVectors() []vector {
	id, thread := "21111111-2222-4333-8444-555555555555", "01a2174b-8d43-7cf2-8680-802e0c8adc1f"
	plainA, tools := &Agent{}, &Agent{AllowedTools: []string{"Read", "Bash(git:*)"}}
	var out []vector
	for _, ag := range []string{AdapterClaude, AdapterCodex} {
		resume := thread
		if ag == AdapterClaude {
			resume = id
		}
		first, resumed := &Session{ID: id}, &Session{ID: id, Thread: resume}
		out = append(out,
			vector{ag + " first step", ag, plainA, first, &Prompt{Request: RequestStep}, nil},
			vector{ag + " resumed step", ag, plainA, resumed, &Prompt{Request: RequestStep}, []string{resume}},
			vector{ag + " action", ag, plainA, resumed, &Prompt{Request: RequestAction}, nil},
			vector{ag + " select", ag, plainA, resumed, &Prompt{Request: RequestSelect}, nil},
			vector{ag + " first select", ag, plainA, first, &Prompt{Request: RequestSelect}, nil},
			vector{ag + " confirm", ag, plainA, resumed, &Prompt{Request: RequestConfirm}, nil},
			vector{ag + " allowed tools", ag, tools, first, &Prompt{Request: RequestStep}, nil},
			vector{ag + " resumed allowed tools", ag, tools, resumed, &Prompt{Request: RequestAction}, nil},
			vector{ag + " task", ag, plainA, &Session{}, &Prompt{Request: RequestTask}, nil},
		)
	}
	for i := range out {
		v := &out[i]
		switch {
		case v.agent == AdapterClaude && v.s.Thread != "":
			v.want = append(v.want, "--resume "+id)
		case v.agent == AdapterClaude && v.s.ID != "":
			v.want = append(v.want, "--session-id "+id)
		case v.agent == AdapterCodex && v.s.Thread != "":
			v.want = append(v.want, "exec resume --json", `-c sandbox_mode="workspace-write"`, thread+" -")
		case v.agent == AdapterCodex:
			v.want = append(v.want, "exec --json", "--sandbox workspace-write")
		}
		if v.agent == AdapterCodex && (v.p.Request == RequestSelect || v.p.Request == RequestConfirm) {
			v.want = append(v.want, "--output-schema")
		}
		if v.agent == AdapterClaude && schemaOf(v.p.Request) != "" {
			v.want = append(v.want, "--json-schema")
		}
		if v.agent == AdapterClaude && len(v.a.AllowedTools) > 0 {
			v.want = append(v.want, "--allowedTools Read Bash(git:*)")
		}
	}
	return out
}

// Context exhaustion is Claude Code's: codex reports tokens but no
// window, a plain command nothing, so a conversation of millions of
// tokens is never asked for the hand-off nor stopped. Claude Code's
// result, not logged in, has an empty modelUsage: no measure either.
func TestContextUseOnlyWhereReported(t *testing.T) {
	for _, tt := range []struct{ name, body string }{
		{"codex", `head -1 "$REAL/codex-reconnect.jsonl"` + "\n" + strings.ReplaceAll(codexSuccess, `"input_tokens":1200`, `"input_tokens":9000000`)},
		{"my-agent", `echo done`},
		{"claude", `cat "$REAL/claude-not-logged-in.jsonl"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a, calls := standIn(t, tt.name, tt.body)
			for range 3 {
				a.Ask(context.Background(), &Prompt{Request: RequestStep})
			}
			if a.Session.Calls != 3 || a.Session.ContextWindow != 0 {
				t.Errorf("session = %+v; want 3 calls and no context measure", a.Session)
			}
			if log := testfs.ReadFile(t, calls); strings.Contains(log, "[HANDOFF]") {
				t.Errorf("a prompt asked for the hand-off:\n%s", log)
			}
		})
	}
}

// The thresholds on a session Claude Code measured: under the hand-off
// nothing, at it [HANDOFF] (not for a Task), at the exit a refusal that
// names the hand-off and matches ErrBudget, so the run stops resumable.
func TestContextThresholds(t *testing.T) {
	a := &Agent{Command: "claude", Dir: t.TempDir(), Context: ContextLimits{Handoff: 50, Exit: 60}}
	for _, tt := range []struct {
		tokens  int
		request Request
		handoff bool
		stop    bool
	}{
		{499, RequestStep, false, false}, {500, RequestStep, true, false}, {599, RequestAction, true, false},
		{599, RequestTask, false, false}, {600, RequestStep, false, true}, {600, RequestTask, false, true},
	} {
		a.Session = &Session{ContextTokens: tt.tokens, ContextWindow: 1000}
		p := &Prompt{Request: tt.request}
		p.add("RETURN", "x")
		c, err := a.Begin(p)
		if stop := err != nil; stop != tt.stop || stop && (!errors.Is(err, ErrBudget) || !errors.Is(err, ErrContextFull) || !strings.Contains(err.Error(), filepath.Join(a.Dir, HandoffFile))) {
			t.Errorf("%d/1000 %s: %v; want a stop: %v", tt.tokens, tt.request, err, tt.stop)
		}
		if err != nil {
			continue
		}
		if got := strings.Contains(c.text, "[HANDOFF]"); got != tt.handoff || got && !strings.HasSuffix(c.text, "[RETURN]\nx\n") {
			t.Errorf("%d/1000 %s: prompt\n%s\nwant [HANDOFF] before [RETURN]: %v", tt.tokens, tt.request, c.text, tt.handoff)
		}
	}
}
