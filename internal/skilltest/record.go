package skilltest

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"

	"go.yaml.in/yaml/v3"

	"github.com/skillkit/skillkit/internal/cassette"
	"github.com/skillkit/skillkit/internal/run"
	"github.com/skillkit/skillkit/internal/skillfs"
	"github.com/skillkit/skillkit/plan"
)

// Recording is what skillkit run --record-test knows of the run it
// turns into a test.
type Recording struct {
	// Name is the case's name: tests/NAME.yaml.
	Name    string
	Args    []string
	Inputs  map[string]string
	Answers map[string]any
	Yes     bool
	// Result and Err are what run.Run returned, ExitCode what skillkit
	// run exits with for them.
	Result   *run.Result
	Err      error
	ExitCode int
	// AgentCalls is how many exchanges the cassette holds.
	AgentCalls int
	// Scrub is the recording's scrubber: the test file keeps no secret
	// the cassette does not.
	Scrub *cassette.Scrubber
}

// CassettePath is where --record-test NAME records a skill's cassette.
func CassettePath(skillDir, name string) string {
	return filepath.Join(skillDir, Dir, name+".cassette.jsonl")
}

// timeValue matches a value that holds a time: it differs in every run,
// so a recorded test does not expect it.
var timeValue = regexp.MustCompile(`\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}`)

// WriteRecorded writes tests/NAME.yaml of skill s from a recorded run:
// its arguments, inputs and answers, its cassette, and expectations taken
// from what it left: how it ended, its final state (apart from times),
// the files it left with their hashes, and its agent calls.
func WriteRecorded(s *plan.Skill, r Recording) (string, error) {
	c := Case{
		Description: "Recorded with skillkit run --record-test " + r.Name + "; replays the run with its agent's replies.",
		Args:        r.Args, Inputs: r.Inputs, Answers: r.Answers, Yes: r.Yes,
		Agent: Agent{Cassette: filepath.Base(CassettePath(s.Dir, r.Name))},
	}
	code := r.ExitCode
	calls := r.AgentCalls
	c.Expect = Expect{Status: string(r.Result.State), ExitCode: &code, MaxAgentCalls: &calls, State: map[string]any{}, Files: map[string]FileExpect{}}
	state, err := readState(r.Result.WorkDir)
	if err != nil {
		return "", err
	}
	// A value that holds a time or a secret differs in every run, or must
	// not be written down: the test does not expect it.
	for k, v := range state {
		if !timeValue.MatchString(show(v)) && show(r.Scrub.ScrubValue(v)) == show(v) && r.Scrub.Scrub(k) == k {
			c.Expect.State[k] = v
		}
	}
	for k, v := range c.Inputs {
		c.Inputs[k] = r.Scrub.Scrub(v)
	}
	for i, a := range c.Args {
		c.Args[i] = r.Scrub.Scrub(a)
	}
	if c.Answers != nil {
		c.Answers, _ = r.Scrub.ScrubValue(c.Answers).(map[string]any)
	}
	files, err := cassette.WorkFiles(r.Result.WorkDir)
	if err != nil {
		return "", err
	}
	exists := true
	for path, hash := range files {
		data, err := skillfs.ReadFile(r.Result.WorkDir, path)
		if err != nil {
			return "", err
		}
		// A file that holds the run's folder or a time differs in every
		// run: the test expects it to be there, not its content.
		// A secret in it is scrubbed from the cassette, so a replay
		// leaves it without: the test expects it to be there.
		path = r.Scrub.Scrub(path)
		if bytes.Contains(data, []byte(r.Result.WorkDir)) || timeValue.Match(data) || !bytes.Equal(r.Scrub.ScrubBytes(data), data) {
			c.Expect.Files[path] = FileExpect{Exists: &exists}
			continue
		}
		c.Expect.Files[path] = FileExpect{Hash: hash}
	}
	data, err := yaml.Marshal(&c)
	if err != nil {
		return "", err
	}
	file := filepath.Join(s.Dir, Dir, r.Name+".yaml")
	// Editors that read the modeline check the file against the schema.
	head := []byte("# yaml-language-server: $schema=https://skillkit.dev/schemas/test.json\n")
	if err := skillfs.WriteFile(s.Dir, Dir+"/"+r.Name+".yaml", append(head, data...), 0o644); err != nil {
		return "", err
	}
	return file, nil
}

// RemoveRecorded removes what a --record-test of test name that failed
// left in the skill at dir: its test file and its cassette.
func RemoveRecorded(dir, name string) {
	os.Remove(filepath.Join(dir, Dir, name+".yaml"))
	os.Remove(CassettePath(dir, name))
}
