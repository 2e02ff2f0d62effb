package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"

	"github.com/skillkit/skillkit/internal/agent"
	"github.com/skillkit/skillkit/internal/cassette"
	"github.com/skillkit/skillkit/internal/gate"
	"github.com/skillkit/skillkit/internal/mcp"
	"github.com/skillkit/skillkit/internal/orchestrator"
	"github.com/skillkit/skillkit/internal/proc"
	skrun "github.com/skillkit/skillkit/internal/run"
	"github.com/skillkit/skillkit/internal/runstore"
	"github.com/skillkit/skillkit/internal/runstore/fsstore"
	"github.com/skillkit/skillkit/internal/script"
	"github.com/skillkit/skillkit/internal/skilltest"
	"github.com/skillkit/skillkit/plan"
)

type runOptions struct {
	workDir  string
	inputs   []string
	agentCmd string
	yes      bool
	answers  string
	dryRun   bool
	resume   string
	force    bool
	allow    []string
	maxIter  int
	retries  int
	noShell  bool
	strict   bool
	retry    bool
	parallel int
	maxCalls int
	maxCost  float64
	maxSame  int
	progress string
	tail     int
	jsMemory int64
	record   string
	// recordTest names the test --record-test writes.
	recordTest string

	// agentTimeout bounds one agent call; zero reads skillkit.yaml.
	agentTimeout time.Duration
	// partial runs a skill without an agent up to its first agent work
	// on purpose, instead of the gate refusing it.
	partial bool
}

func newRunCmd(s Streams) *cobra.Command {
	o := &runOptions{}
	c := &cobra.Command{
		Use:   "run SKILL [-- ARGS...]",
		Short: "Run a skill locally with durable state",
		Long: `run executes a skill: numbered phases in order, or the orchestrator loop,
in a run directory (.skillkit/runs/<skill>/<run-id>/ of the project, the
nearest folder up that holds .skillkit/ or .git, unless --workdir) that
is also the work dir its steps run in. state.json is written atomically after
every change, so a run killed at any moment can be resumed with --resume: a
completed step never runs again, the interrupted one runs again.

Shell steps run with bash; JavaScript steps run in an embedded engine with
Claude Code's tool vocabulary (Read, Write, Bash, Glob, Grep, Task, …). Work
that needs a model (prose steps, prose actions, Task/Agent calls) goes to the
--agent: claude or codex (one conversation per run), or any command, which
gets the prompt on stdin. Code that cannot run as written (it reads names
nothing defines, holds {placeholders}, does not parse) goes to the agent
too, as instructions; 'skillkit plan' shows which steps are native and which
are the agent's. ARGS after -- are the skill's arguments, as Claude Code's
$ARGUMENTS, $0, $1, …; context commands (!` + "`cmd`" + ` and ` + "```!" + ` blocks) of
SKILL.md and the phases run in the project folder, as Claude Code runs them,
before their text goes to the agent, unless --no-shell-context.

Only lint errors that make a skill unrunnable refuse a run (duplicate phase
numbers, a missing action file, an unreadable file, …); the others print as
warnings. --strict refuses on any lint error and on code that is not all
native. Without an agent, a run that is sure to reach agent work (a step
no condition can skip, or a loop whose Decision Logic is the agent's) is
refused before anything runs, each such step listed with its reason;
--partial runs up to the first of them on purpose and leaves the run
resumable, for --resume with --agent. The actions a loop may select that
are agent work are noted at the start.

Exit codes: 0 completed, 1 failed or aborted, 2 invalid skill or usage,
3 internal failure, 130 interrupted (resumable).`,
		Example: `  skillkit run examples/sequential --input dir="$PWD/docs"
  skillkit run my-skill --agent claude --answers answers.yaml -- src/main.go
  skillkit run my-skill --agent ./my-agent.sh
  skillkit run my-skill --dry-run
  skillkit run my-skill --partial
  skillkit run my-skill --resume 20261121-101500-ab12
  skillkit run my-skill --resume last --agent claude`,
		Args: func(c *cobra.Command, args []string) error {
			if dash := c.ArgsLenAtDash(); len(args) == 0 || dash > 1 || dash < 0 && len(args) > 1 {
				return fmt.Errorf("want one SKILL, then the skill's arguments after --; got %q", args)
			}
			return nil
		},
		RunE: runE(func(c *cobra.Command, args []string) error {
			return runSkill(c, s, o, args[0], args[1:])
		}),
	}
	f := c.Flags()
	f.StringVar(&o.workDir, "workdir", "", "run directory of a new run (default .skillkit/runs/<skill>/<run-id>)")
	f.StringArrayVar(&o.inputs, "input", nil, "an input as key=value, repeatable (SKILL_INPUT_KEY for shell, inputs.key for JS)")
	f.StringVar(&o.agentCmd, "agent", "", "what does agent work: claude, codex, or a command reading the prompt on stdin (default $SKILLKIT_AGENT)")
	f.DurationVar(&o.agentTimeout, "agent-timeout", 0, "how long one agent call may take before it fails, resumable (default agent_timeout of skillkit.yaml, else 10m)")
	f.BoolVar(&o.noShell, "no-shell-context", false, "send context commands (!`cmd`, ```! blocks) to the agent as written instead of running them")
	f.BoolVar(&o.yes, "yes", false, "answer yes to every confirmation, and each AskUserQuestion with its first option (--answers wins)")
	f.StringVar(&o.answers, "answers", "", "YAML or JSON file of answers: question header → option label")
	f.BoolVar(&o.dryRun, "dry-run", false, "show what would run and what would go to the agent; write nothing")
	f.StringVar(&o.resume, "resume", "", "resume the run with this id or directory; \"last\" is this skill's newest run")
	f.BoolVar(&o.force, "force", false, "with --resume: resume although the skill changed since the run started")
	f.BoolVar(&o.retry, "retry", false, "with --resume: run a failed or aborted run again from where it failed, after a fix; completed steps are kept")
	f.IntVar(&o.maxIter, "max-iterations", 0, "actions the orchestrator loop may start before it fails with no progress (default 100)")
	f.IntVar(&o.retries, "retries", 0, "extra attempts for a failed action of the loop")
	f.BoolVar(&o.partial, "partial", false, "without an agent: run up to the first step that needs one and stop there, resumable, instead of refusing the run")
	f.BoolVar(&o.strict, "strict", false, "refuse a skill with any lint error, or with code that goes to the agent")
	f.IntVar(&o.maxSame, "max-same-failures", 0, "times in a row one action of the loop may fail with the same error before the run fails (default 3)")
	f.IntVar(&o.parallel, "parallel", 0, "Task/Agent calls of JS code that run at once (default 4)")
	f.IntVar(&o.maxCalls, "max-agent-calls", 0, "agent calls the run may make, resumes included (a call counts as it begins, so one cut by a kill counts too); then it stops, resumable (default no limit)")
	f.Float64Var(&o.maxCost, "max-cost-usd", 0, "agent cost in US dollars, as the agent reports it, the run may spend; then it stops, resumable (default no limit)")
	f.StringVar(&o.progress, "progress", progressAuto, "how to show progress on stderr: auto (a live line on a terminal, else plain), plain (a line per event) or json (every event as a line of JSON on stdout; the log lines go to stderr)")
	f.IntVar(&o.tail, "output-tail", proc.DefaultTail, "bytes of each command's output and of the agent's reply kept in memory (the logs get all of it)")
	f.Int64Var(&o.jsMemory, "js-memory", script.DefaultJSMemory>>20, "MiB of heap JS code may grow the run to before it is stopped")
	f.StringVar(&o.record, "record", "", "write every agent exchange to this cassette file (JSON Lines, secrets scrubbed), for skillkit test to replay")
	f.StringVar(&o.recordTest, "record-test", "", "record the run as the test tests/NAME.yaml of the skill, with its cassette tests/NAME.cassette.jsonl and expectations taken from the run (see skillkit test)")
	f.StringArrayVar(&o.allow, "allow-path", nil, "a folder JS code may read and write besides the project, the skill and the work dir (repeatable)")
	return c
}

func runSkill(c *cobra.Command, s Streams, o *runOptions, dir string, args []string) error {
	skill, servers, err := readSkillMCP(dir)
	if err != nil {
		return err
	}
	if o.progress != progressAuto && o.progress != progressPlain && o.progress != progressJSON {
		return usageErr(fmt.Errorf("--progress %q: want auto, plain or json", o.progress))
	}
	inputs, err := parseInputs(o.inputs)
	if err != nil {
		return usageErr(err)
	}
	cwd, err := os.Getwd()
	if err != nil {
		return fmt.Errorf("finding the current folder: %w", err)
	}
	// Runs go to the project's .skillkit/, where runs and status find
	// them from any of its folders.
	root := projectRoot(cwd)
	if o.resume == "last" {
		if o.resume, err = lastRun(root, skill.Name); err != nil {
			return usageErr(err)
		}
	}
	opts := skrun.Options{
		Skill: skill, Store: runsOf(root), WorkDir: o.workDir, Resume: o.resume, Force: o.force, Retry: o.retry,
		Inputs: inputs, Args: args, NoShellContext: o.noShell, ProjectDir: projectDir(root), AllowPaths: o.allow, Yes: o.yes, Strict: o.strict,
		Loop:     orchestrator.Options{MaxIterations: o.maxIter, Retries: o.retries, MaxSameFailures: o.maxSame},
		Parallel: o.parallel, MaxAgentCalls: o.maxCalls, MaxCostUSD: o.maxCost,
		OutputTail: o.tail, JSMemory: o.jsMemory << 20,
		Out: c.OutOrStdout(), MCP: servers,
	}
	if cmd := firstNonEmpty(o.agentCmd, os.Getenv("SKILLKIT_AGENT")); cmd != "" {
		opts.Agent = &agent.Agent{Command: absCommand(cmd, cwd), Timeout: o.agentTimeout}
		if opts.Agent.Timeout == 0 {
			if opts.Agent.Timeout, err = agent.ConfigTimeout(skill.Dir); err != nil {
				return usageErr(err)
			}
		}
	}
	// A dry run shows the agent work itself; a real one without an agent
	// is refused before any work when it is sure to reach some.
	g := gate.Options{Base: cwd, Strict: o.strict, NoAgent: opts.Agent == nil && !o.dryRun, Partial: o.partial, Out: c.ErrOrStderr()}
	opts.Validate = g.Validator()
	switch {
	case o.answers != "":
		a, err := script.LoadAnswers(o.answers)
		if err != nil {
			return usageErr(err)
		}
		opts.Answers = a
	case o.yes:
		// --yes answers AskUserQuestion too: each question's first option.
		opts.Answers = script.Yes{}
	case isTerminal(s.In):
		opts.Answers = &script.Terminal{In: s.In, Out: c.ErrOrStderr()}
	}
	if o.dryRun {
		if o.resume == "" {
			// The same gate as the real run's: a dry run of a skill the
			// run would refuse says so, and fails as the run would.
			if err := opts.Validate(skill); err != nil {
				return usageErr(fmt.Errorf("a run would refuse this skill: %w", err))
			}
		}
		d, err := skrun.Plan(opts)
		if err != nil {
			return &exitError{code: runExit(err), err: err}
		}
		return d.Write(c.OutOrStdout(), opts.Agent != nil)
	}
	if skill.Mode == plan.ModeUnknown && o.resume == "" {
		// The runner refuses a skill it cannot place; say first what is
		// wrong with it (a phase file it could not read, say).
		if err := gate.Check(skill, g); err != nil {
			return usageErr(fmt.Errorf("%w: %w", skrun.ErrInvalid, err))
		}
	}
	stderr, live := c.ErrOrStderr().(*os.File)
	var liveLine *progress
	switch {
	case o.progress == progressJSON:
		// stdout is the events' alone, for a program to read.
		opts.Out, opts.Observe = c.ErrOrStderr(), jsonObserver(c.OutOrStdout())
	case o.progress == progressAuto && live && isTerminal(stderr):
		p := newProgress(stderr, skill)
		liveLine = p
		opts.Out = p.lines(c.OutOrStdout())
		opts.Observe = p.observe
		if opts.Answers != nil {
			opts.Answers = p.pausing(opts.Answers)
		}
		defer p.end()
	default:
		opts.Observe = skrun.PlainObserver(opts.Out)
	}
	// A closed terminal (SIGHUP) or a kill stops the run as Ctrl-C does:
	// its commands are killed and it stays resumable.
	ctx, stop := signal.NotifyContext(c.Context(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	if err := startAgent(ctx, opts.Agent, liveLine, opts.Out); err != nil {
		return err
	}
	var rec *cassette.Recorder
	if o.recordTest != "" {
		if o.record != "" || o.resume != "" {
			return usageErr(errors.New("--record-test records a new run into its own cassette: leave out --record and --resume"))
		}
		o.record = skilltest.CassettePath(skill.Dir, o.recordTest)
		if err := os.MkdirAll(filepath.Dir(o.record), 0o755); err != nil {
			return err
		}
	}
	if o.record != "" {
		if rec, err = startRecording(o.record, skill, opts.Agent, servers, o.resume != ""); err != nil {
			if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
				// The disk refused the cassette (full, read-only): exit 3,
				// and no test is left cut short.
				if o.recordTest != "" {
					skilltest.RemoveRecorded(skill.Dir, o.recordTest)
				}
				return err
			}
			return usageErr(err)
		}
		// The MCP calls go into the cassette beside the agent's.
		opts.MCPTape = rec
	}
	res, err := skrun.Run(ctx, opts)
	var recErr error
	if rec != nil {
		if recErr = rec.Close(); recErr != nil {
			err = errors.Join(err, recErr)
		} else {
			fmt.Fprintf(c.ErrOrStderr(), "recorded %d agent exchange(s) and %d MCP call(s) to %s\n", rec.Exchanges(), rec.MCPCalls(), o.record)
		}
	}
	if o.recordTest != "" && res != nil {
		werr := recErr
		if werr == nil {
			werr = writeRecordedTest(c, o, skill, args, inputs, res, err, rec)
		}
		if werr != nil {
			// A test file half written is a case that says nothing, and
			// a cassette that lost exchanges replays another run: a
			// failed recording leaves neither.
			skilltest.RemoveRecorded(skill.Dir, o.recordTest)
			return fmt.Errorf("%w; no test was written", werr)
		}
	}
	if err != nil {
		code := runExit(err)
		var resume, flags string
		if res != nil {
			resume, flags = fmt.Sprintf("skillkit run %s --resume %s", dir, resumeRef(res, root)), goingOn(c.Flags())
		}
		err = stopped(ctx, err, res, resume+flags)
		// A run whose folder was removed has no record left to retry.
		if res != nil && res.State.Retryable() && !errors.Is(err, runstore.ErrRunRemoved) {
			err = fmt.Errorf("%w\nafter a fix, run it again from there with: %s --retry%s", err, resume, flags)
		}
		return &exitError{code: code, err: err}
	}
	return nil
}

// startRecording makes the run's agent record its exchanges to file,
// scrubbed of the secrets of the environment and of the MCP servers'
// configuration, and of the skill's record.scrub patterns. A run without
// an agent records an empty cassette; a resumed one goes on recording
// after the exchanges the file holds.
func startRecording(file string, skill *plan.Skill, a *agent.Agent, servers *mcp.Config, resumed bool) (*cassette.Recorder, error) {
	patterns, err := cassette.ConfigScrub(skill.Dir)
	if err != nil {
		return nil, err
	}
	scrub, err := cassette.NewScrubber(append(os.Environ(), servers.Env()...), patterns)
	if err != nil {
		return nil, err
	}
	files, err := cassette.SkillFiles(skill.Dir)
	if err != nil {
		return nil, err
	}
	h := cassette.Header{Skill: skill.Name, Agent: cassette.NoAgent, SkillFiles: files}
	if a != nil {
		h.Agent = agent.Adapter(a.Command)
	}
	start := cassette.Create
	if resumed {
		start = cassette.Continue
	}
	rec, err := start(file, h, scrub)
	if err != nil {
		return nil, err
	}
	if a != nil {
		a.Tape = rec
	}
	return rec, nil
}

// writeRecordedTest writes the test of --record-test from the run.
func writeRecordedTest(c *cobra.Command, o *runOptions, skill *plan.Skill, args []string, inputs map[string]string, res *skrun.Result, runErr error, rec *cassette.Recorder) error {
	r := skilltest.Recording{Name: o.recordTest, Args: args, Inputs: inputs, Yes: o.yes, Result: res, Err: runErr, ExitCode: runExit(runErr)}
	if rec != nil {
		r.AgentCalls, r.Scrub = rec.Exchanges(), rec.Scrubber()
	}
	if o.answers != "" {
		data, err := os.ReadFile(o.answers)
		if err == nil {
			err = yaml.Unmarshal(data, &r.Answers)
		}
		if err != nil {
			return usageErr(fmt.Errorf("--record-test: reading the answers: %w", err))
		}
	}
	file, err := skilltest.WriteRecorded(skill, r)
	if err != nil {
		return fmt.Errorf("--record-test: %w", err)
	}
	fmt.Fprintf(c.ErrOrStderr(), "wrote the test %s; run it with: skillkit test %s\n", file, skill.Dir)
	return nil
}

// absCommand makes a command that starts with a relative path to a file
// (./agent.sh, examples/x/agent.sh) start with its absolute path: the
// agent runs in the run's work dir, where the relative one names nothing.
func absCommand(cmd, cwd string) string {
	first, rest, _ := strings.Cut(strings.TrimLeft(cmd, " "), " ")
	if !strings.Contains(first, "/") || filepath.IsAbs(first) {
		return cmd
	}
	abs := filepath.Join(cwd, first)
	if _, err := os.Stat(abs); err != nil {
		return cmd
	}
	if rest == "" {
		return shellQuote(abs)
	}
	return shellQuote(abs) + " " + rest
}

// shellQuote quotes s for sh.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// stopped words what a run returned for a person. A run that can be
// resumed gets one hint, with the command that resumes it; after Ctrl-C
// the cause ("context canceled") says nothing the user does not know.
func stopped(ctx context.Context, err error, res *skrun.Result, resume string) error {
	var re *skrun.RunError
	if res == nil || !errors.As(err, &re) || re.State != runstore.RunInterrupted {
		return err
	}
	var budget *agent.BudgetError
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("run %s stopped; its state is saved, continue it with: %s", res.ID, resume)
	case errors.As(err, &budget):
		return fmt.Errorf("run %s stopped: %w; continue it with: %s %s <more>", res.ID, re.Err, resume, budget.Flag)
	}
	return fmt.Errorf("run %s stopped: %w; continue it with: %s", res.ID, re.Err, resume)
}

// goingOnFlags are the flags of run that say how a run goes on, which a
// resume does not read from the run: a loop resumed without the
// --max-iterations it ran with fails with no progress past the default.
// The budgets are left out: each invocation has its own (the command
// says to give more), as are the inputs, which the run keeps. --force is
// repeated: a run resumed over a changed skill that stops again is
// resumed over the same skill.
var goingOnFlags = []string{"agent", "agent-timeout", "no-shell-context", "yes", "answers", "max-iterations", "retries", "partial", "strict", "max-same-failures", "parallel", "output-tail", "js-memory", "allow-path", "force"}

// goingOn is the goingOnFlags given to this command, as a resume command
// repeats them (with a leading space), each value a shell word.
func goingOn(fs *pflag.FlagSet) string {
	var b strings.Builder
	for _, name := range goingOnFlags {
		f := fs.Lookup(name)
		if f == nil || !f.Changed {
			continue
		}
		values := []string{f.Value.String()}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			values = sv.GetSlice()
		}
		for _, v := range values {
			switch {
			case f.Value.Type() == "bool" && v == "true":
				fmt.Fprintf(&b, " --%s", name)
			case f.Value.Type() == "bool":
				fmt.Fprintf(&b, " --%s=%s", name, v)
			default:
				fmt.Fprintf(&b, " --%s %s", name, shellWord(v))
			}
		}
	}
	return b.String()
}

// shellWord is s as one word of sh: itself when it holds nothing sh reads
// otherwise, else quoted.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./-:,@%+") == "" {
		return s
	}
	return shellQuote(s)
}

// resumeRef is what --resume takes to find the run of res: its id, for a
// run under the project's runs root, else (a run in a --workdir) its
// folder, which an id does not find.
func resumeRef(res *skrun.Result, root string) string {
	if rel, err := filepath.Rel(fsstore.RunsRoot(root), res.Dir); err == nil && filepath.IsLocal(rel) {
		return res.ID
	}
	return shellWord(res.Dir)
}

// lastRun is the folder of the newest run of the named skill.
func lastRun(base, skill string) (string, error) {
	store := runsOf(base)
	runs, err := store.List()
	if err != nil {
		return "", err
	}
	for _, r := range runs {
		if r.Skill == skill {
			return r.Dir, nil
		}
	}
	return "", fmt.Errorf("--resume last: no run of %s under %s", skill, fsstore.RunsRoot(base))
}

// runsOf is the store of the runs under base.
func runsOf(base string) runstore.Store { return fsstore.New(fsstore.Options{Base: base}) }

// parseInputs reads --input key=value pairs.
func parseInputs(pairs []string) (map[string]string, error) {
	inputs := map[string]string{}
	for _, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, fmt.Errorf("--input %q: want key=value", p)
		}
		inputs[k] = v
	}
	return inputs, nil
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
