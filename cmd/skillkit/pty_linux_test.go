package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"golang.org/x/sys/unix"

	"github.com/skillkit/skillkit/internal/testfs"
)

// openPTY opens a pseudo-terminal of the given width: the controlling
// side for the test, the terminal side for skillkit.
func openPTY(t *testing.T, cols int) (ctrl, tty *os.File) {
	t.Helper()
	ctrl, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	fd := int(ctrl.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	setWidth(t, ctrl, cols)
	t.Cleanup(func() { tty.Close(); ctrl.Close() })
	return ctrl, tty
}

func setWidth(t *testing.T, ctrl *os.File, cols int) {
	t.Helper()
	if err := unix.IoctlSetWinsize(int(ctrl.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 24, Col: uint16(cols)}); err != nil {
		t.Fatal(err)
	}
}

// screen collects what skillkit writes to the terminal.
type screen struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *screen) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(b)
}

func (s *screen) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// waitFor waits until the screen holds want.
func (s *screen) waitFor(t *testing.T, want string) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if strings.Contains(s.String(), want) {
			return
		}
	}
	t.Fatalf("the terminal never showed %q; it shows:\n%q", want, s.String())
}

// TestLiveLineInTerminal runs a skill in a terminal 60 columns wide whose
// phase and step names are longer than that, with a question on the way:
// the live line fits the width (also after the terminal narrows), names
// the phase, the step and the step's time, and does not erase the
// question while it waits for its answer.
func TestLiveLineInTerminal(t *testing.T) {
	bin, err := exec.LookPath("skillkit")
	if err != nil {
		t.Skip("the skillkit command of TestMain is not on PATH")
	}
	dir := t.TempDir()
	skill := filepath.Join(dir, "long-names")
	testfs.WriteTree(t, skill, map[string]string{
		"SKILL.md": "---\nname: long-names\ndescription: Has long names.\n---\n# Long names\n",
		"phases/01-metadata-collection-and-validation.md": "# Phase 1: Metadata collection and validation\n" +
			"## Execution Steps\n" +
			"### Step 1: Collect every metadata field of every document in the folder\n```bash\nsleep 1.5\n```\n" +
			"### Step 2: Overwrite\n- **Confirm**: Overwrite the old report?\n```bash\necho answered > answered.txt\n```\n" +
			"### Step 3: Ask\n```javascript\nconst a = await AskUserQuestion({questions: [{question: 'Which target?', header: 'Target', " +
			"options: [{label: 'src/'}, {label: 'docs/'}]}]});\nWrite('picked.txt', a.Target);\n```\n" +
			"### Step 4: Wait for the narrower terminal\n```bash\nsleep 1.5\n```\n",
	})
	ctrl, tty := openPTY(t, 60)
	cmd := exec.Command(bin, "run", skill, "--workdir", filepath.Join(dir, "run"))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	cmd.Stdin, cmd.Stderr = tty, tty
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	scr := &screen{}
	go io.Copy(scr, ctrl)

	answer := func(question, reply string) {
		scr.waitFor(t, question)
		// Redraws come every half second: over a second and a half, none
		// may erase the question.
		time.Sleep(1500 * time.Millisecond)
		asked := scr.String()
		if q := strings.LastIndex(asked, question); strings.Contains(asked[q:], "\r\033[K") {
			t.Errorf("the live line was redrawn over the waiting question:\n%q", asked[q:])
		}
		if _, err := ctrl.WriteString(reply + "\n"); err != nil {
			t.Fatal(err)
		}
	}
	answer("Overwrite the old report?", "yes")
	answer("Which target?", "2")
	scr.waitFor(t, "narrower terminal")
	setWidth(t, ctrl, 40)
	cmd.Process.Signal(unix.SIGWINCH)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("run: %v\n%s\n%q", err, stdout.String(), scr.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "run", "answered.txt")); err != nil {
		t.Errorf("the confirmed step did not run: %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "run", "picked.txt")); string(got) != "docs/" {
		t.Errorf("AskUserQuestion got %q, want the answer typed, docs/", got)
	}

	out := scr.String()
	var narrow bool
	for _, l := range liveLines(out) {
		w := utf8.RuneCountInString(l)
		if strings.Contains(l, "terminal ·") {
			narrow = narrow || w <= 39
		}
		if w > 59 {
			t.Errorf("a live line of %d columns in a terminal of 60: %q", w, l)
		}
	}
	if !narrow {
		t.Errorf("no live line of at most 39 columns after the terminal narrowed to 40:\n%q", out)
	}
	// The first step's line: phase i/n, step number and title, and the
	// step's own time (cut in the middle to fit).
	if !regexp.MustCompile(`phase 1/1…alidation · step 1 .*in the folder · [0-9.]+m?s`).MatchString(out) {
		t.Errorf("no live line with the phase, the step and its time:\n%q", out)
	}
}

// liveLines are the status lines drawn on the terminal: what follows
// each "\r\033[K" up to the next control sequence or line end, where it
// names a phase (a prompt follows a clear too).
func liveLines(out string) []string {
	var lines []string
	for _, part := range strings.Split(out, "\r\033[K")[1:] {
		if i := strings.IndexAny(part, "\r\n\033"); i >= 0 {
			part = part[:i]
		}
		if strings.HasPrefix(part, "phase ") {
			lines = append(lines, part)
		}
	}
	return lines
}

// A terminal is what the terminal driver answers for: /dev/null, a
// character device, and a pipe are not.
func TestIsTerminal(t *testing.T) {
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	_, tty := openPTY(t, 60)
	for _, tt := range []struct {
		name string
		f    *os.File
		want bool
	}{{"/dev/null", null, false}, {"a pipe", w, false}, {"a pty", tty, true}} {
		if got := isTerminal(tt.f); got != tt.want {
			t.Errorf("isTerminal(%s) = %v, want %v", tt.name, got, tt.want)
		}
	}
	if w, ok := termWidth(tty); !ok || w != 60 {
		t.Errorf("termWidth(pty) = %d, %v; want 60", w, ok)
	}
}

// TestAgentOnLiveLine: while an agent call runs, the live line shows the
// tool the agent uses and its turns.
func TestAgentOnLiveLine(t *testing.T) {
	bin, err := exec.LookPath("skillkit")
	if err != nil {
		t.Skip("the skillkit command of TestMain is not on PATH")
	}
	agentOnPath(t, "claude", `echo '{"type":"system","subtype":"init","session_id":"5a1e0000-0000-4000-8000-000000000001"}'
echo '{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]},"session_id":"5a1e0000-0000-4000-8000-000000000001"}'
sleep 1.5
echo '{"type":"result","subtype":"success","is_error":false,"num_turns":1,"result":"{\"stateUpdates\": {}}","session_id":"5a1e0000-0000-4000-8000-000000000001"}'`)
	dir := t.TempDir()
	ctrl, tty := openPTY(t, 100)
	cmd := exec.Command(bin, "run", agentSkill(t), "--workdir", filepath.Join(dir, "run"), "--agent", "claude")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	cmd.Stdin, cmd.Stderr = tty, tty
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	scr := &screen{}
	go io.Copy(scr, ctrl)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("run: %v\n%s\n%q", err, stdout.String(), scr.String())
	}
	if !regexp.MustCompile(`step 1 Think · claude: Bash · 1 turns · [0-9.]+m?s`).MatchString(scr.String()) {
		t.Errorf("no live line with the agent's tool and turns:\n%q", scr.String())
	}
}
