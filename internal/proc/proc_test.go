package proc

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestRun(t *testing.T) {
	tests := []struct {
		name     string
		script   string
		stdin    string
		stdout   string
		stderr   string
		exitCode int
	}{
		{name: "output", script: "echo out; echo err >&2", stdout: "out\n", stderr: "err\n"},
		{name: "stdin", script: "cat", stdin: "hello", stdout: "hello"},
		{name: "exit code", script: "exit 3", exitCode: 3},
		{name: "env", script: `printf %s "$PROC_TEST"`, stdout: "v"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Run(context.Background(), Cmd{
				Name: "sh", Args: []string{"-c", tt.script},
				Dir: t.TempDir(), Env: []string{"PROC_TEST=v"}, Stdin: strings.NewReader(tt.stdin),
			})
			if err != nil {
				t.Fatal(err)
			}
			if res.Stdout != tt.stdout || res.Stderr != tt.stderr || res.ExitCode != tt.exitCode {
				t.Errorf("got %+v, want stdout %q stderr %q exit %d", res, tt.stdout, tt.stderr, tt.exitCode)
			}
		})
	}
}

func TestRunKillsTheGroupOnTimeout(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := Run(ctx, Cmd{Name: "sh", Args: []string{"-c", "sleep 30 & sleep 30; wait"}})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want deadline exceeded", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Run returned after %v: the group was not killed", d)
	}
}

func TestRunMissingCommand(t *testing.T) {
	if _, err := Run(context.Background(), Cmd{Name: "skillkit-no-such-command"}); err == nil {
		t.Fatal("want an error for a command that does not exist")
	}
}

// A tail keeps the last bytes written, whatever the sizes of the writes,
// and counts those it dropped.
func TestTail(t *testing.T) {
	var all []byte
	for i := range 5000 {
		all = append(all, byte('a'+i%26))
	}
	for _, size := range []int{1, 7, 100, 4999, 5000, 6000} {
		for _, chunk := range []int{1, 3, 64, 1000, 5000} {
			tl := NewTail(size)
			for rest := all; len(rest) > 0; {
				k := min(chunk, len(rest))
				tl.Write(rest[:k])
				rest = rest[k:]
			}
			keep := min(size, len(all))
			if got, want := tl.String(), string(all[len(all)-keep:]); got != want || tl.cut != int64(len(all)-keep) {
				t.Errorf("size %d chunk %d: got %d bytes cut %d, want the last %d", size, chunk, len(got), tl.cut, keep)
			}
		}
	}
}

// Output gets the whole of both streams; Result keeps the tail of each.
func TestRunOutputAndTail(t *testing.T) {
	var log strings.Builder
	res, err := Run(context.Background(), Cmd{
		Name: "sh", Args: []string{"-c", "head -c 100000 /dev/zero | tr '\\0' x; echo err >&2"},
		Output: &log, Tail: 10,
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stdout != strings.Repeat("x", 10) || res.StdoutCut != 99990 || res.Stderr != "err\n" || res.StderrCut != 0 {
		t.Errorf("result: stdout %q (cut %d), stderr %q (cut %d)", res.Stdout, res.StdoutCut, res.Stderr, res.StderrCut)
	}
	if log.Len() != 100004 {
		t.Errorf("Output got %d bytes, want all 100004", log.Len())
	}
}

// A command whose program the caller looked up runs it, under its name:
// a shell's messages say "sh", not its path.
func TestRunLookedUpPath(t *testing.T) {
	path, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	res, err := Run(context.Background(), Cmd{Name: "sh", Path: path, Args: []string{"-c", "echo $0"}})
	if err != nil || res.Stdout != "sh\n" {
		t.Fatalf("Run = %+v, %v; want $0 sh", res, err)
	}
}

// A program that is not on PATH is reported as not found, twice in a row
// (the second command gets the cgroup the first left idle, where there
// are cgroups): the start is not tried again with the bare name as a path.
func TestRunNotFound(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	for range 2 {
		_, err := Run(context.Background(), Cmd{Name: "no-such-program-here"})
		if !errors.Is(err, exec.ErrNotFound) {
			t.Fatalf("err = %v, want exec.ErrNotFound", err)
		}
	}
}

// A command whose working directory is gone names the directory: the
// system reports the failed chdir as the program's own "no such file".
func TestMissingDirIsNamed(t *testing.T) {
	gone := filepath.Join(t.TempDir(), "gone")
	_, err := Run(context.Background(), Cmd{Name: "sh", Args: []string{"-c", "true"}, Dir: gone})
	var de *DirError
	if !errors.As(err, &de) || de.Dir != gone || !strings.Contains(err.Error(), "cannot enter the work dir "+gone) {
		t.Fatalf("err = %v, want a *DirError naming %s", err, gone)
	}
}
