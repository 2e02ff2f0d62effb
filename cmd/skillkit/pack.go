package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/skillkit/skillkit/internal/skillpack"
	"github.com/skillkit/skillkit/lint"
	"github.com/skillkit/skillkit/parse"
	"github.com/skillkit/skillkit/plan"
)

func newPackCmd() *cobra.Command {
	var out, checkFile string
	c := &cobra.Command{
		Use:   "pack SKILL | pack --check FILE",
		Short: "Pack a skill as a .skill archive, or check one",
		Long: `pack writes SKILL as a .skill archive: a zip with the skill's folder at its
top, the layout of Anthropic's skill-creator, which Claude's apps install.
The skill must lint without errors first. The archive is reproducible (its
entries sorted, their times fixed: the same skill gives the same bytes) and
carries the skill's hash, the one a run records, in its zip comment.
.git, node_modules and .skillkit folders are left out, as the parser
leaves them out of the skill; a symlink is packed as its file, and refused
when that file is outside the skill.

--check FILE validates an archive before it is installed: one folder with
a SKILL.md, no path that leaves it, no symlink, no entry twice, and files
whose hash is the one the archive carries. It prints the skill's name,
file count and hash.`,
		Example: `  skillkit pack examples/sequential
  skillkit pack my-skill -o dist/my-skill.skill
  skillkit pack --check sequential.skill`,
		Args: func(c *cobra.Command, args []string) error {
			if checkFile != "" {
				return cobra.NoArgs(c, args)
			}
			return cobra.ExactArgs(1)(c, args)
		},
		RunE: runE(func(c *cobra.Command, args []string) error {
			if checkFile != "" {
				data, err := os.ReadFile(checkFile)
				if err != nil {
					return usageErr(err)
				}
				info, err := skillpack.Check(bytes.NewReader(data), int64(len(data)))
				if err != nil {
					return failed(fmt.Errorf("%s: %w", checkFile, err))
				}
				_, err = fmt.Fprintf(c.OutOrStdout(), "%s: skill %s, %d files, %s\n", checkFile, info.Name, info.Files, info.Hash)
				return err
			}
			dir := args[0]
			if err := checkSkillDir(dir); err != nil {
				return err
			}
			s, err := parse.Dir(dir)
			if err != nil {
				return usageErr(err)
			}
			if err := packGate(c, s); err != nil {
				return err
			}
			if out == "" {
				out = s.Name + skillpack.Ext
			}
			if inside(s.Dir, out) {
				return usageErr(fmt.Errorf("-o %s is inside the skill: the next pack would pack the archive", out))
			}
			var b bytes.Buffer
			if err := skillpack.Pack(&b, s); err != nil {
				return usageErr(err)
			}
			if err := os.WriteFile(out, b.Bytes(), 0o644); err != nil {
				return fmt.Errorf("writing the archive: %w", err)
			}
			_, err = fmt.Fprintf(c.OutOrStdout(), "%s: skill %s, %d files, %s\n", out, s.Name, len(s.Files), s.Hash)
			return err
		}),
	}
	c.Flags().StringVarP(&out, "output", "o", "", "the archive to write (default NAME.skill in this folder)")
	c.Flags().StringVar(&checkFile, "check", "", "validate the archive FILE instead of packing")
	return c
}

// packGate refuses to pack a skill with lint errors, printing them as lint
// does: an archive goes to people who cannot fix it.
func packGate(c *cobra.Command, s *plan.Skill) error {
	findings, err := lint.Check(s, ".")
	if err != nil {
		return err
	}
	refused := &lint.Result{Base: ".", Skills: []string{s.Dir}}
	for _, f := range findings {
		if f.Severity == plan.SevError {
			refused.Findings = append(refused.Findings, f)
		}
	}
	if len(refused.Findings) == 0 {
		return nil
	}
	if err := lint.WriteText(c.ErrOrStderr(), refused, lint.TextOptions{}); err != nil {
		return err
	}
	return failed(fmt.Errorf("%d lint error(s) above: fix them before packing", len(refused.Findings)))
}

// inside reports whether path is in the folder dir.
func inside(dir, path string) bool {
	d, err1 := filepath.Abs(dir)
	p, err2 := filepath.Abs(path)
	if err1 != nil || err2 != nil {
		return false
	}
	rel, err := filepath.Rel(d, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
