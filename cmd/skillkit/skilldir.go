package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/skillkit/skillkit/plan"
)

// readSkill parses the skill folder dir. A path that is no folder is the
// user's mistake (exit 2), answered with what a skill folder holds and the
// nearest one, not with the raw stat error.
func readSkill(dir string) (*plan.Skill, error) {
	s, _, err := readSkillMCP(dir)
	return s, err
}

// checkSkillDir returns a usage error when dir is not a folder.
func checkSkillDir(dir string) error {
	st, err := os.Stat(dir)
	var what string
	switch {
	case err == nil && st.IsDir():
		return nil
	case err == nil:
		what = dir + " is a file"
	case errors.Is(err, fs.ErrNotExist):
		what = "no folder " + dir
	default:
		return usageErr(err)
	}
	msg := what + ": a skill folder holds SKILL.md and phases/ (numbered phases, or an orchestrator and actions)"
	near := nearestSkill(dir)
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "SKILL.md")); err == nil && st != nil {
		// A file of a skill (its SKILL.md, say) means its folder.
		near = filepath.Dir(dir)
	}
	if near != "" {
		msg += "; did you mean " + near + "?"
	} else {
		msg += "; 'skillkit new NAME' makes one"
	}
	return usageErr(errors.New(msg))
}

// Bounds of the search for a nearby skill: deep enough for
// .claude/skills/NAME or examples/NAME next to the path, small enough to
// answer at once from a home folder.
const (
	nearDepth = 3
	nearDirs  = 2000
)

// nearestSkill is the skill folder near dir (under its parent, a few
// levels down) whose name is closest to dir's, or "" when none is close
// enough to be what the user meant (a name off by half its letters is
// another name).
func nearestSkill(dir string) string {
	parent, name := filepath.Split(filepath.Clean(dir))
	if parent == "" {
		parent = "."
	}
	best, bestDist, seen := "", -1, 0
	filepath.WalkDir(parent, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(parent, p)
		if seen++; seen > nearDirs || strings.Count(rel, string(filepath.Separator)) >= nearDepth {
			return filepath.SkipDir
		}
		if p != parent && (strings.HasPrefix(d.Name(), ".") && d.Name() != ".claude" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if _, err := os.Stat(filepath.Join(p, "SKILL.md")); err != nil {
			return nil
		}
		if dist := editDistance(strings.ToLower(d.Name()), strings.ToLower(name)); dist <= len(name)/2+1 && (bestDist < 0 || dist < bestDist) {
			best, bestDist = filepath.Clean(p), dist
		}
		return nil
	})
	return best
}

// editDistance is the Levenshtein distance of a and b, in bytes: names of
// skills are ASCII by convention.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
