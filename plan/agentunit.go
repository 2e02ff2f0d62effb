package plan

import (
	"fmt"
	"strings"
)

// TestsDir is the folder of a skill that holds skillkit's test files
// (package skilltest): skillkit's, not the skill's, so the agent unit's
// listing leaves it out, with skillkit.yaml, and a recorded test replays.
const TestsDir = "tests"

// maxListing bounds the file listing of an agent unit: a skill with
// thousands of bundled files would otherwise fill the prompt with names.
const maxListing = 200

// AgentReason says why a skill of ModeAgent is not run natively, in
// words a person can act on; "" for any other mode. Lint's mode-agent
// finding and the agent unit's class both say it, so they agree.
func (s *Skill) AgentReason() string {
	if s.Mode != ModeAgent {
		return ""
	}
	for _, f := range s.Files {
		if f == "phases" {
			return "phases is a file, not a folder: with no phases/ folder holding numbered phase files (01-name.md), orchestrator.md or actions/, " + s.Entry + " is the whole instruction and the skill runs as one agent unit"
		}
		if strings.HasPrefix(f, "phases/") {
			return "phases/ holds no numbered phase file (01-name.md), no orchestrator.md and no actions/: skillkit cannot order its files, so " + s.Entry + " is the whole instruction and the skill runs as one agent unit"
		}
	}
	return s.Entry + " has no numbered phase, orchestrator or action: it is the whole instruction, and the skill runs as one agent unit, as Claude Code runs it"
}

// AgentUnit is what a ModeAgent skill runs: one phase of one agent step,
// the way Claude Code runs a plain skill. The agent already gets the
// entry's body as [CONTEXT]; the step tells it to follow it and lists
// the skill's other files (references, scripts, assets), which the entry
// names by relative path and the agent reads or runs from SKILL_DIR as
// the entry says. Nil for any other mode.
//
// Bundled scripts are not run natively: SKILL.md names them but leaves
// their arguments to the model ("run scripts/fill.py with the fields"),
// so only the agent can run them (docs/runtime.md).
func (s *Skill) AgentUnit() *Phase {
	if s.Mode != ModeAgent || s.Body == nil {
		return nil
	}
	pos := Pos{File: s.Entry, Line: 1, Col: 1}
	var b strings.Builder
	fmt.Fprintf(&b, "Do what the skill %s is for, following its instructions in [CONTEXT] (%s): they are the whole skill.", s.Name, s.Entry)
	b.WriteString(" Read the files it refers to from SKILL_DIR when it says to, and run its bundled scripts as it says, with the arguments the task needs.")
	b.WriteString(" Work in WORK_DIR.\n")
	var files []string
	for _, f := range s.Files {
		if f != s.Entry && f != ConfigFile && !strings.HasPrefix(f, TestsDir+"/") {
			files = append(files, f)
		}
	}
	if len(files) > 0 {
		b.WriteString("\nThe skill's files, relative to SKILL_DIR:\n")
		for i, f := range files {
			if i == maxListing {
				fmt.Fprintf(&b, "- … and %d more\n", len(files)-maxListing)
				break
			}
			fmt.Fprintf(&b, "- %s\n", f)
		}
	}
	title := s.Name
	if title == "" {
		title = s.Entry
	}
	step := &Step{
		Title: title, Pos: pos, Text: b.String(), Whole: true,
		Class: Class{Kind: ClassAgent, Reason: s.AgentReason(), Pos: pos},
	}
	return &Phase{Doc: s.Body, Title: title, Steps: []*Step{step}}
}
