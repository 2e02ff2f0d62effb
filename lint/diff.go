package lint

import (
	"fmt"
	"strings"
)

// diffContext is how many unchanged lines a hunk shows around a change.
const diffContext = 3

// UnifiedDiff returns the unified diff of a file's contents before and
// after (--- a/name, +++ b/name), "" when they are equal. Fixes change few
// lines, so the lines both versions share at the start and end are cut
// first and only the middle is compared line by line.
func UnifiedDiff(name string, before, after []byte) string {
	a, b := splitLines(string(before)), splitLines(string(after))
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	if pre == len(a) && pre == len(b) {
		return ""
	}
	ops := diffLines(a[pre:len(a)-suf], b[pre:len(b)-suf])
	// Lay the whole file out as operations: equal lines around the middle.
	var all []diffOp
	for i := range pre {
		all = append(all, diffOp{kind: ' ', text: a[i]})
	}
	all = append(all, ops...)
	for i := len(a) - suf; i < len(a); i++ {
		all = append(all, diffOp{kind: ' ', text: a[i]})
	}
	var out strings.Builder
	fmt.Fprintf(&out, "--- a/%s\n+++ b/%s\n", name, name)
	for i := 0; i < len(all); {
		if all[i].kind == ' ' {
			i++
			continue
		}
		// A hunk: from diffContext lines before the change to diffContext
		// lines after the last change closer than twice that.
		start := max(i-diffContext, 0)
		end := i
		for j := i; j < len(all); j++ {
			if all[j].kind != ' ' {
				end = j
			} else if j-end > 2*diffContext {
				break
			}
		}
		stop := min(end+diffContext+1, len(all))
		aLine, bLine := lineAt(all[:start])
		aN, bN := 0, 0
		for _, op := range all[start:stop] {
			if op.kind != '+' {
				aN++
			}
			if op.kind != '-' {
				bN++
			}
		}
		fmt.Fprintf(&out, "@@ -%s +%s @@\n", hunkRange(aLine, aN), hunkRange(bLine, bN))
		for _, op := range all[start:stop] {
			out.WriteByte(op.kind)
			out.WriteString(op.text)
			out.WriteByte('\n')
		}
		i = stop
	}
	return out.String()
}

// diffOp is one line of a diff: ' ' kept, '-' removed, '+' added.
type diffOp struct {
	kind byte
	text string
}

// lineAt returns the 1-based lines, in the old and new file, that follow
// the operations ops.
func lineAt(ops []diffOp) (a, b int) {
	a, b = 1, 1
	for _, op := range ops {
		if op.kind != '+' {
			a++
		}
		if op.kind != '-' {
			b++
		}
	}
	return a, b
}

// hunkRange writes a hunk's start and length as unified diff does: an
// empty range starts at the line before.
func hunkRange(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start-1)
	}
	if n == 1 {
		return fmt.Sprint(start)
	}
	return fmt.Sprintf("%d,%d", start, n)
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// diffLines compares two runs of lines by their longest common
// subsequence.
func diffLines(a, b []string) []diffOp {
	// lcs[i][j] is the common subsequence length of a[i:] and b[j:].
	lcs := make([][]int32, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int32, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var ops []diffOp
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			ops = append(ops, diffOp{' ', a[i]})
			i++
			j++
		case i < len(a) && (j == len(b) || lcs[i+1][j] >= lcs[i][j+1]):
			// Removals first, as diff(1) writes them.
			ops = append(ops, diffOp{'-', a[i]})
			i++
		default:
			ops = append(ops, diffOp{'+', b[j]})
			j++
		}
	}
	return ops
}
