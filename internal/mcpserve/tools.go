package mcpserve

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillkit/skillkit/internal/gate"
	"github.com/skillkit/skillkit/internal/run"
	"github.com/skillkit/skillkit/internal/runstore"
	"github.com/skillkit/skillkit/internal/script"
	"github.com/skillkit/skillkit/internal/skilltest"
	"github.com/skillkit/skillkit/lint"
	"github.com/skillkit/skillkit/parse"
	"github.com/skillkit/skillkit/plan"
)

// maxOutput bounds the text a tool returns of a run's or test's output:
// its tail, which holds the end and the error. The logs keep all of it.
const maxOutput = 64 << 10

// tail is the last maxOutput bytes of b.
func tail(b *bytes.Buffer) string {
	s := b.String()
	if len(s) > maxOutput {
		s = "…" + s[len(s)-maxOutput:]
	}
	return s
}

type lintIn struct {
	Path    string `json:"path,omitempty" jsonschema:"a skill folder, a file of a skill, or a folder holding skills; relative to the server's folder; default the server's folder"`
	Profile string `json:"profile,omitempty" jsonschema:"front matter profile: claude-code, codex, pi or agentskills; default from the host folder"`
}

// finding is a lint finding as the lint tool returns it.
type finding struct {
	File     string `json:"file" jsonschema:"the file, relative to the server's folder"`
	Line     int    `json:"line,omitempty"`
	Col      int    `json:"col,omitempty"`
	Severity string `json:"severity" jsonschema:"error, warning or info"`
	Rule     string `json:"rule" jsonschema:"the rule's id, documented in docs/lint-rules.md"`
	Message  string `json:"message"`
}

type lintOut struct {
	Errors   int       `json:"errors"`
	Warnings int       `json:"warnings"`
	Infos    int       `json:"infos"`
	Findings []finding `json:"findings"`
	// Text is the findings as `skillkit lint` prints them, with source.
	Text string `json:"text"`
}

func (h *handlers) lint(ctx context.Context, req *mcp.CallToolRequest, in lintIn) (*mcp.CallToolResult, lintOut, error) {
	res, err := lint.Lint([]string{h.path(in.Path)}, lint.Options{Profile: in.Profile, Base: h.o.Base})
	if err != nil {
		return nil, lintOut{}, err
	}
	out := lintOut{Errors: res.Count(plan.SevError), Warnings: res.Count(plan.SevWarning), Infos: res.Count(plan.SevInfo), Findings: []finding{}}
	for _, f := range res.Findings {
		out.Findings = append(out.Findings, finding{File: f.File, Line: f.Line, Col: f.Col, Severity: string(f.Severity), Rule: f.Rule, Message: f.Message})
	}
	var b bytes.Buffer
	if err := lint.WriteText(&b, res, lint.TextOptions{}); err != nil {
		return nil, lintOut{}, err
	}
	out.Text = b.String()
	return nil, out, nil
}

type skillIn struct {
	Skill string `json:"skill" jsonschema:"the skill's folder, relative to the server's folder"`
}

// work is a piece of a skill that goes to the agent.
type work struct {
	Pos    string `json:"pos" jsonschema:"file:line:col, relative to the skill folder"`
	What   string `json:"what" jsonschema:"the step, the Decision Logic or the action"`
	Reason string `json:"reason"`
	Sure   bool   `json:"sure" jsonschema:"a run is sure to reach it: without an agent it is refused unless partial"`
}

type planOut struct {
	Name string `json:"name"`
	Mode string `json:"mode" jsonschema:"sequential, autonomous, hybrid, or what else the skill is"`
	// AgentWork lists what goes to the agent, in the order a run meets it.
	AgentWork []work `json:"agentWork"`
	// Errors are what the parser could not read, at file:line.
	Errors []string `json:"errors,omitempty"`
	// Summary is the plan as `skillkit plan` prints it.
	Summary string `json:"summary"`
}

func (h *handlers) plan(ctx context.Context, req *mcp.CallToolRequest, in skillIn) (*mcp.CallToolResult, planOut, error) {
	s, err := h.readSkill(in.Skill)
	if err != nil {
		return nil, planOut{}, err
	}
	out := planOut{Name: s.Name, Mode: string(s.Mode), AgentWork: []work{}}
	for _, w := range gate.AgentWork(s) {
		out.AgentWork = append(out.AgentWork, work{Pos: w.Pos.String(), What: w.What, Reason: w.Reason, Sure: w.Sure})
	}
	for _, d := range s.Diagnostics {
		if d.Severity == plan.SevError {
			out.Errors = append(out.Errors, fmt.Sprintf("%s: %s [%s]", d.Pos, d.Message, d.Code))
		}
	}
	var b bytes.Buffer
	if err := s.WriteSummary(&b); err != nil {
		return nil, planOut{}, err
	}
	out.Summary = b.String()
	return nil, out, nil
}

// readSkill parses the skill a tool names.
func (h *handlers) readSkill(dir string) (*plan.Skill, error) {
	if dir == "" {
		return nil, errors.New("skill: name the skill's folder")
	}
	p := h.path(dir)
	if st, err := os.Stat(p); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("skill %q: no skill folder at %s", dir, p)
	}
	return parse.Dir(p)
}

type runIn struct {
	Skill  string            `json:"skill" jsonschema:"the skill's folder, relative to the server's folder"`
	Inputs map[string]string `json:"inputs,omitempty" jsonschema:"the skill's inputs, key to value (run's --input)"`
	Args   []string          `json:"args,omitempty" jsonschema:"the skill's arguments ($ARGUMENTS); a resume keeps the run's own"`
	Resume string            `json:"resume,omitempty" jsonschema:"resume this run (an id from an earlier run or status) instead of starting one"`
	Retry  bool              `json:"retry,omitempty" jsonschema:"with resume: run a failed run again from where it failed, after a fix"`
	// Partial is run's --partial.
	Partial bool `json:"partial,omitempty" jsonschema:"without an agent on the server: run up to the first agent work and stop there, resumable, instead of being refused"`
	Strict  bool `json:"strict,omitempty" jsonschema:"refuse a skill with any lint error or with code that goes to the agent"`
}

type runOut struct {
	RunID string `json:"runId"`
	State string `json:"state" jsonschema:"completed, failed, aborted or interrupted (resumable)"`
	// Where the run stands: its phase (or the loop) and step.
	Phase string `json:"phase,omitempty"`
	Step  int    `json:"step,omitempty"`
	// StoppedBy is why a run that did not complete stopped.
	StoppedBy string `json:"stoppedBy,omitempty"`
	// Next says how to go on from here, when the run can.
	Next    string `json:"next,omitempty"`
	Dir     string `json:"dir"`
	WorkDir string `json:"workDir"`
	// Output is the run's progress lines (their tail).
	Output string `json:"output"`
}

func (h *handlers) run(ctx context.Context, req *mcp.CallToolRequest, in runIn) (*mcp.CallToolResult, runOut, error) {
	s, err := h.readSkill(in.Skill)
	if err != nil {
		return nil, runOut{}, err
	}
	b := newRunLog(ctx, req)
	defer b.close()
	a := h.newAgent()
	g := gate.Options{Base: h.o.Base, Strict: in.Strict, NoAgent: a == nil, Partial: in.Partial, Out: b}
	opts := run.Options{
		Skill: s, Store: h.o.Store, Resume: in.Resume, Retry: in.Retry, Inputs: in.Inputs, Args: in.Args,
		ProjectDir: h.o.ProjectDir, Strict: in.Strict, Agent: a, Validate: g.Validator(),
		// Nobody answers a question on stdio: confirmations take their
		// defaults, and AskUserQuestion its first option.
		Yes: true, Answers: script.Yes{}, Out: b, Observe: run.PlainObserver(b),
	}
	res, err := run.Run(ctx, opts)
	if res == nil {
		if err == nil {
			err = errors.New("the run ended with no record")
		}
		return nil, runOut{}, fmt.Errorf("%s%w", b.String(), err)
	}
	out := runOut{RunID: res.ID, State: string(res.State), Dir: res.Dir, WorkDir: res.WorkDir}
	if sum, serr := h.o.Store.Status(res.ID); serr == nil {
		out.Phase, out.Step = sum.Progress.Phase, sum.Progress.CurrentStep
	}
	if err != nil {
		out.StoppedBy = err.Error()
		switch {
		case res.State == runstore.RunInterrupted:
			out.Next = fmt.Sprintf("call run with resume %q to go on (with an agent on the server where the stop needs one)", res.ID)
		case res.State.Retryable():
			out.Next = fmt.Sprintf("after a fix, call run with resume %q and retry true", res.ID)
		}
	}
	out.Output = b.String()
	return nil, out, nil
}

type statusIn struct {
	Run string `json:"run,omitempty" jsonschema:"a run id; default the newest run"`
}

type statusOut struct {
	RunID     string `json:"runId"`
	Skill     string `json:"skill"`
	State     string `json:"state"`
	StepsDone int    `json:"stepsDone"`
	Phase     string `json:"phase,omitempty"`
	Step      int    `json:"step,omitempty"`
	Error     string `json:"error,omitempty"`
	// Text is the status as `skillkit status` prints it.
	Text string `json:"text"`
}

func (h *handlers) status(ctx context.Context, req *mcp.CallToolRequest, in statusIn) (*mcp.CallToolResult, statusOut, error) {
	sum, err := h.o.Store.Status(in.Run)
	if err != nil {
		return nil, statusOut{}, err
	}
	out := statusOut{RunID: sum.ID, Skill: sum.Skill, State: string(sum.State), StepsDone: sum.StepsDone,
		Phase: sum.Progress.Phase, Step: sum.Progress.CurrentStep}
	if e := sum.Progress.Error; e != nil {
		out.Error = e.Message
	}
	var b bytes.Buffer
	if err := runstore.WriteStatus(&b, sum); err != nil {
		return nil, statusOut{}, err
	}
	out.Text = b.String()
	return nil, out, nil
}

type testIn struct {
	Path string `json:"path,omitempty" jsonschema:"a skill folder, or a folder holding skills with tests/*.yaml; default the server's folder"`
	Run  string `json:"run,omitempty" jsonschema:"run only the cases whose skill/case name matches this regular expression"`
}

type testOut struct {
	Passed int `json:"passed"`
	Failed int `json:"failed"`
	// Bad counts test files or cassettes that cannot be used.
	Bad int `json:"bad"`
	// Text is the report as `skillkit test` prints it.
	Text string `json:"text"`
}

func (h *handlers) test(ctx context.Context, req *mcp.CallToolRequest, in testIn) (*mcp.CallToolResult, testOut, error) {
	var filter *regexp.Regexp
	if in.Run != "" {
		var err error
		if filter, err = regexp.Compile(in.Run); err != nil {
			return nil, testOut{}, fmt.Errorf("run: %w", err)
		}
	}
	start := time.Now()
	found, err := skilltest.Find([]string{h.path(in.Path)}, filter, h.o.ProjectDir)
	if err != nil {
		return nil, testOut{}, err
	}
	results := skilltest.RunAll(ctx, found, skilltest.Options{ExitCode: h.o.ExitCode, Env: os.Environ()}, 1)
	var b bytes.Buffer
	if err := skilltest.WriteText(&b, results, time.Since(start)); err != nil {
		return nil, testOut{}, err
	}
	sum := skilltest.Summarize(results)
	return nil, testOut{Passed: sum.Passed, Failed: sum.Failed, Bad: sum.Bad, Text: strings.TrimRight(tail(&b), "\n")}, nil
}
