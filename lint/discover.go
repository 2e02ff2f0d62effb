package lint

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/skillkit/skillkit/internal/skillfs"
	"github.com/skillkit/skillkit/plan"
)

// isSkillDir reports whether dir is a skill folder: it holds a SKILL.md,
// or a phases/ folder (the Codex layout has an orchestrator.md entry and
// no SKILL.md).
func isSkillDir(dir string) bool {
	if info, err := os.Stat(filepath.Join(dir, "SKILL.md")); err == nil && !info.IsDir() {
		return true
	}
	info, err := os.Stat(filepath.Join(dir, "phases"))
	return err == nil && info.IsDir()
}

// skipWalk names folders that never hold skills.
func skipWalk(name string) bool {
	return name == ".git" || name == "node_modules" || name == ".skillkit"
}

// discover returns the skill folders under root, root itself included.
// It does not look for skills inside a skill it found.
func discover(root string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			// An unreadable folder below the root holds nothing we can lint.
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if !d.IsDir() {
			return nil
		}
		if p != root && skipWalk(d.Name()) {
			return fs.SkipDir
		}
		if isSkillDir(p) {
			out = append(out, p)
			return fs.SkipDir
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("looking for skills under %s: %w", root, err)
	}
	return out, nil
}

// enclosingSkill returns the nearest folder at or above p that is a
// skill, or "" when there is none.
func enclosingSkill(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", fmt.Errorf("resolving %s: %w", p, err)
	}
	for dir := abs; ; {
		if isSkillDir(dir) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", nil
		}
		dir = parent
	}
}

// target is one skill to lint and, when the user named files or a folder
// inside it, the only files whose findings to keep.
type target struct {
	dir string // absolute
	// mcpProject is the folder whose .mcp.json configures MCP servers.
	mcpProject string
	// only holds skill-relative paths (files, or folders ending in /);
	// nil keeps everything.
	only []string
	cfg  *Config
	// files replaces the contents of some files (skill-relative paths):
	// fixes not yet written, an editor's buffers.
	files map[string][]byte
	// cache keeps work between lints of the skill (LintSkill); nil keeps
	// none.
	cache *Cache
	// run is the lint run's cache, blocks parses each block text once;
	// nil does it for each skill.
	run    *runCache
	blocks *plan.Blocks
}

// open returns what the skill is read from, keeping what it read: the
// folder (through skillfs), with files laid over it when there are any.
// The caller closes it.
func (t *target) open() (*keptFS, error) {
	if len(t.files) > 0 {
		return &keptFS{base: newOverlay(t.dir, t.files), files: map[string][]byte{}}, nil
	}
	root, err := skillfs.Open(t.dir)
	if err != nil {
		return nil, err
	}
	return &keptFS{base: root, files: map[string][]byte{}, close: root.Close}, nil
}

// keptFS is a skill's files as parse reads them, keeping the bytes of
// each file read: the rules' source lines (positions, messages) come
// from those bytes rather than from a second read of the file. One
// goroutine reads it.
type keptFS struct {
	base interface {
		fs.StatFS
		fs.ReadDirFS
		fs.ReadFileFS
	}
	files map[string][]byte
	close func() error
}

func (k *keptFS) Open(name string) (fs.File, error)          { return k.base.Open(name) }
func (k *keptFS) Stat(name string) (fs.FileInfo, error)      { return k.base.Stat(name) }
func (k *keptFS) ReadDir(name string) ([]fs.DirEntry, error) { return k.base.ReadDir(name) }

// ReadFile reads a file once: later reads get the bytes of the first.
func (k *keptFS) ReadFile(name string) ([]byte, error) {
	if data, ok := k.files[name]; ok {
		return data, nil
	}
	data, err := k.base.ReadFile(name)
	if err == nil {
		k.files[name] = data
	}
	return data, err
}

// Close releases the folder.
func (k *keptFS) Close() error {
	if k.close == nil {
		return nil
	}
	return k.close()
}

// usageErrorf makes an error that is the user's to fix, not lint's.
func usageErrorf(format string, args ...any) error {
	return &UsageError{Err: fmt.Errorf(format, args...)}
}

// UsageError is a problem with what lint was asked to do: a path that
// does not exist or holds no skill, a configuration file that does not
// parse. A command maps it to the usage exit code.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// IsUsageError reports whether err is, or wraps, a UsageError.
func IsUsageError(err error) bool {
	var u *UsageError
	return errors.As(err, &u)
}

// Discover returns the skill folders under root, root itself included,
// as lint finds them: `skillkit mcp serve` serves the same skills.
func Discover(root string) ([]string, error) { return discover(root) }
