package main

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"
)

// TestProblemMatcher checks that the problem matcher for GitHub reads the
// lines lint's text format writes: file, line, column, severity, message
// and rule.
func TestProblemMatcher(t *testing.T) {
	data, err := os.ReadFile("../../.github/skillkit-matcher.json")
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		ProblemMatcher []struct {
			Pattern []struct{ Regexp string } `json:"pattern"`
		} `json:"problemMatcher"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(m.ProblemMatcher[0].Pattern[0].Regexp)
	dir := t.TempDir()
	skill := dir + "/bad"
	must(t, os.MkdirAll(skill+"/phases", 0o755))
	must(t, os.WriteFile(skill+"/SKILL.md", []byte("---\nname: other\ndescription: x\n---\n# Bad\n"), 0o644))
	must(t, os.WriteFile(skill+"/phases/01-x.md", []byte("# Phase 1: X\n## Execution\n```js\nconst = 1\n```\n"), 0o644))
	code, out, stderr := run("lint", "--no-color", skill)
	if code != ExitFailed {
		t.Fatalf("lint exit %d, want 1: %s", code, stderr)
	}
	matched := 0
	for _, line := range strings.Split(out, "\n") {
		if mm := re.FindStringSubmatch(line); mm != nil {
			matched++
			if !strings.HasSuffix(mm[1], ".md") || mm[4] == "" || mm[6] == "" {
				t.Errorf("line %q read as file %q severity %q rule %q", line, mm[1], mm[4], mm[6])
			}
		}
	}
	if matched < 2 {
		t.Errorf("the matcher read %d finding lines of:\n%s", matched, out)
	}
}

// TestActionAndHookFiles checks that action.yml and .pre-commit-hooks.yaml
// parse and only use flags of skillkit lint and skillkit test that exist.
func TestActionAndHookFiles(t *testing.T) {
	flags := map[string][]string{}
	for _, c := range newRootCmd(Streams{}).Commands() {
		if c.Name() == "lint" || c.Name() == "test" {
			c.Flags().VisitAll(func(f *pflag.Flag) { flags[c.Name()] = append(flags[c.Name()], "--"+f.Name) })
		}
	}
	for _, file := range []string{"../../action.yml", "../../.pre-commit-hooks.yaml"} {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if err := yaml.Unmarshal(data, &v); err != nil {
			t.Errorf("%s: %v", file, err)
		}
		for _, used := range regexp.MustCompile(`skillkit (lint|test)((?: --[a-z-]+(?: "[^"]*"| [a-z$"{}A-Z_]+)?)*)`).FindAllStringSubmatch(string(data), -1) {
			for _, f := range regexp.MustCompile(`--[a-z-]+`).FindAllString(used[2], -1) {
				if !slices.Contains(flags[used[1]], f) {
					t.Errorf("%s uses %s, which skillkit %s does not have (it has %v)", file, f, used[1], flags[used[1]])
				}
			}
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
