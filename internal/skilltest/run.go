package skilltest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/diff"
	"go.yaml.in/yaml/v3"

	"github.com/skillkit/skillkit/internal/agent"
	"github.com/skillkit/skillkit/internal/cassette"
	"github.com/skillkit/skillkit/internal/engine"
	"github.com/skillkit/skillkit/internal/mcp"
	"github.com/skillkit/skillkit/internal/run"
	"github.com/skillkit/skillkit/internal/runstore"
	"github.com/skillkit/skillkit/internal/runstore/fsstore"
	"github.com/skillkit/skillkit/internal/script"
	"github.com/skillkit/skillkit/internal/skillfs"
	"github.com/skillkit/skillkit/internal/stateschema"
	"github.com/skillkit/skillkit/plan"
)

// Options configure how cases run.
type Options struct {
	// ExitCode is skillkit run's exit code for what run.Run returned:
	// the command's one table, so that a case expects what a user sees.
	ExitCode func(error) int
	// Update re-records each case's cassette with Agent, and writes the
	// golden files a case's run no longer matches.
	Update bool
	Agent  *agent.Agent
	// Env is the environment whose secrets a recording scrubs, and a
	// replay scrubs from its prompts to hash them alike (with the skill's
	// record.scrub patterns).
	Env []string
	// Project is the folder whose .mcp.json configures the MCP servers
	// that --update records (with the skill's skillkit.yaml); a replay
	// starts none.
	Project string
}

// Result is how one case went.
type Result struct {
	Skill string `json:"skill"`
	Case  string `json:"case"`
	File  string `json:"file"`
	// Failures are the expectations that did not hold, and the agent
	// calls nothing recorded answered.
	Failures []string `json:"failures,omitempty"`
	// Bad is a test file that cannot run (exit 2).
	Bad string `json:"bad,omitempty"`
	// Changes are what --update changed.
	Changes  []string      `json:"changes,omitempty"`
	Duration time.Duration `json:"durationNs"`
}

// Passed reports whether the case ran and held.
func (r *Result) Passed() bool { return r.Bad == "" && len(r.Failures) == 0 }

func (r *Result) fail(format string, args ...any) {
	r.Failures = append(r.Failures, fmt.Sprintf(format, args...))
}

// retryWait is the first retry wait of a step that gives none: a test
// need not wait a second for each retry to see it happen.
const retryWait = time.Millisecond

// Run runs one case of skill s in a fresh temporary work dir.
func Run(ctx context.Context, s *plan.Skill, c *Case, o Options) *Result {
	tmp, err := os.MkdirTemp("", "skillkit-test-")
	if err != nil {
		return &Result{Skill: s.Name, Case: c.Name, File: c.File, Failures: []string{err.Error()}}
	}
	defer os.RemoveAll(tmp)
	return runIn(ctx, s, c, o, tmp)
}

// runIn runs a case with tmp as its folder: the run's record and work
// dir are tmp/work.
func runIn(ctx context.Context, s *plan.Skill, c *Case, o Options, tmp string) *Result {
	start := time.Now()
	res := &Result{Skill: s.Name, Case: c.Name, File: c.File}
	defer func() { res.Duration = time.Since(start) }()
	work := filepath.Join(tmp, "work")
	if err := c.copyFixtures(s.Dir, work); err != nil {
		res.fail("fixtures: %v", err)
		return res
	}
	tape, err := c.tape(s, o, tmp)
	if err != nil {
		var be *BadFileError
		if errors.As(err, &be) {
			res.Bad = be.Error()
		} else {
			res.fail("%v", err)
		}
		return res
	}
	defer tape.skillChanged(s, res)
	store := fsstore.New(fsstore.Options{Base: tmp, NoSync: true})
	opts := run.Options{
		Skill: s, Store: store, WorkDir: work, Inputs: c.Inputs, Args: c.Args,
		ProjectDir: work, Agent: tape.agent, Yes: c.Yes, Backoff: retryWait, MCPTape: tape.mcpTape(),
	}
	if tape.recorder != nil {
		// --update records the calls of live servers.
		if opts.MCP, err = mcp.Load(o.Project, s.Dir, nil); err != nil {
			res.fail("%v", err)
			return res
		}
	}
	if opts.Answers, err = c.answers(tmp); err != nil {
		res.fail("answers: %v", err)
		return res
	}
	if c.Yes && opts.Answers == nil {
		opts.Answers = script.Yes{}
	}
	out, runErr := run.Run(ctx, opts)
	if err := tape.finish(o, c, res); err != nil {
		res.fail("%v", err)
	}
	if tape.player != nil && len(tape.player.Misses()) > 0 {
		// What the run did after a call it could not replay is no
		// regression of the skill: the misses are the case's failure.
		for _, m := range tape.player.Misses() {
			res.fail("%v", m)
		}
		if tape.old != nil && tape.old.Cut > 0 {
			res.fail("the cassette %s is cut short at line %d (its recording stopped while writing it): what came after was never recorded; record the case again", tape.old.Path, tape.old.Cut)
		}
		return res
	}
	if out == nil {
		res.fail("the run did not start: %v", runErr)
		return res
	}
	c.expect(ctx, s, o, res, runErr, out, store, tape.calls())
	return res
}

// copyFixtures copies the case's files of the skill into the work dir.
// Both ends go through a root: a link in the fixture that leads out of
// the skill, or a link in the work dir that leads out of it, is refused
// rather than followed (N15), and a special file is refused unread.
func (c *Case) copyFixtures(skillDir, work string) error {
	if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}
	src, err := skillfs.Open(skillDir)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := skillfs.Open(work)
	if err != nil {
		return err
	}
	defer dst.Close()
	for _, to := range sortedKeys(c.Files) {
		from := path.Clean(c.Files[to])
		err := fs.WalkDir(src, from, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := src.ReadFile(p)
			if err != nil {
				return fmt.Errorf("fixture %q: %w", to, err)
			}
			info, err := src.Stat(p)
			if err != nil {
				return err
			}
			target := path.Join(path.Clean(to), strings.TrimPrefix(strings.TrimPrefix(p, from), "/"))
			return dst.WriteFile(target, data, info.Mode().Perm())
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// answers are the case's answers, through an answers file as --answers
// reads them.
func (c *Case) answers(tmp string) (script.Answerer, error) {
	if len(c.Answers) == 0 {
		return nil, nil
	}
	data, err := yaml.Marshal(c.Answers)
	if err != nil {
		return nil, err
	}
	file := filepath.Join(tmp, "answers.yaml")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		return nil, err
	}
	return script.LoadAnswers(file)
}

// caseTape is the agent of a case's run: a player of the recording, or,
// with --update, the real agent recording a new cassette.
type caseTape struct {
	agent    *agent.Agent
	player   *cassette.Player
	recorder *cassette.Recorder
	// old is the cassette --update replaces; next where the new one is
	// written until the case is done.
	old  *cassette.Cassette
	next string
	// exchanges and scrub make the player of MCP calls of a case whose
	// run has no agent.
	exchanges []cassette.Exchange
	scrub     *cassette.Scrubber
}

// mcpTape answers the case's MCP calls: the recording, whose misses fail
// the case, so that a replay never starts a server.
func (t *caseTape) mcpTape() mcp.Tape {
	switch {
	case t.recorder != nil:
		return t.recorder
	case t.player == nil:
		// A run without an agent: the player answers MCP calls only.
		t.player = cassette.NewPlayer(t.exchanges, t.scrub)
	}
	return t.player
}

func (t *caseTape) calls() int {
	if t.recorder != nil {
		return t.recorder.Exchanges()
	}
	if t.player != nil {
		return t.player.Calls()
	}
	return 0
}

// skillChanged adds to a failed replay which of the skill's files
// changed since its cassette was recorded: a changed native step, schema
// or script shows in no prompt's diff.
func (t *caseTape) skillChanged(s *plan.Skill, res *Result) {
	if res.Passed() || t.recorder != nil || t.old == nil || t.old.SkillFiles == nil {
		return
	}
	now, err := cassette.SkillFiles(s.Dir)
	if err != nil {
		return
	}
	if changed := cassette.ChangedFiles(t.old.SkillFiles, now); len(changed) > 0 {
		res.fail("the skill changed since the cassette was recorded: %s; if that is meant, record the case again (skillkit test --update)", strings.Join(changed, ", "))
	}
}

// cassettePath is where the case's cassette is.
func (c *Case) cassettePath() string {
	return filepath.Join(filepath.Dir(c.File), filepath.FromSlash(c.Agent.Cassette))
}

// tape makes the case's agent. A cassette that cannot be read is a bad
// test file, at the cassette's line.
func (c *Case) tape(s *plan.Skill, o Options, tmp string) (*caseTape, error) {
	t := &caseTape{}
	patterns, err := cassette.ConfigScrub(s.Dir)
	if err != nil {
		return nil, &BadFileError{File: c.File, Err: err}
	}
	scrub, err := cassette.NewScrubber(o.Env, patterns)
	if err != nil {
		return nil, &BadFileError{File: c.File, Err: err}
	}
	var exchanges []cassette.Exchange
	command := agent.AdapterCommand
	if c.Agent.Cassette != "" {
		cas, err := cassette.Load(c.cassettePath(), s.Name)
		var ce *cassette.Error
		switch {
		case errors.As(err, &ce):
			return nil, &BadFileError{File: ce.File, Line: ce.Line, Err: errors.New(ce.Msg)}
		case err != nil && !(o.Update && errors.Is(err, fs.ErrNotExist)):
			return nil, &BadFileError{File: c.File, Line: c.lines["agent.cassette"], Err: err}
		case cas != nil:
			exchanges, command, t.old = cas.Exchanges, cas.Agent, cas
		}
	}
	if o.Update && c.Agent.Cassette != "" {
		if o.Agent == nil {
			return nil, fmt.Errorf("--update re-records the cassette with the agent: pass --agent CMD or set SKILLKIT_AGENT")
		}
		t.next = filepath.Join(tmp, "cassette.jsonl")
		files, err := cassette.SkillFiles(s.Dir)
		if err != nil {
			return nil, err
		}
		rec, err := cassette.Create(t.next, cassette.Header{Skill: s.Name, Agent: agent.Adapter(o.Agent.Command), SkillFiles: files}, scrub)
		if err != nil {
			return nil, err
		}
		a := *o.Agent
		a.Tape = rec
		t.agent, t.recorder = &a, rec
		return t, nil
	}
	for _, id := range sortedKeys(c.Agent.Replies) {
		for _, r := range c.Agent.Replies[id] {
			exchanges = append(exchanges, cassette.Exchange{ID: id, Reply: r})
		}
	}
	t.exchanges, t.scrub = exchanges, scrub
	if command == cassette.NoAgent || c.Agent.Cassette == "" && len(c.Agent.Replies) == 0 {
		return t, nil
	}
	t.player = cassette.NewPlayer(exchanges, scrub)
	// The command never runs: only its adapter matters, which renders the
	// prompts as the recorded run's did.
	t.agent = &agent.Agent{Command: command, Tape: t.player}
	return t, nil
}

// finish puts a re-recorded cassette in place and says how it differs.
func (t *caseTape) finish(o Options, c *Case, res *Result) error {
	if t.recorder == nil {
		return nil
	}
	if err := t.recorder.Close(); err != nil {
		return err
	}
	data, err := os.ReadFile(t.next)
	if err != nil {
		return err
	}
	if err := replaceFile(filepath.Dir(c.File), c.Agent.Cassette, data); err != nil {
		return err
	}
	res.Changes = append(res.Changes, cassetteChanges(t.old, t.next, res.Skill)...)
	return nil
}

// replaceFile replaces the file name (slash-separated) under dir with
// data: through a root on dir, so that no link leads the write out, and
// by a temporary file renamed over it, so that a write that fails (a
// full disk) leaves the old content whole. --update wrote in place, and a
// full disk left a case's cassette cut short.
func replaceFile(dir, name string, data []byte) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	if d := path.Dir(name); d != "." {
		if err := root.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	var b [4]byte
	rand.Read(b[:])
	tmp := path.Join(path.Dir(name), "."+path.Base(name)+runstore.TempMark+hex.EncodeToString(b[:]))
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = root.Rename(tmp, name)
	}
	if err != nil {
		root.Remove(tmp)
	}
	return err
}

// cassetteChanges says what a re-recording changed: exchanges added,
// gone, or with another prompt or reply.
func cassetteChanges(old *cassette.Cassette, next, skill string) []string {
	now, err := cassette.Load(next, skill)
	if err != nil {
		return []string{err.Error()}
	}
	if old == nil {
		return []string{fmt.Sprintf("recorded %d exchange(s) to a new cassette", len(now.Exchanges))}
	}
	var out []string
	for i := 0; i < max(len(old.Exchanges), len(now.Exchanges)); i++ {
		switch {
		case i >= len(old.Exchanges):
			out = append(out, fmt.Sprintf("new exchange: %s %s", now.Exchanges[i].Request, now.Exchanges[i].ID))
		case i >= len(now.Exchanges):
			out = append(out, fmt.Sprintf("exchange gone: %s %s", old.Exchanges[i].Request, old.Exchanges[i].ID))
		default:
			a, b := old.Exchanges[i], now.Exchanges[i]
			var what []string
			if a.Request != b.Request || a.ID != b.ID {
				what = append(what, fmt.Sprintf("was %s %s", a.Request, a.ID))
			}
			if a.PromptHash != b.PromptHash {
				what = append(what, "prompt")
			}
			if a.Reply != b.Reply {
				what = append(what, "reply")
			}
			if len(what) > 0 {
				out = append(out, fmt.Sprintf("exchange %d (%s %s) changed: %s", i+1, b.Request, b.ID, strings.Join(what, ", ")))
			}
		}
	}
	if len(out) == 0 {
		out = append(out, "cassette re-recorded, no exchange changed")
	}
	return out
}

// expect checks what the run left against the case's expectations.
func (c *Case) expect(ctx context.Context, s *plan.Skill, o Options, res *Result, runErr error, out *run.Result, store runstore.Store, calls int) {
	e := c.Expect
	if e.Status != "" && string(out.State) != e.Status {
		res.fail("status: the run ended %s, want %s%s", out.State, e.Status, because(runErr))
	}
	if e.ExitCode != nil && o.ExitCode != nil {
		if code := o.ExitCode(runErr); code != *e.ExitCode {
			res.fail("exitCode: %d, want %d%s", code, *e.ExitCode, because(runErr))
		}
	}
	if e.MaxAgentCalls != nil && calls > *e.MaxAgentCalls {
		res.fail("maxAgentCalls: the run made %d agent call(s), want at most %d", calls, *e.MaxAgentCalls)
	}
	state, err := readState(out.WorkDir)
	if err != nil {
		res.fail("%v", err)
	}
	for _, path := range sortedKeys(e.State) {
		got, ok := Lookup(state, path)
		switch {
		case !ok:
			res.fail("state.%s: not in the final state, want %s", path, show(e.State[path]))
		case !reflect.DeepEqual(jsonValue(got), jsonValue(e.State[path])):
			res.fail("state.%s: %s, want %s", path, show(got), show(e.State[path]))
		}
	}
	for _, js := range e.StateTrue {
		ok, err := script.EvalExpr(ctx, &plan.Expr{Text: js, JS: js}, script.PureEnv{State: state, Inputs: c.Inputs})
		switch {
		case err != nil:
			res.fail("stateTrue %q: %v", js, err)
		case !ok:
			res.fail("stateTrue %q is false", js)
		}
	}
	c.expectFiles(s, o, res, out.WorkDir)
	c.expectEvents(res, store, out.Dir)
}

// because is ": <why>" for a run that returned an error.
func because(err error) string {
	if err == nil {
		return ""
	}
	return " (" + err.Error() + ")"
}

func readState(work string) (map[string]any, error) {
	data, err := os.ReadFile(filepath.Join(work, runstore.StateFile))
	if err != nil {
		return nil, fmt.Errorf("reading the final state: %w", err)
	}
	var state map[string]any
	if err := json.Unmarshal(data, &state); err != nil {
		return nil, fmt.Errorf("reading the final state: %w", err)
	}
	return state, nil
}

// Lookup finds a dotted path in a state: a key of an object, an index of
// a list.
func Lookup(v any, path string) (any, bool) {
	for _, f := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[f]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(f)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// jsonValue is v as encoding/json reads it back, so that YAML's ints
// and JSON's float64s compare equal.
func jsonValue(v any) any {
	data, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	if json.Unmarshal(data, &out) != nil {
		return v
	}
	return out
}

func show(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(data)
}

// expectFiles checks the work dir's files.
func (c *Case) expectFiles(s *plan.Skill, o Options, res *Result, work string) {
	for _, path := range sortedKeys(c.Expect.Files) {
		f := c.Expect.Files[path]
		// The run's output may be a FIFO or a link out: read it as the
		// skill's own files are read.
		data, err := skillfs.ReadFile(work, path)
		if f.Exists != nil && !*f.Exists {
			if err == nil {
				res.fail("files.%s: the run left it, want none", path)
			}
			continue
		}
		if err != nil {
			res.fail("files.%s: %v", path, err)
			continue
		}
		if f.Hash != "" && cassette.HashBytes(data) != f.Hash {
			res.fail("files.%s: hash %s, want %s", path, cassette.HashBytes(data), f.Hash)
		}
		if f.Matches != "" && !regexp.MustCompile(f.Matches).Match(data) {
			res.fail("files.%s: does not match %q", path, f.Matches)
		}
		if f.Equals != "" {
			c.golden(s, o, res, path, filepath.Join(filepath.Dir(c.File), filepath.FromSlash(f.Equals)), data)
		}
		if f.Schema != "" {
			if err := satisfies(s.Dir, f.Schema, data); err != nil {
				res.fail("files.%s: %v", path, err)
			}
		}
	}
}

// golden compares a file with its golden copy; --update writes the copy.
// The copy is a file of the skill: it is read and written through the
// skill's root, so a link cannot take the write outside (N4).
func (c *Case) golden(s *plan.Skill, o Options, res *Result, path, golden string, data []byte) {
	root, err := skillfs.Open(s.Dir)
	if err != nil {
		res.fail("files.%s: %v", path, err)
		return
	}
	defer root.Close()
	rel, err := filepath.Rel(s.Dir, golden)
	if err != nil {
		res.fail("files.%s: the golden file %s is not in the skill: %v", path, golden, err)
		return
	}
	rel = filepath.ToSlash(rel)
	want, err := root.ReadFile(rel)
	if err == nil && string(want) == string(data) {
		return
	}
	if o.Update {
		if err := replaceFile(s.Dir, rel, data); err != nil {
			res.fail("files.%s: writing the golden file: %v", path, err)
			return
		}
		res.Changes = append(res.Changes, fmt.Sprintf("golden file %s: %s", golden, map[bool]string{true: "written", false: "updated"}[err != nil]))
		return
	}
	if err != nil {
		res.fail("files.%s: %v (skillkit test --update writes it)", path, err)
		return
	}
	res.fail("files.%s differs from %s:\n%s", path, golden, strings.TrimRight(string(diff.Diff(golden, want, path, data)), "\n"))
}

// satisfies validates a JSON or YAML document against a JSON Schema file.
func satisfies(skillDir, schemaFile string, data []byte) error {
	sch, err := stateschema.CompileFile(skillDir, schemaFile)
	if err != nil {
		return err
	}
	var doc any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("not JSON or YAML: %w", err)
	}
	vs, err := sch.Validate(jsonValue(doc))
	if err != nil {
		return err
	}
	if len(vs) > 0 {
		var msgs []string
		for _, v := range vs {
			msgs = append(msgs, v.String())
		}
		return fmt.Errorf("does not satisfy %s: %s", filepath.Base(schemaFile), strings.Join(msgs, "; "))
	}
	return nil
}

// expectEvents checks the event log of the run ref names in store.
func (c *Case) expectEvents(res *Result, store runstore.Store, ref string) {
	ev := c.Expect.Events
	if len(ev.Skipped) == 0 && len(ev.Retried) == 0 && len(ev.ActionRuns) == 0 {
		return
	}
	events, err := store.Events(ref)
	if err != nil {
		res.fail("%v", err)
		return
	}
	has := func(id string, to runstore.State) bool {
		for _, e := range events {
			if (e.Step == id || e.Action == id && e.Step == "") && e.To == to {
				return true
			}
		}
		return false
	}
	for _, id := range ev.Skipped {
		if !has(id, runstore.State(engine.StepSkipped)) {
			res.fail("events.skipped: %s was not skipped", id)
		}
	}
	for _, id := range ev.Retried {
		if !has(id, runstore.State(engine.StepRetrying)) {
			res.fail("events.retried: %s was not retried", id)
		}
	}
	for _, id := range sortedKeys(ev.ActionRuns) {
		n := 0
		for _, e := range events {
			if e.Action == id && e.Step == "" && e.To == runstore.State(engine.UnitLoading) {
				n++
			}
		}
		if n != ev.ActionRuns[id] {
			res.fail("events.actionRuns.%s: ran %d time(s), want %d", id, n, ev.ActionRuns[id])
		}
	}
}
