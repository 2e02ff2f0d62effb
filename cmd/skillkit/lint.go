package main

import (
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/skillkit/skillkit/lint"
)

// lintOptions are the flags of skillkit lint.
type lintOptions struct {
	format  string
	profile string
	config  string
	noColor bool
	fix     bool
	dryRun  bool
}

func newLintCmd(s Streams) *cobra.Command {
	var o lintOptions
	c := &cobra.Command{
		Use:   "lint [PATH...]",
		Short: "Check skills: front matter, layout, links, actions, code and state",
		Long: `lint checks skills without running anything from them. A PATH may be a skill
folder, a file of a skill (only that file's findings are shown), or a folder
holding many skills (every folder with a SKILL.md or a phases/ folder);
without PATH it lints the current directory.

Settings come from a skillkit.yaml in the linted folder (or --config):
rule severities (off, error, warning, info), ignore globs and the front
matter profile. Inline <!-- skillkit-disable-next-line rule-id --> and
<!-- skillkit-disable rule-id --> comments silence findings. The rules are
documented in docs/lint-rules.md.

Exit codes: 0 no error-level finding, 1 error-level findings, 2 usage error,
3 internal failure.

--fix applies the safe fixes (docs/lint-rules.md, "Fixes"), then reports
what is left; with --dry-run it prints them as a unified diff and changes
nothing.`,
		Example: `  skillkit lint .claude/skills
  skillkit lint my-skill --format sarif > lint.sarif
  skillkit lint . --format github --profile agentskills
  skillkit lint my-skill --fix --dry-run`,
		RunE: runE(func(c *cobra.Command, args []string) error {
			lint.TuneCollector()
			return lintRun(o, args, s, isTerminal(s.Out) && os.Getenv("NO_COLOR") == "")
		}),
	}
	f := c.Flags()
	f.StringVar(&o.format, "format", "text", "output format: text, json, sarif or github")
	f.StringVar(&o.profile, "profile", "", "front matter profile: auto (default: from the host folder, .claude/skills, .codex/skills, .pi/skills, else agentskills), claude-code, codex, pi or agentskills")
	f.StringVar(&o.config, "config", "", "configuration file to use instead of each folder's skillkit.yaml")
	f.BoolVar(&o.noColor, "no-color", false, "never colour the text output")
	f.BoolVar(&o.fix, "fix", false, "apply the safe fixes, then report what is left")
	f.BoolVar(&o.dryRun, "dry-run", false, "with --fix, print the fixes as a unified diff and change nothing")
	return c
}

// lintRun lints paths and writes the report; color says whether the
// output may be coloured (a terminal with NO_COLOR unset).
func lintRun(o lintOptions, paths []string, s Streams, color bool) error {
	switch o.format {
	case "text", "json", "sarif", "github":
	default:
		return usageErr(fmt.Errorf("--format %q is not text, json, sarif or github", o.format))
	}
	if o.dryRun && !o.fix {
		return usageErr(fmt.Errorf("--dry-run goes with --fix"))
	}
	if len(paths) == 0 {
		paths = []string{"."}
	}
	opts := lint.Options{Profile: o.profile, ConfigFile: o.config}
	if cwd, err := os.Getwd(); err == nil {
		opts.MCPProject = projectRoot(cwd)
	}
	if o.fix {
		done, err := lintFix(paths, opts, o.dryRun, s)
		if done || err != nil {
			return err
		}
	}
	res, err := lint.Lint(paths, opts)
	if lint.IsUsageError(err) {
		return usageErr(err)
	}
	if err != nil {
		return err
	}
	if err := writeLint(s.Out, res, o, color); err != nil {
		return err
	}
	if res.HasErrors() {
		return failed(nil)
	}
	return nil
}

// lintFix applies (or, dry, prints) the safe fixes; done is set when
// nothing more is to be done (a dry run).
func lintFix(paths []string, opts lint.Options, dry bool, s Streams) (done bool, err error) {
	fixed, err := lint.Fix(paths, opts)
	if lint.IsUsageError(err) {
		return true, usageErr(err)
	}
	if err != nil {
		return true, err
	}
	if dry {
		for _, f := range fixed {
			fmt.Fprint(s.Out, lint.UnifiedDiff(f.Path, f.Before, f.After))
		}
		return true, nil
	}
	if err := lint.WriteFixes(fixed); err != nil {
		return true, err
	}
	for _, f := range fixed {
		fmt.Fprintf(s.Err, "fixed %s\n", f.Path)
	}
	return false, nil
}

func writeLint(w io.Writer, res *lint.Result, o lintOptions, color bool) error {
	switch o.format {
	case "json":
		return lint.WriteJSON(w, res)
	case "sarif":
		base := (&url.URL{Scheme: "file", Path: filepath.ToSlash(res.Base) + "/"}).String()
		return lint.WriteSARIF(w, res, lint.SARIFOptions{ToolVersion: version, BaseURI: base})
	case "github":
		return lint.WriteGitHub(w, res)
	}
	return lint.WriteText(w, res, lint.TextOptions{Color: color && !o.noColor})
}
