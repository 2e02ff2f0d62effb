package proc

import (
	"context"
	"errors"
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
