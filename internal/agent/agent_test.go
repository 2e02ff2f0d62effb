package agent

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/skillkit/skillkit/internal/testfs"
)

// fakeAgent returns an Agent running testdata/fake-agent.sh in a fresh work
// dir, answering in the given mode.
func fakeAgent(t *testing.T, mode string) *Agent {
	t.Helper()
	script, err := filepath.Abs("testdata/fake-agent.sh")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	return &Agent{
		Command: "'" + script + "' --verbose",
		Dir:     dir,
		Env: []string{
			"FAKE_AGENT_MODE=" + mode,
			"SKILL_WORKDIR=" + dir,
			"SKILL_RUN_ID=run-1",
			"SKILL_INPUT_TARGET=src",
		},
		Timeout: 5 * time.Second,
	}
}

func TestAskRoundTrip(t *testing.T) {
	a := fakeAgent(t, "ok")
	prompt, err := ActionPrompt(Context{Skill: "review-code", WorkDir: a.Dir, State: map[string]any{"status": "pending"}}, testAction())
	if err != nil {
		t.Fatal(err)
	}
	reply, err := a.Ask(context.Background(), prompt)
	if err != nil {
		t.Fatal(err)
	}
	if got := testfs.ReadFile(t, filepath.Join(a.Dir, "prompt.txt")); got != prompt.Text(true) {
		t.Errorf("the agent read %q on stdin, want the prompt %q", got, prompt)
	}
	wantEnv := "request=action\nworkdir=" + a.Dir + "\nrun=run-1\ninput_target=src\n"
	if got := testfs.ReadFile(t, filepath.Join(a.Dir, "env.txt")); got != wantEnv {
		t.Errorf("environment:\n%s\nwant:\n%s", got, wantEnv)
	}
	updates, err := ParseStateUpdates(reply)
	if err != nil {
		t.Fatal(err)
	}
	if updates["status"] != "running" || updates["context.count"] != 2.0 {
		t.Errorf("updates = %v, want the last object's", updates)
	}
}

func TestAskFailures(t *testing.T) {
	tests := []struct {
		mode    string
		timeout time.Duration
		want    string
	}{
		{mode: "fail", want: "exit status 7: model overloaded"},
		{mode: "hang", timeout: 200 * time.Millisecond, want: "timed out after 200ms"},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			a := fakeAgent(t, tt.mode)
			if tt.timeout != 0 {
				a.Timeout = tt.timeout
			}
			_, err := a.Ask(context.Background(), &Prompt{Request: RequestStep})
			var aerr *Error
			if !errors.As(err, &aerr) {
				t.Fatalf("err = %v, want an *Error", err)
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "fake-agent.sh") {
				t.Errorf("err = %q, want it to name the command and hold %q", err, tt.want)
			}
		})
	}
}

func TestAskReplyWithoutStateUpdates(t *testing.T) {
	a := fakeAgent(t, "prose")
	reply, err := a.Ask(context.Background(), &Prompt{Request: RequestAction})
	if err != nil {
		t.Fatal(err)
	}
	_, err = ParseStateUpdates(reply)
	if !errors.Is(err, ErrNoStateUpdates) || !strings.Contains(err.Error(), "everything is fine") {
		t.Errorf("err = %v, want ErrNoStateUpdates quoting the reply", err)
	}
}

func TestAskWithoutCommand(t *testing.T) {
	var a *Agent
	if _, err := a.Ask(context.Background(), &Prompt{Request: RequestTask}); !errors.Is(err, ErrNoAgent) {
		t.Errorf("err = %v, want ErrNoAgent", err)
	}
}

// A reply longer than MaxReply fails the call: only its end is in memory,
// and an answer read from its end would be wrong.
func TestAskReplyTooLong(t *testing.T) {
	a := &Agent{Command: "cat >/dev/null; head -c 5000 /dev/zero | tr '\\0' x", MaxReply: 1000}
	_, err := a.Ask(context.Background(), &Prompt{Request: RequestStep})
	if err == nil || !strings.Contains(err.Error(), "5000 bytes, more than the 1000 kept (--output-tail)") {
		t.Fatalf("err = %v, want the reply refused as too long", err)
	}
}

// An agent killed by a signal (kill -9 of its process group, an OOM kill,
// a crash) is said so, with the signal, and what it printed before is
// its reply so far; not "exit status -1".
func TestAgentKilledNamesTheSignal(t *testing.T) {
	for cmd, want := range map[string]string{
		"echo partial; kill -9 0": "(step request): killed (signal: killed)",
		"kill -SEGV $$":           "(step request): killed (signal: segmentation fault",
	} {
		a := &Agent{Command: cmd, Dir: t.TempDir(), Timeout: 20 * time.Second}
		_, err := a.Ask(context.Background(), &Prompt{Request: RequestStep})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want %q", cmd, err, want)
		}
	}
}

// What an agent prints on stderr reaches the terminal in skillkit's
// message: its control sequences (clearing the screen, setting the
// window's title) and bytes that are not UTF-8 are shown escaped, not
// acted on.
func TestAgentStderrIsShownNotActedOn(t *testing.T) {
	a := &Agent{Command: `printf 'bad\033[2J\033]0;pwned\007 \377 end\nnext\tline' >&2; exit 1`, Dir: t.TempDir(), Timeout: 20 * time.Second}
	_, err := a.Ask(context.Background(), &Prompt{Request: RequestStep})
	if err == nil {
		t.Fatal("the call worked")
	}
	msg := err.Error()
	if want := `bad\x1b[2J\x1b]0;pwned\x07 \xff end` + "\nnext\tline"; !strings.Contains(msg, want) {
		t.Errorf("err = %q, want it to hold %q", msg, want)
	}
	if !utf8.ValidString(msg) || strings.ContainsAny(msg, "\x1b\x07\x00") {
		t.Errorf("err = %q: raw control bytes or invalid UTF-8", msg)
	}
}

// Begun sees each call as it begins, numbered, before its command runs;
// a call it refuses is neither made nor counted, and the next one takes
// its number.
func TestBegunRecordsACallBeforeItRuns(t *testing.T) {
	dir := t.TempDir()
	ran := filepath.Join(dir, "ran")
	refuse := errors.New("the record failed")
	var begun []int
	var fail bool
	s := &Session{Begun: func(c Call) error {
		if _, err := os.Stat(ran); err == nil {
			t.Errorf("call %d's command ran before Begun", c.N)
		}
		if fail {
			return refuse
		}
		begun = append(begun, c.N)
		return nil
	}}
	a := &Agent{Command: "cat >/dev/null; touch ran; echo ok", Dir: dir, Session: s, Timeout: 5 * time.Second}
	fail = true
	if _, err := a.Ask(context.Background(), &Prompt{Request: RequestTask}); !errors.Is(err, refuse) {
		t.Fatalf("a call Begun refused: %v, want its error", err)
	}
	if _, err := os.Stat(ran); err == nil || s.Calls != 0 {
		t.Fatalf("a call Begun refused was made (%v) or counted (%d calls)", err == nil, s.Calls)
	}
	fail = false
	if _, err := a.Ask(context.Background(), &Prompt{Request: RequestTask}); err != nil {
		t.Fatal(err)
	}
	if len(begun) != 1 || begun[0] != 1 || s.Calls != 1 {
		t.Errorf("Begun saw calls %v, the session counts %d; want [1] and 1", begun, s.Calls)
	}
}
