package lint

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"strings"
)

// SARIFVersion is the SARIF version WriteSARIF writes.
const SARIFVersion = "2.1.0"

// sarifSchemaURI is where SARIF 2.1.0's schema is published.
const sarifSchemaURI = "https://json.schemastore.org/sarif-2.1.0.json"

// uriBaseID names the folder result paths are relative to.
const uriBaseID = "SRCROOT"

// SARIFOptions tune the sarif format.
type SARIFOptions struct {
	// ToolVersion is skillkit's version, written as the driver's version
	// when set.
	ToolVersion string
	// BaseURI is the absolute URI (file:///…/) of the folder paths are
	// relative to. When set it is written as the run's originalUriBaseIds,
	// so consumers can resolve the relative paths; when empty the paths
	// stay relative to an unnamed SRCROOT, as code scanning expects.
	BaseURI string
}

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool               sarifTool                   `json:"tool"`
	OriginalURIBaseIDs map[string]sarifArtifactLoc `json:"originalUriBaseIds,omitempty"`
	Results            []sarifResult               `json:"results"`
	ColumnKind         string                      `json:"columnKind"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifRule struct {
	ID                   string      `json:"id"`
	Name                 string      `json:"name"`
	ShortDescription     sarifText   `json:"shortDescription"`
	HelpURI              string      `json:"helpUri"`
	DefaultConfiguration sarifConfig `json:"defaultConfiguration"`
}

type sarifConfig struct {
	Level string `json:"level"`
}

type sarifResult struct {
	RuleID              string            `json:"ruleId"`
	RuleIndex           int               `json:"ruleIndex"`
	Level               string            `json:"level"`
	Message             sarifText         `json:"message"`
	Locations           []sarifLocation   `json:"locations"`
	PartialFingerprints map[string]string `json:"partialFingerprints"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifactLoc `json:"artifactLocation"`
	Region           *sarifRegion     `json:"region,omitempty"`
}

type sarifArtifactLoc struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId,omitempty"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
	EndColumn   int `json:"endColumn,omitempty"`
}

// sarifLevel maps a severity onto SARIF's levels.
func sarifLevel(sev string) string {
	switch sev {
	case "error":
		return "error"
	case "warning":
		return "warning"
	}
	return "note"
}

// WriteSARIF writes the result as a SARIF 2.1.0 log with one run: every
// rule's metadata, and each finding with a path relative to SRCROOT and a
// partial fingerprint that survives lines moving.
func WriteSARIF(w io.Writer, r *Result, opts SARIFOptions) error {
	driver := sarifDriver{Name: "skillkit", Version: opts.ToolVersion, InformationURI: DocsURL}
	index := map[string]int{}
	for i, rule := range allRules {
		index[rule.ID()] = i
		driver.Rules = append(driver.Rules, sarifRule{
			ID: rule.ID(), Name: ruleName(rule.ID()),
			ShortDescription:     sarifText{Text: rule.Description()},
			HelpURI:              rule.DocsURL(),
			DefaultConfiguration: sarifConfig{Level: sarifLevel(string(rule.Severity()))},
		})
	}
	run := sarifRun{Tool: sarifTool{Driver: driver}, Results: []sarifResult{}, ColumnKind: "unicodeCodePoints"}
	if opts.BaseURI != "" {
		base := opts.BaseURI
		if !strings.HasSuffix(base, "/") {
			base += "/"
		}
		run.OriginalURIBaseIDs = map[string]sarifArtifactLoc{uriBaseID: {URI: base}}
	}
	seen := map[string]int{}
	for _, f := range r.Findings {
		loc := sarifPhysical{ArtifactLocation: sarifArtifactLoc{URI: relativeURI(f.File), URIBaseID: uriBaseID}}
		if f.Line > 0 {
			// Finding columns are code points already, as SARIF counts.
			loc.Region = &sarifRegion{StartLine: f.Line, StartColumn: f.Col}
			if f.EndCol > f.Col && f.Col > 0 {
				loc.Region.EndColumn = f.EndCol
			}
		}
		// The fingerprint leaves the line out, so a finding keeps its
		// identity when lines above it move; a count tells apart equal
		// findings in one file.
		key := f.Rule + "\x00" + f.File + "\x00" + f.Message
		seen[key]++
		sum := sha256.Sum256([]byte(fmt.Sprintf("%s\x00%d", key, seen[key])))
		i, ok := index[f.Rule]
		if !ok {
			return fmt.Errorf("writing sarif: finding of unknown rule %q", f.Rule)
		}
		run.Results = append(run.Results, sarifResult{
			RuleID: f.Rule, RuleIndex: i, Level: sarifLevel(string(f.Severity)),
			Message:             sarifText{Text: f.Message},
			Locations:           []sarifLocation{{PhysicalLocation: loc}},
			PartialFingerprints: map[string]string{"skillkitFinding/v1": hex.EncodeToString(sum[:16])},
		})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(sarifLog{Schema: sarifSchemaURI, Version: SARIFVersion, Runs: []sarifRun{run}}); err != nil {
		return fmt.Errorf("writing sarif: %w", err)
	}
	return nil
}

// relativeURI escapes a slash path as a relative URI reference.
func relativeURI(p string) string {
	return (&url.URL{Path: p}).String()
}

// ruleName turns a rule id into SARIF's PascalCase rule name.
func ruleName(id string) string {
	var b strings.Builder
	for _, part := range strings.Split(id, "-") {
		if part != "" {
			b.WriteString(strings.ToUpper(part[:1]) + part[1:])
		}
	}
	return b.String()
}
