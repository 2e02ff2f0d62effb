package script

import (
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// expandBraces expands {a,b} alternatives: "*.{ts,js}" → "*.ts", "*.js".
// Nested braces expand from the outside in; a brace without a comma or a
// closing brace is literal.
func expandBraces(pattern string) []string {
	open := -1
	depth := 0
	for i := 0; i < len(pattern); i++ {
		switch pattern[i] {
		case '\\':
			i++
		case '{':
			if depth == 0 {
				open = i
			}
			depth++
		case '}':
			if depth == 0 {
				continue
			}
			depth--
			if depth > 0 {
				continue
			}
			alts := splitTop(pattern[open+1 : i])
			if len(alts) < 2 {
				open = -1
				continue
			}
			var out []string
			for _, alt := range alts {
				out = append(out, expandBraces(pattern[:open]+alt+pattern[i+1:])...)
			}
			return out
		}
	}
	return []string{pattern}
}

// splitTop splits s at the commas outside nested braces.
func splitTop(s string) []string {
	var parts []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{':
			depth++
		case '}':
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, s[start:i])
				start = i + 1
			}
		}
	}
	return append(parts, s[start:])
}

// globMatch matches a slash-separated path against a pattern whose "**"
// segments match any number of directories.
func globMatch(pattern, name []string) bool {
	for len(pattern) > 0 {
		if pattern[0] == "**" {
			for i := 0; i <= len(name); i++ {
				if globMatch(pattern[1:], name[i:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 {
			return false
		}
		if ok, err := path.Match(pattern[0], name[0]); err != nil || !ok {
			return false
		}
		pattern, name = pattern[1:], name[1:]
	}
	return len(name) == 0
}

func hasMagic(seg string) bool { return strings.ContainsAny(seg, "*?[") }

// segments splits a slash pattern, dropping empty and "." segments
// (`src//**` is `src/**`).
func segments(p string) []string {
	var out []string
	for _, s := range strings.Split(p, "/") {
		if s != "" && s != "." {
			out = append(out, s)
		}
	}
	return out
}

// glob returns the files (not directories) under base matching the
// slash-separated relative pattern, as slash paths relative to base,
// sorted. It does not follow symlinked directories.
func glob(base, pattern string) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	for _, p := range expandBraces(pattern) {
		segs := segments(p)
		// Walk from the longest literal prefix, not from base.
		lit := 0
		for lit < len(segs)-1 && !hasMagic(segs[lit]) && segs[lit] != "**" {
			lit++
		}
		root := filepath.Join(base, filepath.FromSlash(strings.Join(segs[:lit], "/")))
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if p == root {
					return fs.SkipAll
				}
				return nil
			}
			if d.IsDir() {
				return nil
			}
			rel, rerr := filepath.Rel(base, p)
			if rerr != nil {
				return nil
			}
			rel = filepath.ToSlash(rel)
			if !seen[rel] && globMatch(segs, strings.Split(rel, "/")) {
				seen[rel] = true
				out = append(out, rel)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	sort.Strings(out)
	return out, nil
}
