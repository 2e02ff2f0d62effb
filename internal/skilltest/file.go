// Package skilltest runs a skill's regression tests (skillkit test): the
// test files under its tests/ folder, each a case that runs the skill in
// a fresh work dir with the agent's replies from a cassette (package
// cassette) or inline, and checks what the run left against the case's
// expectations. No agent and no network take part: agent calls come from
// the recording, native steps run as they did when it was made.
package skilltest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/skillkit/skillkit/internal/skillfs"
	"github.com/skillkit/skillkit/internal/stateschema"
	"github.com/skillkit/skillkit/plan"
)

// Dir is the folder of a skill that holds its test files.
const Dir = plan.TestsDir

// Case is a test file, tests/NAME.yaml.
type Case struct {
	// Description says what the case checks.
	Description string `yaml:"description,omitempty" json:"description,omitempty"`
	// Args are the skill's arguments (skillkit run SKILL -- ARGS…).
	Args []string `yaml:"args,omitempty" json:"args,omitempty"`
	// Inputs are the --input values.
	Inputs map[string]string `yaml:"inputs,omitempty" json:"inputs,omitempty"`
	// Files are fixture files copied into the work dir before the run:
	// the path in the work dir → a file or folder of the skill, relative
	// to the skill's folder.
	Files map[string]string `yaml:"files,omitempty" json:"files,omitempty"`
	// Answers answer AskUserQuestion and confirmations as an --answers
	// file does: question header (or text) → option label.
	Answers map[string]any `yaml:"answers,omitempty" json:"answers,omitempty"`
	// Yes answers yes to every confirmation (--yes).
	Yes bool `yaml:"yes,omitempty" json:"yes,omitempty"`
	// Agent is where the agent's replies come from; a case without one
	// runs with no agent.
	Agent Agent `yaml:"agent,omitempty" json:"agent,omitzero"`
	// Expect is what the run must leave.
	Expect Expect `yaml:"expect" json:"expect"`

	// Name is the file's name without .yaml; File its path.
	Name string `yaml:"-" json:"-"`
	File string `yaml:"-" json:"-"`
	// lines are where the case's keys are, for errors found after
	// decoding: "expect.state.context.files" → line.
	lines map[string]int
}

// Agent is the agent of a case.
type Agent struct {
	// Cassette is a file recorded with skillkit run --record, relative to
	// the test file's folder.
	Cassette string `yaml:"cassette,omitempty" json:"cassette,omitempty"`
	// Replies are inline replies by step id (01-collect#2), action id,
	// "select", "task" or "<phase>-outputs", used in order when an id is
	// asked more than once. They answer whatever the prompt says.
	Replies map[string][]string `yaml:"replies,omitempty" json:"replies,omitempty"`
}

// Expect is what a case's run must leave.
type Expect struct {
	// Status is how the run ended: completed, failed, aborted or
	// interrupted.
	Status string `yaml:"status,omitempty" json:"status,omitempty" jsonschema:"enum=completed,enum=failed,enum=aborted,enum=interrupted"`
	// ExitCode is skillkit run's exit code for such a run.
	ExitCode *int `yaml:"exitCode,omitempty" json:"exitCode,omitempty"`
	// State holds values the final state.json must have, by dotted path
	// (context.files.0 is the first item of a list).
	State map[string]any `yaml:"state,omitempty" json:"state,omitempty"`
	// StateTrue are JavaScript expressions over state (and inputs) that
	// must be true: "state.items.length === 3".
	StateTrue []string `yaml:"stateTrue,omitempty" json:"stateTrue,omitempty"`
	// Files are checks of files in the work dir, by path.
	Files map[string]FileExpect `yaml:"files,omitempty" json:"files,omitempty"`
	// Events are checks of the run's event log.
	Events Events `yaml:"events,omitempty" json:"events,omitzero"`
	// MaxAgentCalls bounds the agent calls the run makes.
	MaxAgentCalls *int `yaml:"maxAgentCalls,omitempty" json:"maxAgentCalls,omitempty"`
}

// FileExpect checks one file of the work dir; every check set must hold.
type FileExpect struct {
	// Exists false says the file must not be there; true (or any other
	// check) that it must.
	Exists *bool `yaml:"exists,omitempty" json:"exists,omitempty"`
	// Hash is the content's "sha256:<hex>".
	Hash string `yaml:"hash,omitempty" json:"hash,omitempty" jsonschema:"pattern=^sha256:[0-9a-f]{64}$"`
	// Equals is a golden file, relative to the test file's folder, the
	// content must equal (skillkit test --update writes it).
	Equals string `yaml:"equals,omitempty" json:"equals,omitempty"`
	// Matches is a regular expression the content must match.
	Matches string `yaml:"matches,omitempty" json:"matches,omitempty"`
	// Schema is a JSON Schema file, relative to the skill's folder, the
	// content (JSON or YAML) must satisfy.
	Schema string `yaml:"schema,omitempty" json:"schema,omitempty"`
}

// Events are checks of the run's events.jsonl.
type Events struct {
	// Skipped are steps (01-collect#2) that must have been skipped.
	Skipped []string `yaml:"skipped,omitempty" json:"skipped,omitempty"`
	// Retried are steps or actions that must have been retried.
	Retried []string `yaml:"retried,omitempty" json:"retried,omitempty"`
	// ActionRuns are how many times each action must have run.
	ActionRuns map[string]int `yaml:"actionRuns,omitempty" json:"actionRuns,omitempty"`
}

// BadFileError is a test file that cannot be used, at a line of it: the
// suite reports it and exits 2.
type BadFileError struct {
	File string
	Line int
	Err  error
}

func (e *BadFileError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.File, e.Err)
}

func (e *BadFileError) Unwrap() error { return e.Err }

// yamlLine reads the line out of a YAML error ("yaml: line 4: …").
var yamlLine = regexp.MustCompile(`line (\d+)`)

// LoadCase reads and checks a test file of skill s: its YAML, its keys,
// its state paths against the skill's state schema, its fixture paths.
// Every problem is a *BadFileError.
func LoadCase(file string, s *plan.Skill) (*Case, error) {
	data, err := skillfs.ReadFile(filepath.Dir(file), filepath.Base(file))
	if err != nil {
		return nil, &BadFileError{File: file, Err: err}
	}
	c := &Case{File: file, Name: strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(c); errors.Is(err, io.EOF) {
		return nil, &BadFileError{File: file, Line: 1, Err: errors.New("the test file is empty: write its expectations (an empty mapping {} runs the skill with none)")}
	} else if err != nil {
		line := 0
		if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
			fmt.Sscan(m[1], &line)
		}
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		msg = yamlLine.ReplaceAllString(msg, "")
		msg = strings.TrimLeft(strings.TrimPrefix(strings.TrimPrefix(msg, "unmarshal errors:\n"), " "), ": ")
		return nil, &BadFileError{File: file, Line: line, Err: errors.New(strings.TrimSpace(msg))}
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err == nil {
		c.lines = map[string]int{}
		index(&root, "", c.lines)
	}
	if err := c.check(s); err != nil {
		return nil, err
	}
	return c, nil
}

// index files the line of every mapping key under its dotted path.
func index(n *yaml.Node, path string, out map[string]int) {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, k := range n.Content {
			index(k, path, out)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			p := n.Content[i].Value
			if path != "" {
				p = path + "." + p
			}
			out[p] = n.Content[i].Line
			index(n.Content[i+1], p, out)
		}
	}
}

// bad is a problem at the key path names.
func (c *Case) bad(path string, format string, args ...any) error {
	return &BadFileError{File: c.File, Line: c.lines[path], Err: fmt.Errorf(format, args...)}
}

// check refuses what decoding lets through: expectations on state paths
// the skill's schema rules out, fixtures and files outside their folders.
func (c *Case) check(s *plan.Skill) error {
	if c.Expect.Status != "" && !slices.Contains([]string{"completed", "failed", "aborted", "interrupted"}, c.Expect.Status) {
		return c.bad("expect.status", "expect.status %q: want completed, failed, aborted or interrupted", c.Expect.Status)
	}
	if ss := s.StateSchema; ss != nil && ss.Schema != nil {
		nav := &stateschema.Nav{Root: ss.Schema, Closed: ss.Source == "typescript"}
		for _, path := range sortedKeys(c.Expect.State) {
			fields := strings.Split(path, ".")
			if i, _ := nav.Lookup(fields); i >= 0 {
				return c.bad("expect.state."+path, "expect.state: %s: the state schema (%s) has no field %q", path, ss.File, strings.Join(fields[:i+1], "."))
			}
		}
	}
	for _, to := range sortedKeys(c.Files) {
		from := c.Files[to]
		switch {
		case !filepath.IsLocal(filepath.FromSlash(to)):
			return c.bad("files."+to, "fixture %q: the path in the work dir must stay in it", to)
		case !filepath.IsLocal(filepath.FromSlash(from)):
			return c.bad("files."+to, "fixture %q: %q leaves the skill's folder; fixtures are files of the skill", to, from)
		}
		if _, err := skillfs.Stat(s.Dir, from); err != nil {
			return c.bad("files."+to, "fixture %q: %v", to, err)
		}
	}
	for _, path := range sortedKeys(c.Expect.Files) {
		f := c.Expect.Files[path]
		if !filepath.IsLocal(filepath.FromSlash(path)) {
			return c.bad("expect.files."+path, "expect.files: %q is not a path in the work dir", path)
		}
		if f.Matches != "" {
			if _, err := regexp.Compile(f.Matches); err != nil {
				return c.bad("expect.files."+path+".matches", "expect.files %q: matches: %v", path, err)
			}
		}
		for key, p := range map[string]string{"equals": f.Equals, "schema": f.Schema} {
			if p != "" && !filepath.IsLocal(filepath.FromSlash(p)) {
				return c.bad("expect.files."+path+"."+key, "expect.files %q: %s %q leaves its folder", path, key, p)
			}
		}
	}
	if p := c.Agent.Cassette; p != "" && !filepath.IsLocal(filepath.FromSlash(p)) {
		return c.bad("agent.cassette", "agent.cassette %q: the cassette must be in the tests folder", p)
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
