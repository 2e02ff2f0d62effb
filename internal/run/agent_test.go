package run_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillkit/skillkit/internal/agent"
	"github.com/skillkit/skillkit/internal/run"
	"github.com/skillkit/skillkit/internal/runstore"
	"github.com/skillkit/skillkit/internal/runstore/fsstore"
	"github.com/skillkit/skillkit/internal/testfs"
	"github.com/skillkit/skillkit/parse"
)

// writeSkill writes a skill with two agent steps around a JS step that
// calls Task, arguments, a context command and allowed-tools, and parses
// it.
func writeSkill(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "demo")
	testfs.WriteFile(t, filepath.Join(dir, "SKILL.md"), "---\nname: demo\ndescription: A demo.\n"+
		"arguments: [target]\nallowed-tools: Read, Bash(git log:*)\n---\n# Demo\n\n"+
		"Review $target (all: $ARGUMENTS) with ${CLAUDE_SKILL_DIR}/notes.md in ${CLAUDE_SESSION_ID}.\n\n"+
		"Context: !`echo ctx-$0-$SKILL_RUN_ID`\n")
	testfs.WriteFile(t, filepath.Join(dir, "phases", "01-work.md"), "# Phase 1: Work\n\n## Objective\n\nWork on $0.\n\n"+
		"## Execution Steps\n\n### Step 1: Look\n\nLook at $ARGUMENTS[1] and $1.\n\n"+
		"### Step 2: Ask\n\n```javascript\nstate.reply = await Task({prompt: 'Say hi to ' + args[0] + ' of ' + ARGUMENTS});\n```\n\n"+
		"### Step 3: Write\n\nWrite the result.\n\n```!\necho fenced-context\n```\n")
	return dir
}

// standIn writes an executable named name into a fresh folder and puts
// that folder first on PATH.
func standIn(t *testing.T, name, script string) {
	t.Helper()
	bin := t.TempDir()
	testfs.WriteFile(t, filepath.Join(bin, name), script)
	if err := os.Chmod(filepath.Join(bin, name), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// The stand-ins keep every call in $STANDIN_LOG (n, arguments, whether
// the prompt had [CONTEXT], the prompt) and check their command lines as
// the real tools need them, failing the call when it is wrong. A call
// whose number is $STANDIN_HANG hangs, for a test to interrupt the run.
const standInHead = `#!/bin/sh
prompt=$(cat)
n=$(($(cat "$STANDIN_LOG.n" 2>/dev/null || echo 0) + 1))
echo $n > "$STANDIN_LOG.n"
ctx=no
case "$prompt" in *"[CONTEXT]"*) ctx=yes ;; esac
printf '=== %s call=%s request=%s session=%s context=%s args=%s\n%s\n' "$n" "$SKILLKIT_CALL" "$SKILLKIT_REQUEST" "$SKILLKIT_SESSION_ID" "$ctx" "$*" "$prompt" >> "$STANDIN_LOG"
fail() { echo "stand-in: $*" >&2; exit 2; }
[ "$SKILLKIT_CALL" = "$n" ] || fail "SKILLKIT_CALL=$SKILLKIT_CALL on call $n"
if [ "$n" = "$STANDIN_HANG" ]; then touch "$STANDIN_LOG.hung"; sleep 30; fi
`

const claudeStandIn = standInHead + `
case " $* " in *" -p --output-format stream-json --verbose "*) ;; *) fail "want -p --output-format stream-json --verbose first: $*" ;; esac
if [ "$SKILLKIT_REQUEST" = task ]; then
  case " $* " in *" --session-id "*|*" --resume "*) fail "a Task in the run's conversation: $*" ;; esac
elif [ "$n" = 1 ]; then
  case " $* " in *" --session-id $SKILLKIT_SESSION_ID "*) ;; *) fail "first call without --session-id: $*" ;; esac
  case " $* " in *" --resume "*) fail "first call with --resume" ;; esac
else
  case " $* " in *" --resume $SKILLKIT_SESSION_ID "*) ;; *) fail "call $n without --resume: $*" ;; esac
  case " $* " in *" --session-id "*) fail "call $n with --session-id" ;; esac
fi
case " $* " in *" --allowedTools Read Bash(git log:*) "*) ;; *) fail "allowed tools: $*" ;; esac
printf '{"type":"result","subtype":"success","is_error":false,"num_turns":3,"result":"done %s","session_id":"%s","total_cost_usd":0.25}\n' "$n" "$SKILLKIT_SESSION_ID"
`

const codexStandIn = standInHead + `
if [ "$n" = 1 ] || [ "$SKILLKIT_REQUEST" = task ]; then
  case "$*" in "exec --json --skip-git-repo-check --sandbox workspace-write -") ;; *) fail "call $n ($SKILLKIT_REQUEST) not a first call: $*" ;; esac
else
  # exec resume has no --sandbox: the sandbox goes as configuration.
  case "$*" in 'exec resume --json --skip-git-repo-check -c sandbox_mode="workspace-write" th-42 -') ;; *) fail "call $n without resume th-42: $*" ;; esac
fi
echo '{"type":"thread.started","thread_id":"th-42"}'
echo '{"type":"turn.started"}'
printf '{"type":"item.completed","item":{"id":"i1","type":"agent_message","text":"done %s"}}\n' "$n"
echo '{"type":"turn.completed","usage":{"input_tokens":10,"cached_input_tokens":0,"output_tokens":5}}'
`

// plainStandIn is a command with no conversation: it must get [CONTEXT]
// every time.
const plainStandIn = standInHead + `
[ "$ctx" = yes ] || fail "a plain command needs [CONTEXT] on every call"
echo "done $n"
`

type call struct {
	head, prompt string
}

func calls(t *testing.T, log string) []call {
	t.Helper()
	var out []call
	for _, part := range strings.Split(testfs.ReadFile(t, log), "=== ")[1:] {
		head, prompt, _ := strings.Cut(part, "\n")
		out = append(out, call{head, prompt})
	}
	return out
}

func TestAgentAdapters(t *testing.T) {
	tests := []struct {
		name, script, command string
		// thread is the conversation id the agent reports; "" for the
		// run's session id.
		thread     string
		turns      int
		cost       float64
		contextAll bool
	}{
		{name: "claude", script: claudeStandIn, command: "claude", turns: 3, cost: 0.25},
		{name: "codex", script: codexStandIn, command: "codex", thread: "th-42", turns: 1},
		{name: "plain", script: plainStandIn, command: "my-agent --flag", contextAll: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			standIn(t, strings.Fields(tt.command)[0], tt.script)
			log := filepath.Join(t.TempDir(), "calls.log")
			t.Setenv("STANDIN_LOG", log)
			t.Setenv("STANDIN_HANG", "2")
			s, err := parse.Dir(writeSkill(t))
			if err != nil {
				t.Fatal(err)
			}
			o := run.Options{
				Skill: s, Store: fsstore.New(fsstore.Options{Base: t.TempDir(), NoSync: true}), Backoff: 1,
				Agent: &agent.Agent{Command: tt.command, Timeout: 20 * time.Second}, Args: []string{"src/app", "deep mode"},
			}
			// The second call hangs: interrupt the run there, as Ctrl-C
			// would, and resume it.
			ctx, cancel := context.WithCancel(context.Background())
			go func() {
				for {
					if _, err := os.Stat(log + ".hung"); err == nil {
						cancel()
						return
					}
					time.Sleep(10 * time.Millisecond)
				}
			}()
			res, err := run.Run(ctx, o)
			cancel()
			if res == nil || res.State != runstore.RunInterrupted || !errors.Is(err, context.Canceled) {
				t.Fatalf("first run: %v, %v; want it interrupted", res, err)
			}
			t.Setenv("STANDIN_HANG", "")
			o.Resume, o.Args = res.ID, nil
			if res, err = run.Run(context.Background(), o); err != nil {
				t.Fatalf("resume: %v\n%s", err, testfs.ReadFile(t, log))
			}

			cs := calls(t, log)
			if len(cs) != 4 {
				t.Fatalf("%d calls, want 4 (step 1, Task interrupted, Task again, step 3)", len(cs))
			}
			var start struct {
				Start runstore.Start `json:"start"`
			}
			events := testfs.ReadFile(t, filepath.Join(res.Dir, "events.jsonl"))
			first, _, _ := strings.Cut(events, "\n")
			if err := json.Unmarshal([]byte(first), &start); err != nil {
				t.Fatal(err)
			}
			session := start.Start.SessionID
			if len(session) != 36 || strings.Join(start.Start.Args, "|") != "src/app|deep mode" {
				t.Fatalf("the run recorded session %q and args %q", session, start.Start.Args)
			}
			for i, c := range cs {
				// One session across the resume, and the resumed run
				// went on counting. A Task (calls 2 and 3) is a
				// conversation of its own, which needs [CONTEXT].
				want := []string{"call=" + string(rune('1'+i)), "session=" + session}
				if i < 3 || tt.contextAll {
					want = append(want, "context=yes")
				} else {
					want = append(want, "context=no")
				}
				for _, w := range want {
					if !strings.Contains(c.head, w+" ") {
						t.Errorf("call %d: %q lacks %q", i+1, c.head, w)
					}
				}
			}
			p0 := cs[0].prompt
			for _, w := range []string{
				"Review src/app (all: src/app deep mode) with " + s.Dir, "/notes.md in " + session + ".",
				"Context: ctx-src/app-" + res.ID, "Objective:\nWork on src/app.", "Look at deep mode and deep mode.",
				"[OUTPUTS]", // absent: no outputs declared
			} {
				if has := strings.Contains(p0, w); has == (w == "[OUTPUTS]") {
					t.Errorf("first prompt: has %q = %v:\n%s", w, has, p0)
				}
			}
			if !strings.Contains(cs[1].prompt, "[QUESTION]\nSay hi to src/app of src/app deep mode") || !strings.Contains(cs[1].head, "request=task") {
				t.Errorf("Task call: %s\n%s", cs[1].head, cs[1].prompt)
			}
			if !strings.Contains(cs[3].prompt, "Write the result.\n\nfenced-context") {
				t.Errorf("step 3 prompt: the ```! block did not run:\n%s", cs[3].prompt)
			}

			// Every call is a metric with what the agent reported.
			thread := tt.thread
			if thread == "" && tt.command != "my-agent --flag" {
				thread = session
			}
			n := 0
			for line := range strings.Lines(testfs.ReadFile(t, filepath.Join(res.Dir, "metrics.jsonl"))) {
				var m runstore.Metric
				if err := json.Unmarshal([]byte(line), &m); err != nil {
					t.Fatal(err)
				}
				if m.Kind != runstore.KindAgent {
					continue
				}
				n++
				if m.Call != n || m.Session != thread || m.Outcome == "completed" && (m.Turns != tt.turns || m.CostUSD != tt.cost) {
					t.Errorf("agent metric %d = %+v, want session %q, %d turns, $%v", n, m, thread, tt.turns, tt.cost)
				}
			}
			if n != 4 {
				t.Errorf("%d agent metrics, want 4", n)
			}
		})
	}
}

// Context commands run only when text is about to go to the agent: never
// in a dry run, and not with NoShellContext, where the text is sent as
// written (its variables substituted).
func TestContextCommandsOnlyAtRunTime(t *testing.T) {
	dir := writeSkill(t)
	testfs.WriteFile(t, filepath.Join(dir, "SKILL.md"), "---\nname: demo\ndescription: A demo.\n---\n"+
		"# Demo\n\nNow: !`touch \"$SKILL_WORKDIR/ran\"; echo ran-$0`\n")
	s, err := parse.Dir(dir)
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	o := run.Options{Skill: s, Store: fsstore.New(fsstore.Options{Base: t.TempDir(), NoSync: true}), WorkDir: work, Args: []string{"x"}}
	d, err := run.Plan(o)
	if err != nil {
		t.Fatal(err)
	}
	if p := d.Phases[0].Steps[0].Prompt; !strings.Contains(p, "Now: !`touch \"$SKILL_WORKDIR/ran\"; echo ran-x`") {
		t.Errorf("dry-run prompt shows:\n%s", p)
	}
	if _, err := os.Stat(filepath.Join(work, "ran")); err == nil {
		t.Fatal("the dry run ran a context command")
	}

	log := filepath.Join(t.TempDir(), "calls.log")
	t.Setenv("STANDIN_LOG", log)
	standIn(t, "my-agent", plainStandIn)
	for _, noShell := range []bool{true, false} {
		o := o
		o.WorkDir = filepath.Join(t.TempDir(), "w")
		o.NoShellContext = noShell
		o.Agent = &agent.Agent{Command: "my-agent"}
		os.Remove(log + ".n")
		os.Remove(log)
		res, err := run.Run(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		_, statErr := os.Stat(filepath.Join(res.WorkDir, "ran"))
		first := calls(t, log)[0].prompt
		if noShell && (statErr == nil || !strings.Contains(first, "Now: !`touch")) {
			t.Errorf("--no-shell-context: ran=%v, prompt:\n%s", statErr == nil, first)
		}
		if !noShell && (statErr != nil || !strings.Contains(first, "Now: ran-x\n")) {
			t.Errorf("run time: ran=%v, prompt:\n%s", statErr == nil, first)
		}
	}
}

// A run whose agent budget is spent stops interrupted, resumable, naming
// the budget's flag; a resume with a higher budget goes on, counting
// from what the run spent before. A call budget counts any agent; a cost
// budget what claude reports (0.25 a call here).
func TestAgentBudgets(t *testing.T) {
	for _, tt := range []struct {
		name, command, script, flag string
		budget                      func(o *run.Options, more bool)
	}{
		{name: "calls", command: "my-agent", script: plainStandIn, flag: "--max-agent-calls 2", budget: func(o *run.Options, more bool) {
			o.MaxAgentCalls = map[bool]int{false: 2, true: 5}[more]
		}},
		{name: "cost", command: "claude", script: claudeStandIn, flag: "--max-cost-usd 0.5", budget: func(o *run.Options, more bool) {
			o.MaxCostUSD = map[bool]float64{false: 0.5, true: 1}[more]
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			standIn(t, tt.command, tt.script)
			log := filepath.Join(t.TempDir(), "calls.log")
			t.Setenv("STANDIN_LOG", log)
			s, err := parse.Dir(writeSkill(t))
			if err != nil {
				t.Fatal(err)
			}
			o := run.Options{Skill: s, Store: fsstore.New(fsstore.Options{Base: t.TempDir(), NoSync: true}), Agent: &agent.Agent{Command: tt.command}, Args: []string{"x"}}
			tt.budget(&o, false)
			res, err := run.Run(context.Background(), o)
			if res == nil || res.State != runstore.RunInterrupted || !errors.Is(err, agent.ErrBudget) || !strings.Contains(err.Error(), tt.flag) {
				t.Fatalf("%v, %v; want the run interrupted by the budget %s", res, err, tt.flag)
			}
			if n := len(calls(t, log)); n != 2 {
				t.Fatalf("%d calls before the budget stopped the run, want 2", n)
			}
			o.Resume, o.Args = res.ID, nil
			tt.budget(&o, true)
			if res, err = run.Run(context.Background(), o); err != nil {
				t.Fatalf("resume with a higher budget: %v", err)
			}
			if n := len(calls(t, log)); n != 3 {
				t.Errorf("%d calls in all, want 3", n)
			}
			sum, err := o.Store.Status(res.ID)
			if err != nil {
				t.Fatal(err)
			}
			want := runstore.Conversation{Calls: 3}
			if tt.command == "claude" {
				want = runstore.Conversation{Calls: 3, Thread: sum.Progress.SessionID, CostUSD: 0.75}
			}
			if c := sum.Progress.Agent; c == nil || *c != want {
				t.Errorf("the record's conversation = %+v, want %+v", c, want)
			}
		})
	}
}
