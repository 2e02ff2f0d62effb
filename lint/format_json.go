package lint

import (
	"encoding/json"
	"fmt"
	"io"
)

// JSONVersion is the version of the json format's shape. It changes only
// when a field is removed or changes meaning; new fields may appear
// without a change.
const JSONVersion = 1

// JSONReport is the json format (docs/lint-rules.md, "JSON output"):
//
//	{"version": 1, "skills": [...], "findings": [{"rule", "severity",
//	 "message", "file", "line", "col", "endCol", "skill"}],
//	 "summary": {"errors", "warnings", "infos", "skills"}}
//
// Paths are relative to the folder lint reported against, with forward
// slashes; line, col and endCol are omitted when unknown.
type JSONReport struct {
	Version  int         `json:"version"`
	Skills   []string    `json:"skills"`
	Findings []Finding   `json:"findings"`
	Summary  JSONSummary `json:"summary"`
}

// JSONSummary counts the findings by severity.
type JSONSummary struct {
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	Infos    int `json:"infos"`
	Skills   int `json:"skills"`
}

// WriteJSON writes the result in the json format.
func WriteJSON(w io.Writer, r *Result) error {
	rep := JSONReport{
		Version: JSONVersion, Skills: r.Skills, Findings: r.Findings,
		Summary: JSONSummary{Errors: r.Count("error"), Warnings: r.Count("warning"), Infos: r.Count("info"), Skills: len(r.Skills)},
	}
	if rep.Skills == nil {
		rep.Skills = []string{}
	}
	if rep.Findings == nil {
		rep.Findings = []Finding{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(rep); err != nil {
		return fmt.Errorf("writing json: %w", err)
	}
	return nil
}
