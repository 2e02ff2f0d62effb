package lint

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"unicode"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/skillkit/skillkit/plan"
)

// sampleResult is a small report with every severity, a CJK line and a
// file-level finding.
func sampleResult() *Result {
	return &Result{
		Base:   "/nowhere",
		Skills: []string{"demo"},
		Findings: []Finding{
			{Rule: "link-broken", Severity: plan.SevError, Message: "link target x.md does not exist", File: "demo/SKILL.md", Line: 2, Col: 5, EndCol: 9, Skill: "demo"},
			{Rule: "state-unknown-field", Severity: plan.SevWarning, Message: "reads state.x, 50% sure: no,\nreally", File: "demo/中文 notes.md", Line: 1, Col: 3, Skill: "demo"},
			{Rule: "phase-no-steps", Severity: plan.SevInfo, Message: "phase has no steps", File: "demo/phases/02-x.md", Skill: "demo"},
		},
	}
}

var sampleSources = map[string]string{
	"demo/SKILL.md":       "# Demo\n\tSee [x](x.md).\n",
	"demo/中文 notes.md":    "状态：state.x\n",
	"demo/phases/02-x.md": "# X\n",
}

func readSample(p string) ([]byte, error) {
	s, ok := sampleSources[p]
	if !ok {
		return nil, os.ErrNotExist
	}
	return []byte(s), nil
}

func TestWriteText(t *testing.T) {
	var b bytes.Buffer
	if err := WriteText(&b, sampleResult(), TextOptions{ReadFile: readSample}); err != nil {
		t.Fatal(err)
	}
	want := "demo/SKILL.md:2:5: error: link target x.md does not exist [link-broken]\n" +
		"    \tSee [x](x.md).\n" +
		"    \t   ^^^^\n" +
		"demo/phases/02-x.md: info: phase has no steps [phase-no-steps]\n" +
		"demo/中文 notes.md:1:3: warning: reads state.x, 50% sure: no,\nreally [state-unknown-field]\n" +
		"    状态：state.x\n" +
		"        ^\n" +
		"1 error, 1 warning, 1 info in 1 skill\n"
	r := sampleResult()
	r.sort()
	b.Reset()
	if err := WriteText(&b, r, TextOptions{ReadFile: readSample}); err != nil {
		t.Fatal(err)
	}
	if b.String() != want {
		t.Errorf("text output\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	if err := WriteText(&b, r, TextOptions{ReadFile: readSample, Color: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), ansiRed) {
		t.Error("colour requested but no ANSI colour in the output")
	}
}

func TestWriteGitHub(t *testing.T) {
	var b bytes.Buffer
	if err := WriteGitHub(&b, sampleResult()); err != nil {
		t.Fatal(err)
	}
	want := "::error file=demo/SKILL.md,line=2,col=5,endColumn=9,title=link-broken::link target x.md does not exist\n" +
		"::warning file=demo/中文 notes.md,line=1,col=3,title=state-unknown-field::reads state.x, 50%25 sure: no,%0Areally\n" +
		"::notice file=demo/phases/02-x.md,title=phase-no-steps::phase has no steps\n"
	if b.String() != want {
		t.Errorf("github output\n%s\nwant\n%s", b.String(), want)
	}
}

func TestWriteJSON(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJSON(&b, sampleResult()); err != nil {
		t.Fatal(err)
	}
	var rep JSONReport
	if err := json.Unmarshal(b.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Version != JSONVersion || len(rep.Findings) != 3 || rep.Summary != (JSONSummary{Errors: 1, Warnings: 1, Infos: 1, Skills: 1}) {
		t.Errorf("json report = %+v", rep)
	}
	if strings.Contains(b.String(), `"line": 0`) {
		t.Error("unknown line written as 0, want it left out")
	}
	b.Reset()
	if err := WriteJSON(&b, &Result{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"findings": []`) {
		t.Errorf("empty report has no empty findings list: %s", b.String())
	}
}

// TestWriteSARIFValid validates the SARIF output against the official
// SARIF 2.1.0 schema (testdata/sarif-schema-2.1.0.json).
func TestWriteSARIFValid(t *testing.T) {
	c := jsonschema.NewCompiler()
	sch, err := c.Compile("testdata/sarif-schema-2.1.0.json")
	if err != nil {
		t.Fatal(err)
	}
	for name, opts := range map[string]SARIFOptions{
		"plain":     {},
		"with base": {ToolVersion: "v1.0.0", BaseURI: "file:///home/me/repo"},
	} {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteSARIF(&b, sampleResult(), opts); err != nil {
				t.Fatal(err)
			}
			var v any
			if err := json.Unmarshal(b.Bytes(), &v); err != nil {
				t.Fatal(err)
			}
			if err := sch.Validate(v); err != nil {
				t.Fatalf("SARIF output does not validate: %#v", err)
			}
			out := b.String()
			for _, want := range []string{`"uriBaseId": "SRCROOT"`, `"partialFingerprints"`, `"helpUri"`, `"uri": "demo/%E4%B8%AD%E6%96%87%20notes.md"`,
				`"startColumn": 3`} {
				if !strings.Contains(out, want) {
					t.Errorf("SARIF output lacks %s", want)
				}
			}
		})
	}
}

func TestSARIFFingerprintIgnoresLine(t *testing.T) {
	fp := func(line int) string {
		r := sampleResult()
		r.Findings = r.Findings[:1]
		r.Findings[0].Line = line
		var b bytes.Buffer
		if err := WriteSARIF(&b, r, SARIFOptions{}); err != nil {
			t.Fatal(err)
		}
		var log struct {
			Runs []struct {
				Results []struct {
					PartialFingerprints map[string]string `json:"partialFingerprints"`
				} `json:"results"`
			} `json:"runs"`
		}
		if err := json.Unmarshal(b.Bytes(), &log); err != nil {
			t.Fatal(err)
		}
		return log.Runs[0].Results[0].PartialFingerprints["skillkitFinding/v1"]
	}
	if a, b := fp(2), fp(40); a == "" || a != b {
		t.Errorf("fingerprints %q and %q: want equal and set when only the line moves", a, b)
	}
}

// TestWideIdeographs holds isWide's shortcut to the tables: every code
// point of the CJK Unified Ideographs block is Han.
func TestWideIdeographs(t *testing.T) {
	for r := rune(0x4E00); r <= 0x9FFF; r++ {
		if !unicode.Is(unicode.Han, r) {
			t.Fatalf("U+%04X is not Han: isWide's shortcut would call it wide", r)
		}
	}
}
