package lint

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/skillkit/skillkit/parse"
)

// maxFixRounds bounds the lint-fix-lint loop of Fix. A round applies the
// fixes that do not touch each other; fixes that do wait for the next
// round, on the text the first ones left (two keys moved into one new
// metadata block take two rounds).
const maxFixRounds = 20

// FixedFile is a file that Fix changed.
type FixedFile struct {
	// Path is relative to the base folder, with forward slashes; Abs is
	// the file on disk.
	Path, Abs     string
	Before, After []byte
}

// Fix computes the safe fixes of the skills at paths (docs/lint-rules.md,
// "Fixes"): it lints, applies every fix that does not overlap another,
// and lints again, until no finding has a fix. It writes nothing (see
// WriteFixes); the result is the same whether it runs once or twice on
// the files it returns, since a fixed finding is gone.
func Fix(paths []string, opts Options) ([]FixedFile, error) {
	base, targets, err := prepare(paths, opts)
	if err != nil {
		return nil, err
	}
	var out []FixedFile
	for _, t := range targets {
		fixed, err := fixTarget(t, opts.Profile)
		if err != nil {
			return nil, err
		}
		for _, rel := range slices.Sorted(maps.Keys(fixed)) {
			abs := filepath.Join(t.dir, filepath.FromSlash(rel))
			before, err := os.ReadFile(abs)
			if err != nil {
				return nil, fmt.Errorf("fixing %s: %w", abs, err)
			}
			if !bytes.Equal(before, fixed[rel]) {
				out = append(out, FixedFile{Path: relPath(base, abs), Abs: abs, Before: before, After: fixed[rel]})
			}
		}
	}
	return out, nil
}

// fixTarget runs the fix loop on one skill and returns the new contents
// of the files it changed, by skill-relative path.
func fixTarget(t *target, profile string) (map[string][]byte, error) {
	files := map[string][]byte{}
	work := *t
	work.only = nil
	work.files = files
	for range maxFixRounds {
		// Paths relative to the skill itself: what the edits name.
		_, findings, _, err := lintTarget(&work, t.dir, profile)
		if err != nil {
			return nil, err
		}
		var fixes [][]Edit
		for _, f := range findings {
			if len(f.Fix) > 0 && t.keeps(f.File) {
				fixes = append(fixes, f.Fix)
			}
		}
		if len(fixes) == 0 {
			break
		}
		if err := applyFixes(t.dir, files, fixes); err != nil {
			return nil, err
		}
	}
	return files, nil
}

// applyFixes applies the fixes that overlap no other, each whole or not
// at all, to the contents in files (read from dir when not there yet).
func applyFixes(dir string, files map[string][]byte, fixes [][]Edit) error {
	var taken []Edit
	byFile := map[string][]Edit{}
	for _, fix := range fixes {
		if slices.ContainsFunc(fix, func(e Edit) bool {
			return slices.ContainsFunc(taken, func(o Edit) bool { return touches(e, o) })
		}) {
			continue
		}
		taken = append(taken, fix...)
		for _, e := range fix {
			byFile[e.File] = append(byFile[e.File], e)
		}
	}
	for file, edits := range byFile {
		data, ok := files[file]
		if !ok {
			var err error
			if data, err = os.ReadFile(filepath.Join(dir, filepath.FromSlash(file))); err != nil {
				return fmt.Errorf("fixing %s: %w", file, err)
			}
		}
		files[file] = applyEdits(data, edits)
	}
	return nil
}

// touches reports whether two edits of one file change or border the
// same lines; such edits are not applied in the same round.
func touches(a, b Edit) bool {
	return a.File == b.File && a.Line <= b.EndLine+1 && b.Line <= a.EndLine+1
}

// applyEdits applies non-overlapping line edits to a file's contents,
// keeping its line endings and byte order mark.
func applyEdits(data []byte, edits []Edit) []byte {
	bom := bytes.HasPrefix(data, []byte("\uFEFF"))
	nl := LineEnding(data)
	lines := strings.Split(string(parse.NormalizeNewlines(data)), "\n")
	sorted := slices.Clone(edits)
	slices.SortFunc(sorted, func(a, b Edit) int { return b.Line - a.Line })
	for _, e := range sorted {
		from, to := min(max(e.Line-1, 0), len(lines)), min(max(e.EndLine, e.Line-1), len(lines))
		lines = slices.Concat(lines[:from], e.Lines, lines[to:])
	}
	out := strings.Join(lines, nl)
	if bom {
		out = "\uFEFF" + out
	}
	return []byte(out)
}

// LineEnding is the line ending a fix writes into a file of data:
// "\r\n" when the file has one, else "\n". The language server's quick
// fixes write it too.
func LineEnding(data []byte) string {
	if bytes.Contains(data, []byte("\r\n")) {
		return "\r\n"
	}
	return "\n"
}

// WriteFixes writes the fixed files, keeping each file's permissions.
func WriteFixes(files []FixedFile) error {
	for _, f := range files {
		info, err := os.Stat(f.Abs)
		if err != nil {
			return fmt.Errorf("writing fix: %w", err)
		}
		if err := os.WriteFile(f.Abs, f.After, info.Mode().Perm()); err != nil {
			return fmt.Errorf("writing fix: %w", err)
		}
	}
	return nil
}
