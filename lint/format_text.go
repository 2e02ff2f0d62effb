package lint

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode"
)

// ANSI colours of the text format.
const (
	ansiReset  = "\x1b[0m"
	ansiBold   = "\x1b[1m"
	ansiRed    = "\x1b[31m"
	ansiYellow = "\x1b[33m"
	ansiCyan   = "\x1b[36m"
	ansiGreen  = "\x1b[32m"
	ansiGray   = "\x1b[90m"
)

// TextOptions tune the text format.
type TextOptions struct {
	// Color turns on ANSI colours. The caller decides: on for a terminal
	// with NO_COLOR unset.
	Color bool
	// ReadFile reads a finding's file for the source snippet, given the
	// path relative to the result's base; nil reads from disk.
	ReadFile func(path string) ([]byte, error)
}

// WriteText writes findings as
//
//	file:line:col: severity: message [rule-id]
//	    source line
//	    ^
//
// followed by a one-line summary.
func WriteText(w io.Writer, r *Result, opts TextOptions) error {
	src := resultSources(r, opts.ReadFile)
	bw := bufio.NewWriter(w)
	paint := func(code, s string) string {
		if !opts.Color {
			return s
		}
		return code + s + ansiReset
	}
	for _, f := range r.Findings {
		sev := string(f.Severity)
		switch f.Severity {
		case "error":
			sev = paint(ansiRed+ansiBold, sev)
		case "warning":
			sev = paint(ansiYellow+ansiBold, sev)
		default:
			sev = paint(ansiCyan, sev)
		}
		fmt.Fprintf(bw, "%s: %s: %s %s\n", paint(ansiBold, f.location()), sev, f.Message, paint(ansiGray, "["+f.Rule+"]"))
		if f.Line == 0 {
			continue
		}
		line, ok := src.line(f.File, f.Line)
		if !ok {
			continue
		}
		fmt.Fprintf(bw, "    %s\n", line)
		if f.Col > 0 {
			width := 1
			if f.EndCol > f.Col {
				width = displayWidth(strings.TrimPrefix(runePrefix(line, f.EndCol-1), runePrefix(line, f.Col-1)))
			}
			fmt.Fprintf(bw, "    %s%s\n", caretIndent(line, f.Col), paint(ansiGreen, strings.Repeat("^", max(width, 1))))
		}
	}
	fmt.Fprintln(bw, summary(r))
	return bw.Flush()
}

// resultSources reads reported files through read, or from disk under the
// result's base when read is nil.
func resultSources(r *Result, read func(string) ([]byte, error)) *sources {
	if read == nil {
		read = func(p string) ([]byte, error) { return os.ReadFile(filepath.Join(r.Base, filepath.FromSlash(p))) }
	}
	return newSources(read)
}

// summary is "N errors, N warnings, N infos in N skills".
func summary(r *Result) string {
	return fmt.Sprintf("%s, %s, %s in %s",
		plural(r.Count("error"), "error"), plural(r.Count("warning"), "warning"),
		plural(r.Count("info"), "info"), plural(len(r.Skills), "skill"))
}

// caretIndent reproduces the source line up to code-point column col as
// blanks, keeping tabs and counting wide (CJK) characters twice, so the
// caret lands under the column in a terminal.
func caretIndent(src string, col int) string {
	var b strings.Builder
	for _, r := range runePrefix(src, col-1) {
		switch {
		case r == '\t':
			b.WriteByte('\t')
		case isWide(r):
			b.WriteString("  ")
		default:
			b.WriteByte(' ')
		}
	}
	return b.String()
}

func displayWidth(s string) int {
	n := 0
	for _, r := range s {
		if isWide(r) {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// isWide reports East Asian wide characters, which take two terminal
// columns. It is small enough to inline: Latin, Greek, Cyrillic …, the
// common case, costs no call (the body rule asks of every character).
func isWide(r rune) bool { return r >= 0x1100 && isWideAbove(r) }

// isWideAbove is isWide for r from U+1100 on.
func isWideAbove(r rune) bool {
	if r >= 0x4E00 && r <= 0x9FFF {
		// CJK Unified Ideographs, every one Han (TestWideIdeographs): most
		// wide text, and the body-length rule asks of every character.
		return true
	}
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) ||
		r >= 0xFF01 && r <= 0xFF60 || r >= 0x3000 && r <= 0x303F
}
