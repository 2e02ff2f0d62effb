package lint

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

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
	// schemas compiles each state schema of a lint run once, blocks
	// parses each block text once; nil does it for each skill.
	schemas *schemaCache
	blocks  *plan.Blocks
}

// fsys is what the skill is read from: the folder, with files laid over
// it when there are any; nil reads the folder directly.
func (t *target) fsys() fs.FS {
	if len(t.files) == 0 {
		return nil
	}
	return newOverlay(t.dir, t.files)
}

// read reads a skill file by skill-relative path, for source lines; nil
// reads from the folder.
func (t *target) read() func(string) ([]byte, error) {
	if len(t.files) == 0 {
		return nil
	}
	return newOverlay(t.dir, t.files).ReadFile
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
