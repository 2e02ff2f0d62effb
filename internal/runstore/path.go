package runstore

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// ErrBadSegment marks a name that cannot be one folder of a run's path: a
// skill's name or a run id holding a separator, a dot segment or NUL
// would put the run outside its store's root.
var ErrBadSegment = errors.New("not usable as a folder name")

// CheckSegment refuses a name that a store cannot use as one path segment.
// A name that is merely not a slug (upper case, spaces) passes: it stays
// inside its folder, and two corpus skills have such names.
func CheckSegment(name string) error {
	switch {
	case name == "", name == ".", name == "..":
		return fmt.Errorf("%q: %w", name, ErrBadSegment)
	case strings.ContainsAny(name, "/\\\x00"):
		return fmt.Errorf("%q holds a path separator or NUL: %w", name, ErrBadSegment)
	}
	return nil
}

// DirUnder is the folder root/segs..., each segment checked by
// CheckSegment, and the result checked once more to stay under root: the
// one place where both stores derive a run's folder from a record's names.
func DirUnder(root string, segs ...string) (string, error) {
	for _, s := range segs {
		if err := CheckSegment(s); err != nil {
			return "", err
		}
	}
	dir := filepath.Join(append([]string{root}, segs...)...)
	rel, err := filepath.Rel(root, dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", fmt.Errorf("%s leaves %s: %w", dir, root, ErrBadSegment)
	}
	return dir, nil
}

// NewRunDir is where a new run works: the work dir it was given, else
// root/<skill>/<run id>, checked by DirUnder. Every backend makes its new
// runs' folders here.
func NewRunDir(root string, n NewRun) (string, error) {
	if n.WorkDir != "" {
		return n.WorkDir, nil
	}
	dir, err := DirUnder(root, n.Start.Skill, n.Start.RunID)
	if err != nil {
		return "", fmt.Errorf("creating run: %w", err)
	}
	return dir, nil
}
