package skilltest

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"time"
)

// Summary counts results.
type Summary struct {
	Passed, Failed, Bad int
}

// Summarize counts results.
func Summarize(results []*Result) Summary {
	var s Summary
	for _, r := range results {
		switch {
		case r.Bad != "":
			s.Bad++
		case len(r.Failures) > 0:
			s.Failed++
		default:
			s.Passed++
		}
	}
	return s
}

// WriteText writes a line per case, the reasons of each failure under
// it, and a summary line.
func WriteText(w io.Writer, results []*Result, total time.Duration) error {
	var b strings.Builder
	for _, r := range results {
		name := r.Skill + "/" + r.Case
		switch {
		case r.Bad != "":
			fmt.Fprintf(&b, "BAD  %s: %s\n", name, r.Bad)
		case len(r.Failures) > 0:
			fmt.Fprintf(&b, "FAIL %s (%v) %s\n", name, r.Duration.Round(time.Millisecond), r.File)
			for _, f := range r.Failures {
				fmt.Fprintf(&b, "     %s\n", strings.ReplaceAll(f, "\n", "\n     "))
			}
		default:
			fmt.Fprintf(&b, "ok   %s (%v)\n", name, r.Duration.Round(time.Millisecond))
		}
		for _, c := range r.Changes {
			fmt.Fprintf(&b, "     updated: %s\n", c)
		}
	}
	s := Summarize(results)
	fmt.Fprintf(&b, "%d passed, %d failed, %d bad test file(s) in %v\n", s.Passed, s.Failed, s.Bad, total.Round(time.Millisecond))
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteJSON writes the results as one JSON document.
func WriteJSON(w io.Writer, results []*Result) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		Summary
		Results []*Result `json:"results"`
	}{Summarize(results), results})
}

// junit is the JUnit XML that CI systems read: a suite per skill.
type junitSuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	ClassName string        `xml:"classname,attr"`
	File      string        `xml:"file,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Error     *junitMessage `xml:"error,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes the results as JUnit XML; a bad test file is an
// error, a failed case a failure.
func WriteJUnit(w io.Writer, results []*Result) error {
	var out junitSuites
	index := map[string]int{}
	for _, r := range results {
		i, ok := index[r.Skill]
		if !ok {
			i = len(out.Suites)
			index[r.Skill] = i
			out.Suites = append(out.Suites, junitSuite{Name: r.Skill})
		}
		s := &out.Suites[i]
		c := junitCase{Name: r.Case, ClassName: r.Skill, File: r.File, Time: fmt.Sprintf("%.3f", r.Duration.Seconds())}
		switch {
		case r.Bad != "":
			s.Errors++
			c.Error = &junitMessage{Message: "bad test file", Text: r.Bad}
		case len(r.Failures) > 0:
			s.Failures++
			c.Failure = &junitMessage{Message: firstLine(r.Failures[0]), Text: strings.Join(r.Failures, "\n")}
		}
		s.Tests++
		s.Cases = append(s.Cases, c)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func firstLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}
