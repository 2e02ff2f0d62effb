package agent

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skillkit/skillkit/internal/realtool"
)

// onRealPath puts the folder of the real program name first on PATH and
// gives it a home of its own, where it is logged in to nothing.
func onRealPath(t testing.TB, name string) {
	t.Helper()
	bin := realtool.Find(t, name)
	t.Setenv("PATH", filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("HOME", t.TempDir())
	for _, k := range []string{"ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN", "OPENAI_API_KEY", "CODEX_API_KEY"} {
		t.Setenv(k, "")
	}
}

// usageError is how each real CLI refuses its arguments: commander's
// "error: unknown option" for claude, clap's "error: unexpected
// argument" (exit 2) for codex.
func usageError(stderr string) bool {
	for _, s := range []string{"error: unknown option", "error: unexpected argument", "error: invalid value", "error: missing required argument", "Usage:"} {
		if strings.Contains(stderr, s) {
			return true
		}
	}
	return false
}

// cancelOn is a log that ends the call once a line holding mark came:
// the CLI accepted its arguments and tries to reach the network, where
// it would retry for minutes.
type cancelOn struct {
	mu     sync.Mutex
	mark   string
	cancel func()
	buf    bytes.Buffer
}

func (c *cancelOn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.buf.Write(p)
	if strings.Contains(c.buf.String(), c.mark) {
		c.cancel()
	}
	return len(p), nil
}

func (c *cancelOn) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.String()
}

// Every argument vector each adapter builds goes through the real CLI:
// each must fail for want of a login (claude) or of the network (codex),
// never for its arguments.
func TestRealArgumentVectors(t *testing.T) {
	for _, name := range []string{AdapterClaude, AdapterCodex} {
		t.Run(name, func(t *testing.T) {
			onRealPath(t, name)
			dir := t.TempDir()
			accepted, vectors := 0, 0
			// The thread the first call started, which the resumes
			// continue: codex names its own.
			thread := ""
			for _, v := range argumentVectors() {
				if v.agent != name {
					continue
				}
				vectors++
				t.Run(v.name, func(t *testing.T) {
					ctx, cancel := context.WithCancel(context.Background())
					defer cancel()
					log := &cancelOn{mark: "Reconnecting...", cancel: cancel}
					a := *v.a
					a.Command, a.Dir, a.Timeout = name, dir, 60*time.Second
					a.Session = &Session{ID: v.s.ID, Thread: v.s.Thread}
					if v.s.Thread != "" && name == AdapterCodex {
						if thread == "" {
							t.Fatal("the first call recorded no thread to resume")
						}
						a.Session.Thread = thread
					}
					defer func() {
						if v.s.Thread == "" && v.s.ID != "" && thread == "" {
							thread = a.Session.Thread
						}
					}()
					a.Log = func(*Prompt) io.Writer { return log }
					p := &Prompt{Request: v.p.Request}
					p.add(contextSection, "You help test a command line.")
					p.add("STEP", "Say hello.")
					_, err := a.Ask(ctx, p)
					var stderr string
					if e, ok := err.(*Error); ok {
						stderr = e.Stderr
					}
					switch {
					case err == nil:
						t.Fatal("the call worked: want it to fail for want of a login or network here")
					case usageError(stderr) || usageError(err.Error()):
						t.Fatalf("%s refused the arguments: %v\nstderr: %s", name, err, stderr)
					case name == AdapterClaude && strings.Contains(err.Error(), "Not logged in · Please run /login"):
					case name == AdapterClaude && strings.Contains(err.Error(), "No conversation found with session ID"):
						// A resume of a session this home never saw: the
						// arguments were read.
					case name == AdapterCodex && v.s.Thread != "" && !strings.Contains(log.String(), `"thread_id":"`+a.Session.Thread+`"`):
						t.Fatalf("the resume did not continue thread %s: %s", a.Session.Thread, log.String())
					case name == AdapterCodex && strings.Contains(log.String(), `"type":"thread.started"`):
					default:
						t.Fatalf("want a failure for want of login or network, got: %v\nstdout: %s\nstderr: %s", err, log.String(), stderr)
					}
					accepted++
				})
			}
			t.Logf("%s accepted %d of %d argument vectors", name, accepted, vectors)
		})
	}
}

// The not-logged-in failure reaches skillkit's error in claude's own
// words; the benchmark measures how long that takes.
func BenchmarkRealNotLoggedIn(b *testing.B) {
	onRealPath(b, AdapterClaude)
	a := &Agent{Command: AdapterClaude, Dir: b.TempDir(), Timeout: time.Minute}
	for b.Loop() {
		a.Session = &Session{ID: newUUID(b)}
		p := &Prompt{Request: RequestStep}
		p.add("STEP", "Say hello.")
		_, err := a.Ask(context.Background(), p)
		if err == nil || !strings.HasSuffix(err.Error(), ": Not logged in · Please run /login") {
			b.Fatalf("err = %v", err)
		}
	}
}

// newUUID is a fresh version 4 UUID, as claude's --session-id wants.
func newUUID(t testing.TB) string {
	var u [16]byte
	f, err := os.Open("/dev/urandom")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := io.ReadFull(f, u[:]); err != nil {
		t.Fatal(err)
	}
	u[6], u[8] = u[6]&0x0f|0x40, u[8]&0x3f|0x80
	h := "0123456789abcdef"
	var s []byte
	for i, c := range u {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			s = append(s, '-')
		}
		s = append(s, h[c>>4], h[c&0xf])
	}
	return string(s)
}

// skillkit doctor's check against the real CLIs, logged in to nothing.
func TestRealCheck(t *testing.T) {
	for name, version := range map[string]string{AdapterClaude: "2.1.197", AdapterCodex: "0.169.0"} {
		t.Run(name, func(t *testing.T) {
			onRealPath(t, name)
			s := Check(context.Background(), name)
			if s.Usable || s.Version != version || s.Detail != "not logged in" || s.Fix == "" {
				t.Errorf("Check = %+v, want version %s, not logged in, with a fix", s, version)
			}
		})
	}
}

// A call that times out while the agent retries its API says what it
// waited for, in the agent's words: claude's api_retry events, codex's
// "Reconnecting..." or its fallback notice (here, a key with no network
// behind it), or, silent on stdout, its log's last line; not only
// "context deadline exceeded".
func TestRealTimeoutNamesWhatItWaitedFor(t *testing.T) {
	for name, want := range map[string]string{
		AdapterClaude: "while claude was waiting: API request retry ",
		AdapterCodex:  "while codex was waiting: ",
	} {
		t.Run(name, func(t *testing.T) {
			onRealPath(t, name)
			t.Setenv("ANTHROPIC_API_KEY", "sk-ant-not-a-key")
			t.Setenv("CODEX_API_KEY", "sk-not-a-key")
			var log bytes.Buffer
			a := &Agent{Command: name, Dir: t.TempDir(), Timeout: 8 * time.Second, Session: &Session{ID: newUUID(t)}, Log: func(*Prompt) io.Writer { return &log }}
			p := &Prompt{Request: RequestStep}
			p.add("STEP", "Say hello.")
			_, err := a.Ask(context.Background(), p)
			if name == AdapterCodex && err != nil && strings.Contains(err.Error(), "codex's stderr ends: ") {
				// Slower here: before its first reconnect, its log says
				// what it could not reach.
				want = " ERROR codex_"
			}
			if err == nil || !strings.Contains(err.Error(), "timed out after 8s (--agent-timeout)") || !strings.Contains(err.Error(), want) {
				t.Fatalf("err = %v\nwant a timeout that says %q\nstdout: %s", err, want, log.String())
			}
		})
	}
}

// A work dir that is gone (removed under the run) is named as what is
// missing: Go reports the failed chdir as the program's own "no such
// file", which sent the user to reinstall claude.
func TestRealMissingWorkDirIsNamed(t *testing.T) {
	gone := filepath.Join(t.TempDir(), "gone")
	for _, name := range []string{AdapterClaude, AdapterCodex, "echo hi"} {
		t.Run(name, func(t *testing.T) {
			if name != "echo hi" {
				onRealPath(t, name)
			}
			a := &Agent{Command: name, Dir: gone, Timeout: 20 * time.Second}
			_, err := a.Ask(context.Background(), &Prompt{Request: RequestStep})
			if err == nil || !strings.Contains(err.Error(), "cannot enter the work dir "+gone) {
				t.Fatalf("err = %v, want it to name the work dir %s", err, gone)
			}
		})
	}
}

// The real CLIs run as plain commands (--agent "claude --model …", a
// user's own flags) say why they failed where they say it: claude on
// stdout, with nothing on stderr; codex on stderr, above a backtrace of
// "<unknown>" frames. The message gives the reason, not a bare exit
// status or the backtrace's last lines.
func TestRealPlainCommandFailureSaysWhy(t *testing.T) {
	for name, tt := range map[string]struct{ cmd, want string }{
		AdapterClaude: {"claude --model no-such-model", "exit status 1: Not logged in · Please run /login"},
		AdapterCodex:  {"codex --model no-such-model", "exit status 1: Error: stdin is not a terminal"},
	} {
		t.Run(name, func(t *testing.T) {
			onRealPath(t, name)
			a := &Agent{Command: tt.cmd, Dir: t.TempDir(), Timeout: time.Minute}
			p := &Prompt{Request: RequestStep}
			p.add("STEP", "Say hello.")
			_, err := a.Ask(context.Background(), p)
			if err == nil || !strings.HasSuffix(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to end %q", err, tt.want)
			}
		})
	}
}
