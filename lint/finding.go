package lint

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/skillkit/skillkit/plan"
)

// Finding is one problem lint found.
type Finding struct {
	Rule     string        `json:"rule"`
	Severity plan.Severity `json:"severity"`
	Message  string        `json:"message"`
	// File is the file's path relative to the report's base folder, with
	// forward slashes.
	File string `json:"file"`
	// Line and Col are 1-based, Col in Unicode code points. A finding
	// about a whole file is at line 1 with no column; Line is 0 only for
	// a finding about the skill folder itself.
	Line int `json:"line,omitempty"`
	Col  int `json:"col,omitempty"`
	// EndCol is the code-point column just past the end of what the
	// finding is about, 0 when unknown.
	EndCol int `json:"endCol,omitempty"`
	// Skill is the skill folder, relative to the base folder.
	Skill string `json:"skill"`
	// Fix holds the edits of a safe fix (skillkit lint --fix), files
	// relative to the base folder; empty when there is none.
	Fix []Edit `json:"fix,omitempty"`
}

// Edit replaces whole lines of a file: Line to EndLine (1-based,
// inclusive) by Lines. EndLine is Line-1 for an insertion before Line.
// Whole lines keep an edit free of column units, so the same edit applies
// on disk, in an editor (LSP) and in a diff.
type Edit struct {
	File    string   `json:"file"`
	Line    int      `json:"line"`
	EndLine int      `json:"endLine"`
	Lines   []string `json:"lines"`
}

// String formats the finding as file:line:col: severity: message [rule].
func (f Finding) String() string {
	return fmt.Sprintf("%s: %s: %s [%s]", f.location(), f.Severity, f.Message, f.Rule)
}

func (f Finding) location() string {
	return plan.Pos{File: f.File, Line: f.Line, Col: f.Col}.String()
}

// compareFindings orders findings by file, line, column, rule, message.
func compareFindings(a, b Finding) int {
	return cmp.Or(
		strings.Compare(a.File, b.File),
		cmp.Compare(a.Line, b.Line),
		cmp.Compare(a.Col, b.Col),
		strings.Compare(a.Rule, b.Rule),
		strings.Compare(a.Message, b.Message),
	)
}

// Result is the outcome of a lint run.
type Result struct {
	// Base is the folder that finding paths are relative to.
	Base string `json:"-"`
	// Skills are the skill folders linted, relative to Base, sorted.
	Skills   []string  `json:"skills"`
	Findings []Finding `json:"findings"`
}

// Count returns how many findings have the severity.
func (r *Result) Count(sev plan.Severity) int {
	n := 0
	for _, f := range r.Findings {
		if f.Severity == sev {
			n++
		}
	}
	return n
}

// HasErrors reports whether any finding is at error level.
func (r *Result) HasErrors() bool { return r.Count(plan.SevError) > 0 }

func (r *Result) sort() {
	slices.SortFunc(r.Findings, compareFindings)
	r.Findings = slices.CompactFunc(r.Findings, func(a, b Finding) bool {
		return a.Rule == b.Rule && a.File == b.File && a.Line == b.Line && a.Col == b.Col && a.Message == b.Message
	})
}
