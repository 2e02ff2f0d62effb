package script

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/dop251/goja"

	"github.com/skillkit/skillkit/internal/agent"
	"github.com/skillkit/skillkit/internal/mcp"
	"github.com/skillkit/skillkit/internal/proc"
	"github.com/skillkit/skillkit/plan"
)

// Options configure a Host: the directories of a run, its inputs and who
// answers what skill code asks.
type Options struct {
	// WorkDir is the run's work dir: relative paths resolve against it and
	// commands run in it. Required.
	WorkDir string
	// SkillDir is the skill folder; ProjectDir the project the skill works
	// on (usually the current directory).
	SkillDir   string
	ProjectDir string
	// AllowPaths are more directories skill code may touch.
	AllowPaths []string
	Inputs     map[string]string
	// Args are the skill's arguments: JS sees them as args (an array)
	// and ARGUMENTS (joined by spaces), as Claude Code's $ARGUMENTS.
	Args  []string
	RunID string
	// Skill is the skill's name, for agent prompts.
	Skill string
	// Agent does agent work; nil means there is none and agent work fails
	// with a message naming --agent.
	Agent *agent.Agent
	// AgentContext is what the run's prompts say about it (the engine's,
	// with the skill's expanded instructions); nil gives the host's
	// folders only.
	AgentContext func(context.Context) (agent.Context, error)
	// Answers answers AskUserQuestion; nil is NoAnswers.
	Answers Answerer
	// Log receives console output; nil discards it.
	Log io.Writer
	// Timeout bounds one evaluation; zero means DefaultEffectTimeout.
	Timeout time.Duration
	// Parallel is how many Task and Agent calls run at once; zero means
	// DefaultParallel.
	Parallel int
	// OutputTail is how many bytes of a command's stdout and of its
	// stderr are kept in memory; zero means proc.DefaultTail.
	OutputTail int
	// JSMemory is the heap a JS evaluation may grow the process to, in
	// bytes; zero means DefaultJSMemory.
	JSMemory int64
	// MCP calls the MCP tools of mcp__server__tool(args) and MCP.call:
	// the run's pool of servers, or a cassette's replay. Nil means no
	// server is configured, and such calls fail saying so.
	MCP mcp.Caller
	// Barrier is called before every host call with an effect outside
	// the run's record (Bash, Write, Edit, ExecuteScript, Task, Agent,
	// AskUserQuestion, MCP calls, a bash action, Shell), and its error
	// fails that call: the run's Settle, so that nothing happens outside
	// the record while a commit is not yet durable. Reads need not wait.
	// Nil waits for nothing.
	Barrier func() error
}

// DefaultParallel is how many Task and Agent calls run at once when
// Options.Parallel is zero.
const DefaultParallel = 4

// Host runs effectful skill code (steps, action Execution, State Updates)
// with the host API of DESIGN §3.3. A Host is safe for sequential use;
// every call gets a fresh JS runtime, but for a loop iteration's Turn,
// whose selection and action share one.
type Host struct {
	opts  Options
	roots *roots
	env   []string
	agent *agent.Agent
	log   io.Writer
	// slots holds a token per Task call whose command runs: at most
	// Options.Parallel.
	slots chan struct{}
	// shell is the program that runs shell blocks (bash, else sh), and
	// shellPath where it is, "" when neither is on PATH: looked up once,
	// where each block's two lookups stat'ed every PATH entry twice.
	shell, shellPath string
	// spare is where the runtime of the next Turn is made, nil before
	// the first Turn (turnRuntime).
	spare chan *prepared
	// inputs, args and arguments are the Go values of the globals inputs,
	// args and ARGUMENTS, made once: every evaluation converts them
	// (enter), and a loop makes one or two an iteration.
	inputs    map[string]any
	args      []any
	arguments string
}

// NewHost checks opts and prepares a Host.
func NewHost(opts Options) (*Host, error) {
	if opts.WorkDir == "" {
		return nil, errors.New("creating the script host: no work dir")
	}
	for _, d := range []*string{&opts.WorkDir, &opts.SkillDir, &opts.ProjectDir} {
		if *d == "" {
			continue
		}
		abs, err := filepath.Abs(*d)
		if err != nil {
			return nil, fmt.Errorf("creating the script host: %w", err)
		}
		*d = abs
	}
	r, err := newRoots(opts.WorkDir, append([]string{opts.WorkDir, opts.SkillDir, opts.ProjectDir}, opts.AllowPaths...)...)
	if err != nil {
		return nil, fmt.Errorf("creating the script host: %w", err)
	}
	if opts.SkillDir != "" {
		r.skillDirs = []string{opts.SkillDir}
		if real, err := realPath(opts.SkillDir); err == nil && real != opts.SkillDir {
			r.skillDirs = append(r.skillDirs, real)
		}
	}
	if opts.Answers == nil {
		opts.Answers = NoAnswers{}
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultEffectTimeout
	}
	if opts.Parallel <= 0 {
		opts.Parallel = DefaultParallel
	}
	h := &Host{opts: opts, roots: r, env: Env(opts), log: opts.Log, slots: make(chan struct{}, opts.Parallel),
		inputs: inputsValue(opts.Inputs), args: anySlice(opts.Args), arguments: strings.Join(opts.Args, " ")}
	h.shell = "bash"
	if _, err := exec.LookPath(h.shell); err != nil {
		h.shell = "sh"
	}
	h.shellPath, _ = exec.LookPath(h.shell)
	if h.log == nil {
		h.log = io.Discard
	}
	if opts.Agent != nil {
		a := *opts.Agent
		if a.Dir == "" {
			a.Dir = opts.WorkDir
		}
		a.Env = append(append([]string{}, h.env...), a.Env...)
		h.agent = &a
	}
	return h, nil
}

// Env is the environment that shell steps, ExecuteScript and the agent get
// on top of the process's own: SKILL_WORKDIR, SKILL_DIR, SKILL_RUN_ID and
// one SKILL_INPUT_<KEY> per input (key upper-cased, characters other than
// letters, digits and _ replaced by _), sorted by key.
func Env(opts Options) []string {
	env := []string{
		"SKILL_WORKDIR=" + opts.WorkDir,
		"SKILL_DIR=" + opts.SkillDir,
		"SKILL_RUN_ID=" + opts.RunID,
	}
	keys := make([]string, 0, len(opts.Inputs))
	for k := range opts.Inputs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		env = append(env, "SKILL_INPUT_"+envKey(k)+"="+opts.Inputs[k])
	}
	return env
}

func envKey(k string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z':
			return r - 'a' + 'A'
		case r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_':
			return r
		}
		return '_'
	}, k)
}

// Shell runs a shell script (bash, else sh) in the work dir with the
// environment of Env: what bash steps, bash actions and Bash() share. A
// non-zero exit is in the result, not an error. out, when set, gets all of
// the output (a log); the result keeps the last Options.OutputTail bytes.
func (h *Host) Shell(ctx context.Context, script string, out io.Writer) (proc.Result, error) {
	return h.shellIn(ctx, h.opts.WorkDir, script, out)
}

// ContextShell runs a context command (Claude Code's !`cmd`) with the
// run's environment in the project folder, where Claude Code runs it: it
// reads the project ("git diff", "node tools/x.js"), not the run's files.
// Without a project folder it runs in the work dir.
func (h *Host) ContextShell(ctx context.Context, script string) (proc.Result, error) {
	dir := h.opts.ProjectDir
	if dir == "" {
		dir = h.opts.WorkDir
	}
	return h.shellIn(ctx, dir, script, nil)
}

func (h *Host) shellIn(ctx context.Context, dir, script string, out io.Writer) (proc.Result, error) {
	if err := h.barrier(); err != nil {
		return proc.Result{}, err
	}
	return proc.Run(ctx, proc.Cmd{
		Name: h.shell, Path: h.shellPath, Args: []string{"-c", script},
		Dir: dir, Env: append(os.Environ(), h.env...),
		Output: out, Tail: h.opts.OutputTail,
	})
}

// barrier waits as Options.Barrier says.
func (h *Host) barrier() error {
	if h.opts.Barrier == nil {
		return nil
	}
	return h.opts.Barrier()
}

// settle is the barrier before host call fn, whose error it throws.
func (ev *evaluation) settle(fn string) {
	if err := ev.h.barrier(); err != nil {
		ev.throw(fn, err)
	}
}

// evaluation is one run of effectful code: a runtime with the host API,
// its context and deadline, and the Task calls under way.
type evaluation struct {
	h   *Host
	ctx context.Context
	vm  *goja.Runtime
	// globals makes the host API when code first reads it (install).
	globals *globals
	stop    func()
	// calls counts the Task calls under way. Their commands run on
	// goroutines, and each sends its ending on ended, which wait runs on
	// the evaluation's goroutine: the runtime is not safe for concurrent
	// use. ended is made with the first call: most evaluations make none.
	calls int
	ended chan func() error
	// broken is the uncatchable error (an interrupt) that settling a
	// call's promise met; later endings no longer touch the runtime.
	broken error
}

func (h *Host) start(ctx context.Context, state map[string]any) (*evaluation, error) {
	p := prepare(h.opts.JSMemory)
	ctx, stop := deadline(ctx, p, h.opts.Timeout)
	ev := h.evaluation(ctx, p, stop)
	st, err := toJS(p.vm, state)
	if err != nil {
		ev.stop()
		return nil, err
	}
	if err := ev.enter(st); err != nil {
		ev.stop()
		return nil, err
	}
	return ev, nil
}

func (h *Host) evaluation(ctx context.Context, p *prepared, stop func()) *evaluation {
	return &evaluation{h: h, ctx: ctx, vm: p.vm, globals: p.gl, stop: stop}
}

// enter gives the runtime what effectful code sees: the state st, the
// run's inputs, arguments and folders, and the host API.
func (ev *evaluation) enter(st goja.Value) error {
	h, vm := ev.h, ev.vm
	inputs, err := toJS(vm, h.inputs)
	if err != nil {
		return err
	}
	// In this order on the global object, every time.
	globals := [...]struct {
		name string
		v    any
	}{
		{"state", st}, {"inputs", inputs}, {"args", vm.NewArray(h.args...)}, {"ARGUMENTS", h.arguments},
		{"workDir", h.opts.WorkDir}, {"skillDir", h.opts.SkillDir}, {"projectDir", h.opts.ProjectDir},
	}
	for _, g := range globals {
		_ = vm.Set(g.name, g.v)
	}
	ev.install()
	return nil
}

func anySlice(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// run runs a block as the body of an async function and returns its
// settled result as a Go value.
func (ev *evaluation) run(b *plan.CodeBlock) (any, error) {
	return ev.runWith(b, "")
}

// runWith is run with head in the body's wrapper (a step's scope
// capture).
func (ev *evaluation) runWith(b *plan.CodeBlock, head string) (any, error) {
	prog, err := compileWith(kindBody, b.Body, b.Text, head)
	if err != nil {
		return nil, err
	}
	ev.defineMCP(b.Text)
	fnv, err := ev.vm.RunProgram(prog)
	if err != nil {
		return nil, jsError(ev.vm, err, b.Body)
	}
	fn, _ := goja.AssertFunction(fnv)
	v, err := fn(goja.Undefined())
	// A block that awaits nothing runs as a plain function (unAsync): what
	// it throws, its async function would have rejected with, and is
	// reported as that rejection is, after the calls it started.
	var thrown *goja.Exception
	if errors.As(err, &thrown) {
		err = nil
	}
	// Calls the code left un-awaited end too before the block does: their
	// work belongs to it.
	if werr := ev.wait(); err == nil {
		err = werr
	}
	if err != nil {
		return nil, jsError(ev.vm, err, b.Body)
	}
	if thrown != nil {
		return nil, rejection(ev.vm, thrown.Value(), b.Body)
	}
	if v, err = await(ev.vm, v, b.Body); err != nil {
		return nil, err
	}
	out, err := fromJS(ev.globals.g, v)
	if err != nil {
		return nil, &Error{Pos: b.Body, Msg: "reading the result: " + err.Error(), Err: err}
	}
	return out, nil
}

// wait is the evaluation's event loop: it runs the endings of Task calls
// as they come, settling their promises (which runs the code awaiting
// them, and may start more calls), until no call is under way. It
// returns the uncatchable error that settling met, if any.
func (ev *evaluation) wait() error {
	for ev.calls > 0 {
		end := <-ev.ended
		ev.calls--
		if err := end(); err != nil && ev.broken == nil {
			ev.broken = err
		}
	}
	return ev.broken
}

// RunStep runs a JS step with the host API. It returns the new state: the
// `state` global after the code ran (skill code may change it in place or
// reassign it), with the stateUpdates of a returned {stateUpdates: {...}}
// applied on top. Other return values are ignored. The input is not
// changed.
//
// scope is what the phase's earlier native steps bound (nil: nothing is
// shared): the step sees it, and its own top-level bindings join it.
func (h *Host) RunStep(ctx context.Context, block *plan.CodeBlock, state map[string]any, scope *Scope) (map[string]any, error) {
	ev, err := h.start(ctx, state)
	if err != nil {
		return nil, err
	}
	defer ev.stop()
	scope.enter(ev.vm)
	binds := bindings(block)
	head := ""
	if scope != nil {
		head = captureHead(binds.Values)
	}
	result, err := ev.runWith(block, head)
	if err != nil {
		return nil, err
	}
	scope.keep(ev.globals.g, binds)
	st, err := ev.globals.g.global("state")
	if err != nil {
		return nil, &Error{Pos: block.Body, Msg: "reading the state after the step: " + err.Error(), Err: err}
	}
	after, err := fromJS(ev.globals.g, st)
	if err != nil {
		return nil, &Error{Pos: block.Body, Msg: "reading the state after the step: " + err.Error(), Err: err}
	}
	newState, _ := after.(map[string]any)
	if m, ok := result.(map[string]any); ok {
		if _, has := m["stateUpdates"]; has {
			updates, err := updatesOf(m, "the step")
			if err != nil {
				return nil, &Error{Pos: block.Body, Msg: err.Error()}
			}
			if newState, err = ApplyUpdates(newState, updates); err != nil {
				return nil, &Error{Pos: block.Body, Msg: err.Error(), Err: err}
			}
		}
	}
	if newState == nil {
		newState = map[string]any{}
	}
	return newState, nil
}

// RunAction runs an action and returns its state updates (keys may be
// dotted; apply them with ApplyUpdates):
//   - js: the Execution block runs; when it defines execute(state,
//     workDir), sync or async, that is called; a top-level return works
//     too. The result is {stateUpdates: {...}} or a plain object.
//   - bash: the block runs in the work dir; its stdout, or else its last
//     line, when it is a JSON object, is the result. A non-zero exit fails.
//
// When Execution returned nothing, the State Updates block is evaluated
// instead (with the state, in a runtime with the host API).
func (h *Host) RunAction(ctx context.Context, a *plan.Action, state map[string]any) (map[string]any, error) {
	return h.runAction(ctx, a, state, nil)
}

// runAction is RunAction, with the Execution of a JS action run in ev
// when it is set (a Turn's runtime), else in a runtime of its own.
func (h *Host) runAction(ctx context.Context, a *plan.Action, state map[string]any, ev *evaluation) (map[string]any, error) {
	what := "action " + a.ID
	var result any
	switch a.Execution.Kind {
	case plan.ExecJS:
		if a.Execution.Code == nil {
			return nil, fmt.Errorf("%s: %s has a JS execution without a code block", a.Execution.Pos, what)
		}
		if ev == nil {
			var err error
			if ev, err = h.start(ctx, state); err != nil {
				return nil, err
			}
			defer ev.stop()
		}
		var err error
		if result, err = ev.run(a.Execution.Code); err != nil {
			return nil, err
		}
	case plan.ExecBash:
		if a.Execution.Code == nil {
			return nil, fmt.Errorf("%s: %s has a bash execution without a code block", a.Execution.Pos, what)
		}
		var err error
		if result, err = h.runBashAction(ctx, a.Execution.Code); err != nil {
			return nil, err
		}
	default:
		// Prose actions are the agent's, and the loop hands them over.
		return nil, fmt.Errorf("%s: %s: unknown execution kind %q", a.Execution.Pos, what, a.Execution.Kind)
	}
	pos := a.Execution.Pos
	if a.Execution.Code != nil {
		pos = a.Execution.Code.Body
	}
	updates, err := updatesOf(result, what)
	if err != nil {
		return nil, &Error{Pos: pos, Msg: err.Error()}
	}
	if result != nil || a.StateUpdates == nil {
		return updates, nil
	}
	// In a runtime of its own: the Execution's may have changed its state.
	su, err := h.start(ctx, state)
	if err != nil {
		return nil, err
	}
	defer su.stop()
	if result, err = su.run(a.StateUpdates); err != nil {
		return nil, fmt.Errorf("%s returned nothing, and its State Updates block failed: %w", what, err)
	}
	if updates, err = updatesOf(result, what+"'s State Updates"); err != nil {
		return nil, &Error{Pos: a.StateUpdates.Body, Msg: err.Error()}
	}
	return updates, nil
}

func (h *Host) runBashAction(ctx context.Context, b *plan.CodeBlock) (any, error) {
	ctx, cancel := context.WithTimeout(ctx, h.opts.Timeout)
	defer cancel()
	res, err := h.Shell(ctx, b.Text, nil)
	if err != nil {
		return nil, &Error{Pos: b.Body, Msg: "running the bash block: " + err.Error(), Err: err}
	}
	if res.ExitCode != 0 {
		return nil, &Error{Pos: b.Body, Msg: fmt.Sprintf("the bash block exited with status %d: %s", res.ExitCode, strings.TrimSpace(res.Stderr))}
	}
	if obj := jsonObject(res.Stdout); obj != nil {
		return obj, nil
	}
	return nil, nil
}

// agentContext is what a Task prompt says about the run: the run's own
// (Options.AgentContext), else the host's folders.
func (h *Host) agentContext(ctx context.Context) (agent.Context, error) {
	if h.opts.AgentContext != nil {
		return h.opts.AgentContext(ctx)
	}
	return agent.Context{Skill: h.opts.Skill, SkillDir: h.opts.SkillDir, WorkDir: h.opts.WorkDir}, nil
}
