package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/skillkit/skillkit/internal/runstore"
)

// projectRoot is the project that holds dir, as git finds a repository:
// the nearest folder, dir or above, that holds .skillkit/ or .git. Runs
// live in its .skillkit/runs, so that runs, status and run --resume find
// them from any subfolder. The filesystem root never counts (a stray
// /.skillkit would gather every project's runs); without a project, dir is
// its own.
func projectRoot(dir string) string {
	for d := dir; ; {
		parent := filepath.Dir(d)
		if parent == d {
			return dir
		}
		for _, mark := range []string{".skillkit", ".git"} {
			if _, err := os.Stat(filepath.Join(d, mark)); err == nil {
				return d
			}
		}
		d = parent
	}
}

// projectDir is the project folder JS code may touch, for a run in the
// project root: the root itself, but never the filesystem's root, which
// would open every file to it (a run started in / has no project).
func projectDir(root string) string {
	if filepath.Dir(root) == root {
		return ""
	}
	return root
}

// projectStore is the store of the runs of the project that holds the
// current folder.
func projectStore() (runstore.Store, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return nil, fmt.Errorf("finding the current folder: %w", err)
	}
	return runsOf(projectRoot(cwd)), nil
}

// readStore is the store a read command (status, runs, report, graph)
// reads: the database --db names when it is given, else the runs of the
// project. SKILLKIT_DB alone does not switch them, so that a shell set up
// for a worker still sees its project's runs. close closes the database.
func readStore(c *cobra.Command, project func() (runstore.Store, error)) (s runstore.Store, close func(), err error) {
	if f := c.Flag("db"); f == nil || !f.Changed {
		s, err = project()
		return s, func() {}, err
	}
	d, err := openDB(c)
	if err != nil {
		return nil, nil, err
	}
	return d.Store(""), func() { d.Close() }, nil
}

// enclosingSkill is the name of the skill folder that holds dir (dir or
// a folder above it, below the project root), or "" outside any.
func enclosingSkill(dir, root string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "SKILL.md")); err == nil {
			return filepath.Base(d)
		}
		if d == root || filepath.Dir(d) == d {
			return ""
		}
	}
}
