package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"regexp"
	"strings"
)

// count prints the number of findings in a tool's report.
func count(args []string) error {
	if len(args) != 2 {
		return errors.New("count TOOL FILE")
	}
	tool, file := args[0], args[1]
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	n, err := findings(tool, data)
	if err != nil {
		return fmt.Errorf("counting %s findings in %s: %w", tool, file, err)
	}
	fmt.Println(n)
	return nil
}

var mdlSummary = regexp.MustCompile(`(?m)^Summary: (\d+) error`)

func findings(tool string, data []byte) (int, error) {
	switch tool {
	case "skillkit":
		var r struct {
			Findings []json.RawMessage `json:"findings"`
		}
		err := json.Unmarshal(data, &r)
		return len(r.Findings), err
	case "skill-check":
		var r struct {
			Diagnostics []json.RawMessage `json:"diagnostics"`
		}
		err := json.Unmarshal(data, &r)
		return len(r.Diagnostics), err
	case "claudelint":
		var r struct {
			Validators []struct {
				Errors   []json.RawMessage `json:"errors"`
				Warnings []json.RawMessage `json:"warnings"`
				Infos    []json.RawMessage `json:"infos"`
			} `json:"validators"`
		}
		err := json.Unmarshal(data, &r)
		n := 0
		for _, v := range r.Validators {
			n += len(v.Errors) + len(v.Warnings) + len(v.Infos)
		}
		return n, err
	case "markdownlint":
		m := mdlSummary.FindSubmatch(data)
		if m == nil {
			return 0, errors.New("no Summary line")
		}
		var n int
		_, err := fmt.Sscan(string(m[1]), &n)
		return n, err
	case "skills-ref":
		// One "  - problem" line per finding, after "Validation failed for X:".
		n := 0
		for _, l := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(l, "  - ") {
				n++
			}
		}
		return n, nil
	}
	return 0, fmt.Errorf("unknown tool %q", tool)
}

// unparsable prints, one per line as "folder/", the skills whose front
// matter skillkit lint's JSON report (FILE) says is not valid YAML: the
// .claudelintignore that lets claudelint check the rest, as its skill
// validator gives up at the first such skill.
func unparsable(args []string) error {
	if len(args) != 1 {
		return errors.New("unparsable SKILLKIT-JSON-REPORT")
	}
	data, err := os.ReadFile(args[0])
	if err != nil {
		return err
	}
	var r struct {
		Findings []struct {
			Rule string `json:"rule"`
			File string `json:"file"`
		} `json:"findings"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return fmt.Errorf("reading %s: %w", args[0], err)
	}
	for _, f := range r.Findings {
		if f.Rule == "frontmatter-yaml" {
			fmt.Println(path.Dir(f.File) + "/")
		}
	}
	return nil
}

// hyperfine prints the mean and standard deviation, in seconds, of the
// first command of a hyperfine --export-json file.
func hyperfine(args []string) error {
	if len(args) != 1 {
		return errors.New("hyperfine FILE")
	}
	data, err := os.ReadFile(args[0])
	if err != nil {
		return err
	}
	var r struct {
		Results []struct {
			Mean   float64  `json:"mean"`
			Stddev *float64 `json:"stddev"`
		} `json:"results"`
	}
	if err := json.Unmarshal(data, &r); err != nil || len(r.Results) == 0 {
		return fmt.Errorf("reading %s: no results (%v)", args[0], err)
	}
	sd := 0.0
	if r.Results[0].Stddev != nil {
		sd = *r.Results[0].Stddev
	}
	fmt.Printf("%.6f %.6f\n", r.Results[0].Mean, sd)
	return nil
}
