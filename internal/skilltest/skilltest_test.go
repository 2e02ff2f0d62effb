package skilltest

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/skillkit/skillkit/internal/agent"
	"github.com/skillkit/skillkit/internal/cassette"
	"github.com/skillkit/skillkit/internal/run"
	"github.com/skillkit/skillkit/internal/runstore/fsstore"
	"github.com/skillkit/skillkit/parse"
	"github.com/skillkit/skillkit/plan"
)

var examples = filepath.Join("..", "..", "examples")

func skill(t testing.TB, dir string) *plan.Skill {
	t.Helper()
	s, err := parse.Dir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// recorded runs skill s for real in tmp/work with the agent command,
// recording its cassette to cassetteFile.
func recorded(t *testing.T, s *plan.Skill, command, cassetteFile, tmp string, inputs map[string]string, args []string) *run.Result {
	t.Helper()
	header := cassette.Header{Skill: s.Name, Agent: cassette.NoAgent}
	var a *agent.Agent
	if command != "" {
		a = &agent.Agent{Command: command}
		header.Agent = agent.Adapter(command)
	}
	rec, err := cassette.Create(cassetteFile, header, nil)
	if err != nil {
		t.Fatal(err)
	}
	if a != nil {
		a.Tape = rec
	}
	work := filepath.Join(tmp, "work")
	res, err := run.Run(context.Background(), run.Options{
		Skill: s, Store: fsstore.New(fsstore.Options{Base: tmp, NoSync: true}), WorkDir: work, Inputs: inputs, Args: args,
		ProjectDir: work, Agent: a, Backoff: retryWait,
	})
	if err != nil {
		t.Fatalf("the recorded run: %v", err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	return res
}

// volatile matches what differs between two runs of a skill that do the
// same: times, durations, run and session ids.
var volatile = regexp.MustCompile(`\d{4}-\d{2}-\d{2}T[0-9:.]+(Z|[+-]\d{2}:\d{2})|\d{8}-\d{6}-[0-9a-f]+|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\d+(\.\d+)?(ms|µs|s)\b`)

// normal is a file or event of a run in work with its run-specific
// values replaced.
func normal(text, work string) string {
	return volatile.ReplaceAllString(strings.ReplaceAll(text, work, "WORK"), "X")
}

// trace is what a run left that a replay must reproduce: its final state,
// its files by hash, and its events, each apart from times, ids and its
// work dir.
func trace(t *testing.T, work string) (state string, files map[string]string, events []string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(work, fsstore.StateFile))
	if err != nil {
		t.Fatal(err)
	}
	hashes, err := cassette.WorkFiles(work)
	if err != nil {
		t.Fatal(err)
	}
	files = map[string]string{}
	for path := range maps.Keys(hashes) {
		data, err := os.ReadFile(filepath.Join(work, path))
		if err != nil {
			t.Fatal(err)
		}
		files[path] = cassette.HashBytes([]byte(normal(string(data), work)))
	}
	evs, err := fsstore.New(fsstore.Options{}).Events(work)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range evs {
		e.Start = nil
		line, _ := json.Marshal(e)
		events = append(events, normal(string(line), work))
	}
	return normal(string(data), work), files, events
}

// TestReplayIsIdentical records a run of each example with its stand-in
// agent and replays it from the cassette: the replay leaves the same
// final state, the same files and the same events, apart from times, ids
// and the work dir's path.
func TestReplayIsIdentical(t *testing.T) {
	abs, _ := filepath.Abs(examples)
	for _, tc := range []struct {
		name, agent string
		inputs      map[string]string
		args        []string
	}{
		{name: "sequential"},
		{name: "autonomous", inputs: map[string]string{"items": "red,green,blue"}},
		{name: "hybrid", inputs: map[string]string{"text": "the cat saw the other cat"}},
		{name: "agent-driven", agent: filepath.Join(abs, "agent-driven", "fake-agent.sh")},
		{name: "real-skill", agent: filepath.Join(abs, "real-skill", "stand-in-agent.sh"), args: []string{"README.md"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := skill(t, filepath.Join(examples, tc.name))
			dir := t.TempDir()
			orig := recorded(t, s, tc.agent, filepath.Join(dir, "c.jsonl"), filepath.Join(dir, "orig"), tc.inputs, tc.args)
			c := &Case{Name: "replay", File: filepath.Join(dir, "case.yaml"), Inputs: tc.inputs, Args: tc.args, Agent: Agent{Cassette: "c.jsonl"}}
			res := runIn(context.Background(), s, c, Options{}, filepath.Join(dir, "replay"))
			if !res.Passed() {
				t.Fatalf("replay: %s %v", res.Bad, res.Failures)
			}
			s1, f1, e1 := trace(t, orig.WorkDir)
			s2, f2, e2 := trace(t, filepath.Join(dir, "replay", "work"))
			if s1 != s2 {
				t.Errorf("final state:\n%s\nreplayed:\n%s", s1, s2)
			}
			if !maps.Equal(f1, f2) {
				t.Errorf("files:\n%v\nreplayed:\n%v", f1, f2)
			}
			if len(e1) != len(e2) {
				t.Fatalf("%d events, replayed %d", len(e1), len(e2))
			}
			for i := range e1 {
				if e1[i] != e2[i] {
					t.Errorf("event %d:\n%s\nreplayed:\n%s", i+1, e1[i], e2[i])
				}
			}
		})
	}
}

// TestReplayStartsNoAgent: the agent's calls come from the cassette; the
// command the recording ran is never started again.
func TestReplayStartsNoAgent(t *testing.T) {
	abs, _ := filepath.Abs(examples)
	dir := t.TempDir()
	log := filepath.Join(dir, "started.log")
	command := "echo started >> " + log + "; exec " + filepath.Join(abs, "agent-driven", "fake-agent.sh")
	s := skill(t, filepath.Join(examples, "agent-driven"))
	recorded(t, s, command, filepath.Join(dir, "c.jsonl"), filepath.Join(dir, "orig"), nil, nil)
	before, _ := os.ReadFile(log)
	if strings.Count(string(before), "started") != 3 {
		t.Fatalf("the recording started the agent %d times, want 3", strings.Count(string(before), "started"))
	}
	c := &Case{Name: "replay", File: filepath.Join(dir, "case.yaml"), Agent: Agent{Cassette: "c.jsonl"}, Expect: Expect{Status: "completed"}}
	if res := Run(context.Background(), s, c, Options{}); !res.Passed() {
		t.Fatalf("replay: %s %v", res.Bad, res.Failures)
	}
	if after, _ := os.ReadFile(log); string(after) != string(before) {
		t.Errorf("the replay started the agent: %q", after)
	}
}

// copySkill copies an example to a temporary folder, where a test may
// add test files.
func copySkill(t *testing.T, name string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), name)
	if err := os.CopyFS(dst, os.DirFS(filepath.Join(examples, name))); err != nil {
		t.Fatal(err)
	}
	return dst
}

func write(t *testing.T, file, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestBadTestFiles: each kind of unusable test file is reported at its
// file and line, as bad, and the suite goes on.
func TestBadTestFiles(t *testing.T) {
	dir := copySkill(t, "autonomous")
	tests := filepath.Join(dir, Dir)
	write(t, filepath.Join(tests, "other.cassette.jsonl"), `{"cassette":1,"skill":"hybrid","agent":"command"}`+"\n")
	write(t, filepath.Join(tests, "old.cassette.jsonl"), `{"cassette":7,"skill":"autonomous","agent":"command"}`+"\n")
	cases := map[string]struct{ text, want string }{
		"yaml":    {"expect:\n  status: [completed\n", "yaml.yaml:1: did not find expected"},
		"unknown": {"expect:\n  status: completed\n  stat: {}\n", "unknown.yaml:3: field stat not found"},
		"path":    {"expect:\n  state:\n    context.total: 3\n    nosuch.field: 1\n", `path.yaml:4: expect.state: nosuch.field: the state schema (phases/state-schema.md) has no field "nosuch"`},
		"fixture": {"files:\n  data.txt: ../../etc/passwd\n", `fixture.yaml:2: fixture "data.txt": "../../etc/passwd" leaves the skill's folder`},
		"other":   {"agent:\n  cassette: other.cassette.jsonl\n", `other.cassette.jsonl:1: a cassette of the skill "hybrid", not "autonomous"`},
		"old":     {"agent:\n  cassette: old.cassette.jsonl\n", "old.cassette.jsonl:1: cassette format 7; this skillkit reads format 1"},
		// A file left empty (a recording cut short before it was
		// written) said only "EOF".
		"empty": {"# nothing yet\n", "empty.yaml:1: the test file is empty"},
	}
	for name, tc := range cases {
		write(t, filepath.Join(tests, name+".yaml"), tc.text)
	}
	found, err := Find([]string{dir}, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	results := RunAll(context.Background(), found, Options{}, 2)
	got := map[string]string{}
	for _, r := range results {
		got[r.Case] = r.Bad
	}
	for name, tc := range cases {
		if !strings.Contains(got[name], tc.want) {
			t.Errorf("%s: bad %q, want it to hold %q", name, got[name], tc.want)
		}
	}
	if s := Summarize(results); s.Bad != len(cases) {
		t.Errorf("summary %+v, want %d bad", s, len(cases))
	}
}

// TestTruncatedCassette: a cassette cut short fails the case that needed
// the missing exchange, naming it, and no other.
func TestTruncatedCassette(t *testing.T) {
	dir := copySkill(t, "agent-driven")
	tests := filepath.Join(dir, Dir)
	data, err := os.ReadFile(filepath.Join(tests, "basic.cassette.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	// The header, two exchanges, and half of the third.
	cut := strings.Join(lines[:3], "") + lines[3][:len(lines[3])/2]
	write(t, filepath.Join(tests, "cut.cassette.jsonl"), cut)
	basic, err := os.ReadFile(filepath.Join(tests, "basic.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(tests, "cut.yaml"), strings.Replace(string(basic), "basic.cassette.jsonl", "cut.cassette.jsonl", 1))
	found, err := Find([]string{dir}, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range RunAll(context.Background(), found, Options{}, 2) {
		switch r.Case {
		case "basic":
			if !r.Passed() {
				t.Errorf("basic: %s %v", r.Bad, r.Failures)
			}
		case "cut":
			if r.Bad != "" || len(r.Failures) != 2 || !strings.Contains(r.Failures[0], "no recorded reply for the action call of action-review") ||
				!strings.Contains(r.Failures[1], "cut.cassette.jsonl is cut short at line 4") {
				t.Errorf("cut: bad %q, failures %v", r.Bad, r.Failures)
			}
		}
	}
}

// TestChangedPromptFails: a skill edited after its recording asks the
// agent something else; the case fails with a diff naming the action.
func TestChangedPromptFails(t *testing.T) {
	dir := copySkill(t, "agent-driven")
	file := filepath.Join(dir, "phases", "actions", "action-draft.md")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	write(t, file, strings.Replace(string(data), "## Execution", "## Execution\n\nWrite it in French.", 1))
	found, err := Find([]string{dir}, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	r := RunAll(context.Background(), found, Options{}, 1)[0]
	if len(r.Failures) == 0 || !strings.Contains(r.Failures[0], "action call of action-draft") || !strings.Contains(r.Failures[0], "+Write it in French.") {
		t.Errorf("failures %v, want a diff naming action-draft", r.Failures)
	}
}

// TestExpectations: each kind of expectation fails when it does not hold.
func TestExpectations(t *testing.T) {
	dir := copySkill(t, "hybrid")
	write(t, filepath.Join(dir, "tests", "golden.md"), "not the report\n")
	write(t, filepath.Join(dir, "tests", "schema.json"), `{"type": "array"}`)
	write(t, filepath.Join(dir, "tests", "wrong.yaml"), `inputs: {text: "the cat saw the other cat"}
expect:
  status: failed
  exitCode: 1
  state: {status: running}
  stateTrue: ["state.status === 'running'"]
  files:
    nosuch.txt: {exists: true}
    report.md: {matches: "^zzz", equals: golden.md}
  events:
    skipped: ["01-collect#1"]
    actionRuns: {count: 7}
  maxAgentCalls: 0
`)
	s := skill(t, dir)
	c, err := LoadCase(filepath.Join(dir, "tests", "wrong.yaml"), s)
	if err != nil {
		t.Fatal(err)
	}
	r := Run(context.Background(), s, c, Options{ExitCode: func(err error) int {
		if err != nil {
			return 1
		}
		return 0
	}})
	all := strings.Join(r.Failures, "\n")
	for _, want := range []string{"status: the run ended completed, want failed", "exitCode: 0, want 1", "state.status: \"completed\", want \"running\"",
		"stateTrue \"state.status === 'running'\" is false", "files.nosuch.txt", "files.report.md: does not match", "files.report.md differs from",
		"events.skipped: 01-collect#1 was not skipped", "events.actionRuns.count"} {
		if !strings.Contains(all, want) {
			t.Errorf("failures lack %q:\n%s", want, all)
		}
	}
}

// BenchmarkSuite runs 200 cases: the examples' and the scaffolds' tests,
// ten times over, as many at once as there are cores. The figure to keep
// is under 5 s per op on 2 cores.
func BenchmarkSuite(b *testing.B) {
	found, err := Find([]string{examples, filepath.Join("..", "..", "scaffold", "testdata", "golden")}, nil, "")
	if err != nil {
		b.Fatal(err)
	}
	var suite []*Found
	n := 0
	for len(suite) == 0 || n < 200 {
		for _, f := range found {
			if n >= 200 {
				break
			}
			cases := f.Cases[:min(len(f.Cases), 200-n)]
			suite = append(suite, &Found{Skill: f.Skill, Cases: cases})
			n += len(cases)
		}
	}
	b.ReportMetric(float64(n), "cases/op")
	for b.Loop() {
		for _, r := range RunAll(context.Background(), suite, Options{}, runtime.GOMAXPROCS(0)) {
			if !r.Passed() {
				b.Fatalf("%s/%s: %s %v", r.Skill, r.Case, r.Bad, r.Failures)
			}
		}
	}
}
