package agent

import (
	"context"
	"errors"
	"strings"
	"testing"
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
	got, err := RunContext(context.Background(), in, run)
	if err != nil || got != want {
		t.Errorf("RunContext =\n%s\n%v; want\n%s", got, err, want)
	}
	if len(ran) != 3 {
		t.Errorf("ran %q, want 3 commands", ran)
	}
	if _, err := RunContext(context.Background(), "x !`false`", run); err == nil {
		t.Error("a failing context command must fail the expansion")
	}
}
