package script

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/skillkit/skillkit/internal/agent"
	"github.com/skillkit/skillkit/internal/testfs"
	"github.com/skillkit/skillkit/plan"
)

func TestHostFunctions(t *testing.T) {
	f := newFixture(t)
	testfs.WriteFile(t, filepath.Join(f.work, "notes.txt"), "alpha\nbeta\ngamma beta\n")
	testfs.WriteFile(t, filepath.Join(f.work, "src", "a.ts"), "export const x = 1 // TODO\n")
	testfs.WriteFile(t, filepath.Join(f.work, "src", "deep", "b.js"), "function b() {}\n")
	testfs.WriteFile(t, filepath.Join(f.work, "src", "c.md"), "# c\n")
	testfs.WriteFile(t, filepath.Join(f.skill, "specs", "rules.json"), `{"max": 3}`)
	testfs.WriteFile(t, filepath.Join(f.project, "package.json"), `{"name": "demo"}`)
	testfs.WriteFile(t, filepath.Join(f.skill, "scripts", "count.sh"), "echo \"args: $*\" >&2\necho '{\"count\": 2, \"run\": \"'$SKILL_RUN_ID'\"}'\n")
	testfs.WriteFile(t, filepath.Join(f.skill, "scripts", "fail.sh"), "echo broken >&2\nexit 4\n")

	tests := []struct {
		name string
		src  string
		want any
	}{
		{name: "Read", src: `return Read('notes.txt').split('\n')[1]`, want: "beta"},
		{name: "Read object form", src: `return Read({file_path: workDir + '/notes.txt'}).length`, want: 22.0},
		{name: "Read falls back to the skill", src: `return JSON.parse(Read('specs/rules.json')).max`, want: 3.0},
		{name: "Read falls back to the project", src: `return JSON.parse(Read('package.json')).name`, want: "demo"},
		{name: "Read missing throws", src: `try { Read('nope.txt'); return 'read' } catch (e) { return e.message.includes('nope.txt') }`, want: true},
		{name: "Write creates dirs", src: `Write('out/deep/r.txt', 'hi'); return Read('out/deep/r.txt')`, want: "hi"},
		{name: "Write object as JSON", src: `Write('o.json', {a: 1}); return JSON.parse(Read('o.json')).a`, want: 1.0},
		{name: "Edit", src: `Write('e.txt', 'one two'); Edit('e.txt', 'two', '2'); return Read('e.txt')`, want: "one 2"},
		{name: "Edit not unique", src: `try { Edit('notes.txt', 'beta', 'x') } catch (e) { return e.message }`, want: `Edit: notes.txt contains "beta" 2 times; pass replaceAll or more context`},
		{name: "Edit replace all", src: `Write('r.txt', 'a b a'); Edit({file_path: 'r.txt', old_string: 'a', new_string: 'A', replace_all: true}); return Read('r.txt')`, want: "A b A"},
		{name: "Bash", src: `return Bash('echo "$SKILL_INPUT_TARGET $SKILL_RUN_ID" && pwd').trim().split('\n')`, want: []any{"src r1", f.work}},
		{name: "Bash failure throws stderr", src: `try { Bash('echo oops >&2; exit 2') } catch (e) { return e.message }`, want: `Bash: "echo oops >&2; exit 2" exited with status 2: oops`},
		{name: "Glob globstar and braces", src: `return Glob('src//**/*.{ts,js}')`, want: []any{"src/a.ts", "src/deep/b.js"}},
		{name: "Glob absolute", src: "return Glob(`${workDir}/src/*.md`)", want: []any{filepath.ToSlash(filepath.Join(f.work, "src", "c.md"))}},
		{name: "Glob cwd", src: `return Glob('**/*.json', {cwd: skillDir})`, want: []any{"specs/rules.json"}},
		{name: "Grep content", src: `return Grep('beta', 'notes.txt').map(m => m.line)`, want: []any{2.0, 3.0}},
		{name: "Grep files", src: `return Grep({pattern: 'todo', path: 'src', output_mode: 'files_with_matches', '-i': true})`, want: []any{"src/a.ts"}},
		{name: "Grep glob count", src: `return Grep('\\w', 'src', {glob: '*.js', output_mode: 'count'})`, want: []any{map[string]any{"file": "src/deep/b.js", "count": 1.0}}},
		{name: "ExecuteScript", src: `const r = ExecuteScript('count', {input_path: 'x'}); return [r.success, r.outputs.count, r.outputs.run, r.stderr.trim()]`, want: []any{true, 2.0, "r1", "args: --input-path x"}},
		{name: "ExecuteScript failure", src: `const r = ExecuteScript('fail'); return [r.success, r.exitCode, r.stderr.trim()]`, want: []any{false, 4.0, "broken"}},
		{name: "ExecuteScript missing", src: `try { ExecuteScript('nope') } catch (e) { return e.message }`, want: "ExecuteScript: no scripts/nope.sh or scripts/nope.py in the skill"},
		{name: "ExecuteScript id escape", src: `try { ExecuteScript('../x') } catch (e) { return e.message.includes('not a script id') }`, want: true},
		{name: "globals", src: `return [typeof state, inputs.target, workDir, skillDir]`, want: []any{"object", "src", f.work, f.skill}},
		{name: "await works at top level", src: `const v = await Promise.resolve(4); return v * 2`, want: 8.0},
		{name: "execute is called", src: `async function execute(s, w) { return [s.status, w] }`, want: []any{"running", f.work}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := f.host(t, nil)
			ev, err := h.start(context.Background(), map[string]any{"status": "running"})
			if err != nil {
				t.Fatal(err)
			}
			defer ev.stop()
			got, err := ev.run(block("phases/01-x.md", tt.src))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %#v, want %#v", got, tt.want)
			}
		})
	}
}

func TestPathConfinement(t *testing.T) {
	f := newFixture(t)
	allowed := filepath.Join(f.root, "allowed")
	testfs.WriteFile(t, filepath.Join(allowed, "ok.txt"), "ok")
	mustSymlink(t, f.outside, filepath.Join(f.work, "link-out"))
	mustSymlink(t, filepath.Join(f.outside, "secret.txt"), filepath.Join(f.work, "secret-link.txt"))
	mustSymlink(t, filepath.Join(f.outside, "new.txt"), filepath.Join(f.work, "dangling.txt"))
	mustSymlink(t, filepath.Join(f.project), filepath.Join(f.work, "link-in"))
	testfs.WriteFile(t, filepath.Join(f.project, "in.txt"), "in")

	refused := []struct{ name, src string }{
		{"relative escape", `Read('../../../outside/secret.txt')`},
		{"absolute outside", `Read(` + jsString(filepath.Join(f.outside, "secret.txt")) + `)`},
		{"symlinked dir out", `Read('link-out/secret.txt')`},
		{"symlinked file out", `Read('secret-link.txt')`},
		{"write through a dir link", `Write('link-out/new.txt', 'x')`},
		{"write through a dangling link", `Write('dangling.txt', 'x')`},
		{"edit outside", `Edit(` + jsString(filepath.Join(f.outside, "secret.txt")) + `, 'secret', 'x')`},
		{"glob outside", `Glob(` + jsString(f.outside+"/*.txt") + `)`},
		{"glob escape", `Glob('../../../outside/*')`},
		{"glob cwd outside", `Glob('*', {cwd: ` + jsString(f.outside) + `})`},
		{"grep outside", `Grep('s', ` + jsString(f.outside) + `)`},
	}
	h := f.host(t, nil)
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			_, err := f.step(t, h, tt.src)
			if !errors.Is(err, ErrOutsideRoots) {
				t.Fatalf("err = %v, want ErrOutsideRoots", err)
			}
			if !strings.HasPrefix(err.Error(), "phases/01-x.md:10:") {
				t.Errorf("err = %q, want it positioned at the markdown line", err)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(f.outside, "new.txt")); err == nil {
		t.Error("a write through a symlink created a file outside the roots")
	}

	allowedSrc := []string{
		`Read('../../in.txt')`,   // escapes the work dir into the project: a root
		`Read('link-in/in.txt')`, // a symlink that stays inside
		`Read(` + jsString(filepath.Join(allowed, "ok.txt")) + `)`,
	}
	ha := f.host(t, func(o *Options) { o.AllowPaths = []string{allowed} })
	for _, src := range allowedSrc {
		if _, err := f.step(t, ha, src); err != nil {
			t.Errorf("%s: %v", src, err)
		}
	}
	if _, err := f.step(t, h, allowedSrc[2]); !errors.Is(err, ErrOutsideRoots) {
		t.Errorf("without AllowPaths, err = %v, want ErrOutsideRoots", err)
	}
}

func mustSymlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
}

func jsString(s string) string { return "'" + strings.ReplaceAll(filepath.ToSlash(s), "'", `\'`) + "'" }

func TestConsole(t *testing.T) {
	f := newFixture(t)
	var log bytes.Buffer
	h := f.host(t, func(o *Options) { o.Log = &log })
	if _, err := f.step(t, h, `console.log('n =', 2, {a: [1]}); console.warn('careful'); console.error(new Error('bad'))`); err != nil {
		t.Fatal(err)
	}
	want := "n = 2 {\"a\":[1]}\nwarning: careful\nerror: Error: bad\n"
	if log.String() != want {
		t.Errorf("log = %q, want %q", log.String(), want)
	}
}

func TestRunStep(t *testing.T) {
	f := newFixture(t)
	h := f.host(t, nil)
	in := map[string]any{"status": "running", "n": 1.0}
	got, err := h.RunStep(context.Background(), block("phases/01-x.md", `state.n += 1; state.list = [1]; return {stateUpdates: {'ctx.done': true}}`), in, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"status": "running", "n": 2.0, "list": []any{1.0}, "ctx": map[string]any{"done": true}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("state = %v, want %v", got, want)
	}
	if in["n"] != 1.0 {
		t.Error("RunStep changed its input")
	}
	got, err = h.RunStep(context.Background(), block("phases/01-x.md", `state = {fresh: true}; return 42`), in, nil)
	if err != nil || !reflect.DeepEqual(got, map[string]any{"fresh": true}) {
		t.Errorf("reassigned state: got %v, %v", got, err)
	}
}

func TestErrorsNameTheMarkdownLine(t *testing.T) {
	f := newFixture(t)
	h := f.host(t, func(o *Options) { o.Timeout = 200 * time.Millisecond })
	tests := []struct {
		name, src, want string
	}{
		{"exception", "const a = 1;\nnull.x;", "phases/01-x.md:11:"},
		{"async rejection", "await Promise.resolve();\nthrow new Error('late');", "phases/01-x.md:11:7: Error: late"},
		{"syntax", "let x = ;", "phases/01-x.md:10:9: SyntaxError"},
		{"in execute", "function execute(s) {\n  return s.missing.deeper;\n}", "phases/01-x.md:11:"},
		// A loop is stopped at its own line: its tick (tick.go) is where
		// the interrupt lands.
		{"timeout", "\nwhile (true) {}", "phases/01-x.md:11:1: evaluation timed out after 200ms"},
		{"timeout in a function", "\nfunction spin() {\n  for (;;) {}\n}\nspin()", "phases/01-x.md:12:3: evaluation timed out"},
		{"never settles", "await new Promise(() => {});", "never settles"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := f.step(t, h, tt.src)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to hold %q", err, tt.want)
			}
			var serr *Error
			if !errors.As(err, &serr) {
				t.Errorf("err is %T, want *Error", err)
			}
		})
	}
	_, err := f.step(t, h, "while (true) {}")
	if !errors.Is(err, ErrTimeout) {
		t.Errorf("err = %v, want ErrTimeout", err)
	}
}

func TestStackNamesFrames(t *testing.T) {
	f := newFixture(t)
	h := f.host(t, nil)
	_, err := f.step(t, h, "function inner() { null.x }\nfunction outer() { inner() }\nouter()")
	var serr *Error
	if !errors.As(err, &serr) {
		t.Fatalf("err = %v", err)
	}
	for _, want := range []string{"inner (phases/01-x.md:10:", "outer (phases/01-x.md:11:"} {
		if !strings.Contains(serr.Stack, want) {
			t.Errorf("stack %q lacks %q", serr.Stack, want)
		}
	}
}

func TestRunActionKinds(t *testing.T) {
	f := newFixture(t)
	h := f.host(t, nil)
	su := block("phases/actions/action-x.md", "return {stateUpdates: {from: 'state updates', n: state.n}}")
	su.Body.Line = 30
	tests := []struct {
		name string
		exec plan.Execution
		want map[string]any
		err  string
	}{
		{name: "execute async", exec: plan.Execution{Kind: plan.ExecJS, Code: block("a.md", "async function execute(state) { return {stateUpdates: {n: state.n + 1}} }")}, want: map[string]any{"n": 2.0}},
		{name: "plain object", exec: plan.Execution{Kind: plan.ExecJS, Code: block("a.md", "function execute() { return {'ctx.k': 'v'} }")}, want: map[string]any{"ctx.k": "v"}},
		{name: "top-level return", exec: plan.Execution{Kind: plan.ExecJS, Code: block("a.md", "return {stateUpdates: {done: true}}")}, want: map[string]any{"done": true}},
		{name: "nothing falls back", exec: plan.Execution{Kind: plan.ExecJS, Code: block("a.md", "const x = 1")}, want: map[string]any{"from": "state updates", "n": 1.0}},
		{name: "bash json", exec: plan.Execution{Kind: plan.ExecBash, Code: &plan.CodeBlock{Text: "echo working\necho '{\"stateUpdates\": {\"dir\": \"'$SKILL_INPUT_TARGET'\"}}'", Body: plan.Pos{File: "a.md", Line: 5}}}, want: map[string]any{"dir": "src"}},
		{name: "bash nothing falls back", exec: plan.Execution{Kind: plan.ExecBash, Code: &plan.CodeBlock{Text: "true", Body: plan.Pos{File: "a.md", Line: 5}}}, want: map[string]any{"from": "state updates", "n": 1.0}},
		{name: "bash failure", exec: plan.Execution{Kind: plan.ExecBash, Code: &plan.CodeBlock{Text: "echo no >&2; exit 3", Body: plan.Pos{File: "a.md", Line: 5}}}, err: "a.md:5: the bash block exited with status 3: no"},
		{name: "not an object", exec: plan.Execution{Kind: plan.ExecJS, Code: block("a.md", "return 5")}, err: "a.md:10:1: action action-x returned 5"},
		{name: "prose is not the host's", exec: plan.Execution{Kind: plan.ExecProse, Text: "Do it.", Pos: plan.Pos{File: "a.md", Line: 3}}, err: `a.md:3: action action-x: unknown execution kind "prose"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &plan.Action{ID: "action-x", Execution: tt.exec, StateUpdates: su}
			got, err := h.RunAction(context.Background(), a, map[string]any{"n": 1.0})
			if !checkErr(t, err, tt.err) {
				return
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("updates = %v, want %v", got, tt.want)
			}
		})
	}
}

// fakeAgent writes a shell script that records its prompt and environment
// in the work dir and prints reply.
func fakeAgent(t *testing.T, f fixture, reply string) *agent.Agent {
	t.Helper()
	path := filepath.Join(f.root, "agent.sh")
	testfs.WriteFile(t, path, "#!/bin/sh\ncat > prompt.txt\nenv | grep -E '^(SKILL|SKILLKIT)_' | grep -v '^SKILLKIT_TEST_' | sort > env.txt\ncat <<'EOF'\n"+reply+"\nEOF\n")
	if err := os.Chmod(path, 0o755); err != nil {
		t.Fatal(err)
	}
	return &agent.Agent{Command: path, Timeout: 10 * time.Second}
}

func TestAgentWork(t *testing.T) {
	f := newFixture(t)
	ag := fakeAgent(t, f, "Done.\n```json\n{\"stateUpdates\": {\"summary\": \"ok\"}}\n```")
	h := f.host(t, func(o *Options) { o.Agent = ag; o.Skill = "demo" })

	st, err := f.step(t, h, `state.reply = await Task({description: 'Explore', subagent_type: 'Explore', prompt: 'List the files.'}); return {}`)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(st["reply"].(string), "Done.") {
		t.Errorf("Task returned %q", st["reply"])
	}
	prompt, _ := os.ReadFile(filepath.Join(f.work, "prompt.txt"))
	if !strings.Contains(string(prompt), "[QUESTION]\nExplore\n\n(subagent type: Explore)\n\nList the files.\n") {
		t.Errorf("task prompt:\n%s", prompt)
	}

	// Without an agent, Task fails naming --agent.
	_, err = f.step(t, f.host(t, nil), `Agent({prompt: 'x'})`)
	if !errors.Is(err, agent.ErrNoAgent) || !strings.Contains(err.Error(), "--agent") {
		t.Errorf("err = %v, want ErrNoAgent", err)
	}
	env, _ := os.ReadFile(filepath.Join(f.work, "env.txt"))
	wantEnv := "SKILLKIT_CALL=1\nSKILLKIT_REQUEST=task\nSKILLKIT_SESSION_ID=\nSKILL_DIR=" + f.skill + "\nSKILL_INPUT_TARGET=src\nSKILL_RUN_ID=r1\nSKILL_WORKDIR=" + f.work + "\n"
	if string(env) != wantEnv {
		t.Errorf("env:\n%s\nwant:\n%s", env, wantEnv)
	}
}

func TestEnv(t *testing.T) {
	got := Env(Options{WorkDir: "/w", SkillDir: "/s", RunID: "r", Inputs: map[string]string{"b-key": "2", "a.x": "1"}})
	want := []string{"SKILL_WORKDIR=/w", "SKILL_DIR=/s", "SKILL_RUN_ID=r", "SKILL_INPUT_A_X=1", "SKILL_INPUT_B_KEY=2"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Env = %v, want %v", got, want)
	}
}

func TestNewHostNeedsWorkDir(t *testing.T) {
	if _, err := NewHost(Options{}); err == nil {
		t.Fatal("want an error without a work dir")
	}
}

// An allocation loop is stopped at the heap budget (goja has none of its
// own), failing the step with a message that names --js-memory, long
// before the process runs out of memory.
func TestRunStepHeapBudget(t *testing.T) {
	f := newFixture(t)
	h := f.host(t, func(o *Options) { o.JSMemory = 64 << 20 })
	start := time.Now()
	_, err := f.step(t, h, `const keep = []; for (let i = 0; ; i++) keep.push("x".repeat(1000) + i)`)
	if !errors.Is(err, ErrMemory) || !strings.Contains(err.Error(), "--js-memory") {
		t.Fatalf("err = %v, want ErrMemory naming --js-memory", err)
	}
	t.Logf("stopped after %v: %v", time.Since(start).Round(time.Millisecond), err)
	// What the stopped evaluation left is garbage, not the next one's.
	if _, err := f.step(t, h, `state.small = "x".repeat(1000)`); err != nil {
		t.Fatalf("the evaluation after a stopped one: %v", err)
	}
	// The runtime is dropped with the evaluation: the heap comes back.
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	if m.HeapAlloc > 64<<20 {
		t.Errorf("heap after the stopped evaluation: %d MiB", m.HeapAlloc>>20)
	}
}

// TestPlainAndAsyncBlocksAlike: a block that awaits nothing runs as a
// plain function (unAsync), one that awaits as an async one; the same
// code either way ends alike: the same state, or the same error at the
// same line.
func TestPlainAndAsyncBlocksAlike(t *testing.T) {
	f := newFixture(t)
	h := f.host(t, nil)
	for _, src := range []string{
		"return {stateUpdates: {n: 1}}",
		"throw new Error('boom');",
		"\nthrow 'a string';",
		"function execute(s) { return {stateUpdates: {n: s.status.length}} }",
		"async function execute(s) { return {stateUpdates: {n: 2}} }",
		"async function execute(s) { throw new TypeError('inside') }",
		"return Promise.resolve({stateUpdates: {n: 3}})",
		"return Promise.reject(new RangeError('no'))",
		"const later = async () => { await 0; return 4 }; return later().then(n => ({stateUpdates: {n}}))",
		"\nnull.x;",
	} {
		plain, perr := f.step(t, h, src)
		async, aerr := f.step(t, h, src+"\nawait 0;")
		if fmt.Sprint(perr) != fmt.Sprint(aerr) || !reflect.DeepEqual(plain, async) {
			t.Errorf("%q:\nplain: %v, %v\nasync: %v, %v", src, plain, perr, async, aerr)
		}
	}
}

// TestHostCallTimeoutNamesErrTimeout: a host call killed by the
// evaluation's time limit fails with the limit, not with the context's
// bare Canceled. The engine takes Canceled for the user stopping the run
// (engine.interrupted), so a step that timed out in Bash would stop the
// run for a resume instead of failing, and its message would not say it
// timed out.
func TestHostCallTimeoutNamesErrTimeout(t *testing.T) {
	f := newFixture(t)
	h := f.host(t, func(o *Options) { o.Timeout = 300 * time.Millisecond })
	_, err := f.step(t, h, `Bash("sleep 5")`)
	if !errors.Is(err, ErrTimeout) || errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "Bash: evaluation timed out after 300ms") {
		t.Errorf("err = %v, want Bash's call to fail with ErrTimeout, not context.Canceled", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err = h.RunStep(ctx, block("phases/01-x.md", `Bash("sleep 5")`), map[string]any{}, nil)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("stopped by its caller: err = %v, want context.Canceled", err)
	}
}

// An evaluation's time limit ends its context as any deadline does:
// DeadlineExceeded, with ErrTimeout as the cause; ended early, it is
// Canceled with the cause given. What reads the context (a command, the
// engine, which takes Canceled for the run stopped) tells them apart.
func TestBoundedEndsAsADeadline(t *testing.T) {
	ctx, end := bounded(context.Background(), 10*time.Millisecond)
	defer end(nil)
	<-ctx.Done()
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) || !errors.Is(context.Cause(ctx), ErrTimeout) {
		t.Errorf("timed out: Err %v, cause %v; want DeadlineExceeded, ErrTimeout", ctx.Err(), context.Cause(ctx))
	}
	ctx, end = bounded(context.Background(), time.Hour)
	end(ErrMemory)
	if !errors.Is(ctx.Err(), context.Canceled) || !errors.Is(context.Cause(ctx), ErrMemory) {
		t.Errorf("ended: Err %v, cause %v; want Canceled, ErrMemory", ctx.Err(), context.Cause(ctx))
	}
}
