package script

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/skillkit/skillkit/internal/runstore"
)

// ErrOutsideRoots is wrapped by the error of a path that leaves the
// directories skill code may touch.
var ErrOutsideRoots = errors.New("outside the project dir, the skill dir, the work dir and the allowed paths")

// roots are the directories skill code may touch, each both as given
// (absolute, cleaned) and with its symlinks resolved.
type roots struct {
	workDir string
	dirs    []string
	// skillDirs are the skill's folder as given and resolved: skill code
	// may read it, never write it (its phases are what the run trusts).
	skillDirs []string
}

func newRoots(workDir string, dirs ...string) (*roots, error) {
	r := &roots{workDir: workDir}
	for _, d := range dirs {
		if d == "" {
			continue
		}
		abs, err := filepath.Abs(d)
		if err != nil {
			return nil, fmt.Errorf("resolving the allowed directory %s: %w", d, err)
		}
		r.dirs = append(r.dirs, abs)
		if real, err := realPath(abs); err == nil && real != abs {
			r.dirs = append(r.dirs, real)
		}
	}
	return r, nil
}

// resolve turns a path of skill code into an absolute one inside the
// roots: relative paths are against the work dir; the cleaned path and the
// path with its symlinks resolved must both lie inside a root.
func (r *roots) resolve(p string) (string, error) {
	if p == "" {
		return "", errors.New("empty path")
	}
	abs := p
	if !filepath.IsAbs(p) {
		abs = filepath.Join(r.workDir, p)
	}
	abs = filepath.Clean(abs)
	if !r.inside(abs) {
		return "", fmt.Errorf("refusing %s: %w", p, ErrOutsideRoots)
	}
	real, err := realPath(abs)
	if err != nil {
		return "", fmt.Errorf("resolving %s: %w", p, err)
	}
	if !r.inside(real) {
		return "", fmt.Errorf("refusing %s: it is a symlink to %s, %w", p, real, ErrOutsideRoots)
	}
	return abs, nil
}

func (r *roots) inside(p string) bool { return r.holder(p) != "" }

// holder is the innermost root that holds p, or "" when none does.
func (r *roots) holder(p string) string {
	best := ""
	for _, d := range r.dirs {
		if (p == d || strings.HasPrefix(p, d+string(filepath.Separator)) || d == string(filepath.Separator)) && len(d) > len(best) {
			best = d
		}
	}
	return best
}

// The file operations of skill code go through a handle on the root that
// holds the file (os.Root): the walk beneath it refuses any symlink that
// leads out, so one swapped in between resolve's check and the open does
// not take a read or a write outside the roots.

// readFile reads the file at abs, a path resolve returned.
func (r *roots) readFile(abs string) ([]byte, error) {
	root, rel, err := r.openRoot(abs)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	return root.ReadFile(rel)
}

// ErrProtected is wrapped by the error of a write to a path skill code
// may read but not write.
var ErrProtected = errors.New("skill code may not write it")

// writeFile writes the file at abs, a path resolve returned, making its
// parent folders.
func (r *roots) writeFile(abs string, data []byte) error {
	root, rel, err := r.openRoot(abs)
	if err != nil {
		return err
	}
	defer root.Close()
	if err := r.writable(abs, filepath.Join(root.Name(), rel)); err != nil {
		return err
	}
	if dir := filepath.Dir(rel); dir != "." {
		if err := root.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	return root.WriteFile(rel, data, 0o644)
}

// openRoot opens the root that holds abs as its symlinks resolve now, and
// returns the path beneath it.
func (r *roots) openRoot(abs string) (*os.Root, string, error) {
	real, err := realPath(abs)
	if err != nil {
		return nil, "", fmt.Errorf("resolving %s: %w", abs, err)
	}
	d := r.holder(real)
	if d == "" {
		return nil, "", fmt.Errorf("refusing %s: %w", abs, ErrOutsideRoots)
	}
	rel, err := filepath.Rel(d, real)
	if err != nil {
		return nil, "", err
	}
	root, err := os.OpenRoot(d)
	return root, rel, err
}

// realPath resolves the symlinks of the longest existing prefix of p and
// keeps the rest: the target of a file about to be created is where its
// parent really is.
func realPath(p string) (string, error) { return realPathN(p, 0) }

// maxLinks bounds the dangling symlinks realPath follows, against loops.
const maxLinks = 40

func realPathN(p string, links int) (string, error) {
	if links > maxLinks {
		return "", fmt.Errorf("resolving %s: too many levels of symbolic links", p)
	}
	rest := ""
	cur := p
	for {
		real, err := filepath.EvalSymlinks(cur)
		if err == nil {
			return filepath.Join(real, rest), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		// A dangling symlink: resolve it by hand so it cannot point out.
		if target, lerr := os.Readlink(cur); lerr == nil {
			if !filepath.IsAbs(target) {
				target = filepath.Join(filepath.Dir(cur), target)
			}
			return realPathN(filepath.Join(target, rest), links+1)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return p, nil
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

// writable refuses a write, by the path as given and as its links resolve,
// that would change what runs next rather than the work (N16): a .git
// folder (core.fsmonitor, hooks), a skillkit.yaml (hooks), the skill's own
// folder (its phases), the .skillkit folder of runs, and the run's record
// in its work dir.
func (r *roots) writable(paths ...string) error {
	work := r.workDirs()
	for _, p := range paths {
		inWork := ""
		for _, w := range work {
			if within(p, w) {
				inWork = w
			}
		}
		why := ""
		for _, seg := range strings.Split(filepath.ToSlash(p), "/") {
			switch seg {
			case ".git":
				why = "it is in a .git folder"
			case ".skillkit":
				if inWork == "" {
					why = "it is in .skillkit, the runs' folder"
				}
			}
		}
		if filepath.Base(p) == "skillkit.yaml" {
			why = "skillkit.yaml holds the hooks that run"
		}
		for _, d := range r.skillDirs {
			if within(p, d) && inWork == "" {
				why = "it is in the skill's own folder"
			}
		}
		if inWork != "" {
			if rel, err := filepath.Rel(inWork, p); err == nil && rel != "." {
				top, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
				if runstore.RecordFile(top) {
					why = "it is the run's record"
				}
			}
		}
		if why != "" {
			return fmt.Errorf("refusing to write %s: %s: %w", p, why, ErrProtected)
		}
	}
	return nil
}

// workDirs are the work dir as given and resolved.
func (r *roots) workDirs() []string {
	out := []string{r.workDir}
	if real, err := realPath(r.workDir); err == nil && real != r.workDir {
		out = append(out, real)
	}
	return out
}

func within(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, dir+string(filepath.Separator))
}
