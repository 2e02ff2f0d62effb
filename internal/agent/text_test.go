package agent

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillkit/skillkit/plan"
)

func TestSubstitute(t *testing.T) {
	v := Vars{Args: []string{"src/app", "deep mode"}, Names: []string{"file", "mode"}, SkillDir: "/skills/demo", SessionID: "s-1"}
	tests := map[string]string{
		"all: $ARGUMENTS.":                           "all: src/app deep mode.",
		"$ARGUMENTS[0] and $ARGUMENTS[1]":            "src/app and deep mode",
		"$0/$1/$2.":                                  "src/app/deep mode/.", // 0-based; past the end is ""
		"$file in $mode":                             "src/app in deep mode",
		"$filename $HOME $ costs $":                  "$filename $HOME $ costs $", // undeclared names stay
		"${CLAUDE_SKILL_DIR}/x ${CLAUDE_SESSION_ID}": "/skills/demo/x s-1",
		"$ARGUMENTS[x]":                              "src/app deep mode[x]",
		"$10":                                        "",
	}
	for in, want := range tests {
		if got := v.Substitute(in); got != want {
			t.Errorf("Substitute(%q) = %q, want %q", in, got, want)
		}
	}
	if got := v.Instructions("Do it."); got != "Do it.\n\nARGUMENTS: src/app deep mode" {
		t.Errorf("Instructions without $ARGUMENTS = %q, want the arguments appended", got)
	}
	if got := v.Instructions("Do $ARGUMENTS."); got != "Do src/app deep mode." {
		t.Errorf("Instructions with $ARGUMENTS = %q", got)
	}
}

func TestRunContext(t *testing.T) {
	var ran []string
	run := func(_ context.Context, cmd string) (string, error) {
		ran = append(ran, cmd)
		if cmd == "false" {
			return "", errors.New("failed")
		}
		return "<" + strings.TrimSpace(cmd) + ">\n", nil
	}
	in := "Branch: !`git branch`\nnot!`this`\n```bash\necho !`kept`\n```\n```!\ngit status\ngit log\n```\nend !`date`"
	want := "Branch: <git branch>\nnot!`this`\n```bash\necho !`kept`\n```\n<git status\ngit log>\nend <date>"
	got, err := RunContext(context.Background(), in, nil, run)
	if err != nil || got != want {
		t.Errorf("RunContext =\n%s\n%v; want\n%s", got, err, want)
	}
	if len(ran) != 3 {
		t.Errorf("ran %q, want 3 commands", ran)
	}
	if _, err := RunContext(context.Background(), "x !`false`", nil, run); err == nil {
		t.Error("a failing context command must fail the expansion")
	}
}

// TestRunContextTellsTheLine: a failing command is told at its line of
// the text, inline or fenced, so that the run can name the file's line.
func TestRunContextTellsTheLine(t *testing.T) {
	run := func(_ context.Context, cmd string) (string, error) {
		if strings.HasPrefix(cmd, "false") {
			return "", &CommandError{Command: cmd, ExitCode: 1}
		}
		return "ok", nil
	}
	for in, want := range map[string]int{
		"!`false`":                             1,
		"a\n\nb !`true` then !`false x`":       3,
		"a\n```!\ntrue\n```\n```!\nfalse\n```": 5,
		"a\n```bash\n!`false`\n```\n!`false`":  5,
	} {
		_, err := RunContext(context.Background(), in, nil, run)
		var ce *CommandError
		if !errors.As(err, &ce) || ce.Line != want {
			t.Errorf("RunContext(%q): %v at line %d, want line %d", in, err, ce.Line, want)
		}
	}
}

// TestLastLinesKeepsTheError: a program that prints its error above a
// stack (node, Go) is told by that line as well as by its last lines;
// one that ends with its error (Python) by its last lines. The stderr
// files were captured from the programs.
func TestLastLinesKeepsTheError(t *testing.T) {
	for file, want := range map[string]string{
		"node-missing-module.txt": "…\nError: Cannot find module '/tmp/proj1/core/cli/ops.js'\n…\n}\n\nNode.js v20.20.2",
		"go-panic.txt":            "panic: assignment to entry in nil map\n…\ngoroutine 1 [running]:\nmain.main()\n\t/tmp/gopanic.go:5 +0x28",
		"python-import.txt":       "Traceback (most recent call last):\n  File \"<string>\", line 1, in <module>\nModuleNotFoundError: No module named 'missingmod'",
	} {
		b, err := os.ReadFile(filepath.Join("testdata", "stderr", file))
		if err != nil {
			t.Fatal(err)
		}
		if got := lastLines(strings.TrimSpace(string(b)), 3); got != want {
			t.Errorf("%s: lastLines =\n%s\nwant\n%s", file, got, want)
		}
	}
}

// TestRunContextArgumentsAreText: the commands are found in the text as
// written; an argument lands in a command as typed, but one holding !`…`
// or a fence runs nothing, and an output holding "$0" is not substituted.
func TestRunContextArgumentsAreText(t *testing.T) {
	v := Vars{Args: []string{"x !`touch pwned`\n```!\nrm -rf ~\n```"}}
	var ran []string
	run := func(_ context.Context, cmd string) (string, error) {
		ran = append(ran, cmd)
		return "out $0", nil
	}
	got, err := RunContext(context.Background(), "Args: $ARGUMENTS\n!`echo $0`", v.Substitute, run)
	if err != nil {
		t.Fatal(err)
	}
	if len(ran) != 1 || ran[0] != "echo "+v.Args[0] {
		t.Errorf("ran %q, want only the written command, with the argument in it", ran)
	}
	if want := "Args: " + v.Args[0] + "\nout $0"; got != want {
		t.Errorf("RunContext =\n%s\nwant\n%s", got, want)
	}
	// A failing command is told at its line as written, however many
	// lines an argument above it holds.
	run = func(_ context.Context, cmd string) (string, error) {
		return "", &CommandError{Command: cmd, ExitCode: 1}
	}
	_, err = RunContext(context.Background(), "a\nArgs: $ARGUMENTS\n\n!`false`", v.Substitute, run)
	var ce *CommandError
	if !errors.As(err, &ce) || ce.Line != 4 {
		t.Errorf("err %v, want a CommandError at line 4", err)
	}
}

// TestLastLinesMarksOnlyWhatItLeaves: "…" stands for lines left out, so
// none goes between the error line and the tail when they meet.
func TestLastLinesMarksOnlyWhatItLeaves(t *testing.T) {
	for in, want := range map[string]string{
		"a\nb\nError: x\nt1\nt2\nt3":   "…\nError: x\nt1\nt2\nt3",
		"Error: x\nt1\nt2\nt3":         "Error: x\nt1\nt2\nt3",
		"Error: x\nmid\nt1\nt2\nt3":    "Error: x\n…\nt1\nt2\nt3",
		"a\nError: x\nmid\nt1\nt2\nt3": "…\nError: x\n…\nt1\nt2\nt3",
		"a\nb\nc\nt1\nt2\nt3":          "…\nt1\nt2\nt3",
	} {
		if got := lastLines(in, 3); got != want {
			t.Errorf("lastLines(%q) =\n%q\nwant\n%q", in, got, want)
		}
	}
}

// TestActionPromptTellsTheCommandsLine: a context command of an action's
// Execution that fails is told at its line of the action's file.
func TestActionPromptTellsTheCommandsLine(t *testing.T) {
	run := func(_ context.Context, cmd string) (string, error) {
		return "", &CommandError{Command: cmd, ExitCode: 1}
	}
	c := Context{Expand: func(text string) (string, error) { return RunContext(context.Background(), text, nil, run) }}
	a := &plan.Action{ID: "action-x", Purpose: "Counts.\nTwice.", Execution: plan.Execution{
		Kind: plan.ExecProse, Text: "## Execution\n\nLook:\n!`false`", TextLine: 7, Pos: plan.Pos{File: "actions/action-x.md", Line: 7, Col: 1}}}
	_, err := ActionPrompt(c, a)
	if err == nil || !strings.HasPrefix(err.Error(), "actions/action-x.md:10: context command") {
		t.Errorf("err = %v, want it at actions/action-x.md:10", err)
	}
}
