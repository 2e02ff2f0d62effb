package agent

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/skillkit/skillkit/plan"
)

// Vars are the values Claude Code substitutes in a skill's text, which
// skillkit substitutes in all text it sends the agent (DESIGN §1.5):
//
//	$ARGUMENTS            every argument, joined by spaces
//	$ARGUMENTS[N] and $N  argument N, counted from 0 as Claude Code does;
//	                      "" when there are fewer
//	$name                 the argument at name's place in the front
//	                      matter's arguments list
//	${CLAUDE_SKILL_DIR}   the skill folder, absolute
//	${CLAUDE_SESSION_ID}  the run's session id (SKILLKIT_SESSION_ID)
//
// Anything else that starts with $ is left as written.
type Vars struct {
	Args []string
	// Names are the front matter's arguments: Names[i] is Args[i].
	Names     []string
	SkillDir  string
	SessionID string
}

// Substitute replaces the variables in text.
func (v Vars) Substitute(text string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(text, '$')
		if i < 0 {
			b.WriteString(text)
			return b.String()
		}
		b.WriteString(text[:i])
		value, n := v.at(text[i+1:])
		if n == 0 {
			b.WriteByte('$')
			text = text[i+1:]
			continue
		}
		b.WriteString(value)
		text = text[i+1+n:]
	}
}

// at reads the variable at the start of s (just after a $) and returns its
// value and length; n is 0 when s starts with none.
func (v Vars) at(s string) (value string, n int) {
	for name, val := range map[string]string{"{CLAUDE_SKILL_DIR}": v.SkillDir, "{CLAUDE_SESSION_ID}": v.SessionID} {
		if strings.HasPrefix(s, name) {
			return val, len(name)
		}
	}
	word := s[:wordEnd(s)]
	switch {
	case word == "ARGUMENTS":
		if rest := s[len(word):]; strings.HasPrefix(rest, "[") {
			if j := strings.IndexByte(rest, ']'); j > 1 {
				if k, err := strconv.Atoi(rest[1:j]); err == nil {
					return v.arg(k), len(word) + j + 1
				}
			}
		}
		return strings.Join(v.Args, " "), len(word)
	case word == "":
		return "", 0
	case word[0] >= '0' && word[0] <= '9':
		k, err := strconv.Atoi(word)
		if err != nil {
			return "", 0
		}
		return v.arg(k), len(word)
	}
	if k := slices.Index(v.Names, word); k >= 0 {
		return v.arg(k), len(word)
	}
	return "", 0
}

func (v Vars) arg(k int) string {
	if k < 0 || k >= len(v.Args) {
		return ""
	}
	return v.Args[k]
}

// wordEnd is the length of the run of letters, digits and _ at the start
// of s; a run of digits ends at the first non-digit.
func wordEnd(s string) int {
	digits := len(s) > 0 && s[0] >= '0' && s[0] <= '9'
	for i := 0; i < len(s); i++ {
		c := s[i]
		isDigit := c >= '0' && c <= '9'
		if digits && !isDigit || !digits && !(isDigit || c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return i
		}
	}
	return len(s)
}

// Instructions is the [CONTEXT] of a skill: its SKILL.md body with the
// variables substituted. As in Claude Code, a body that does not mention
// $ARGUMENTS gets the arguments appended on a line "ARGUMENTS: …".
func (v Vars) Instructions(body string) string {
	return v.WithArguments(body, v.Substitute(body))
}

// WithArguments is text, the body's expansion, with the arguments on a
// last line "ARGUMENTS: …" when the body does not mention $ARGUMENTS. The
// line comes after the expansion: what the user typed is substituted
// nowhere and runs no context command.
func (v Vars) WithArguments(body, text string) string {
	if len(v.Args) > 0 && !strings.Contains(body, "$ARGUMENTS") {
		return strings.TrimRight(text, "\n") + "\n\nARGUMENTS: " + strings.Join(v.Args, " ")
	}
	return text
}

// fence is a fenced code block of a text: its first and last line (0-based
// indexes, the fences included) and its info string.
type fence struct {
	start, end int
	info       string
	closed     bool
}

var fenceOpen = regexp.MustCompile("^ {0,3}(`{3,}|~{3,})(.*)$")

// fences finds the fenced code blocks of a markdown text. A block left
// open runs to the end, as CommonMark has it.
func fences(text string) []fence {
	lines := strings.Split(text, "\n")
	var out []fence
	for i := 0; i < len(lines); i++ {
		m := fenceOpen.FindStringSubmatch(lines[i])
		if m == nil || m[1][0] == '`' && strings.Contains(m[2], "`") {
			continue
		}
		f := fence{start: i, end: len(lines) - 1, info: strings.TrimSpace(m[2])}
		for j := i + 1; j < len(lines); j++ {
			t := strings.TrimSpace(lines[j])
			if strings.HasPrefix(t, m[1]) && strings.Trim(t, m[1][:1]) == "" {
				f.end, f.closed = j, true
				break
			}
		}
		out = append(out, f)
		i = f.end
	}
	return out
}

// inlineCommand is Claude Code's !`cmd` at the start of a line or after a
// space.
var inlineCommand = regexp.MustCompile("(^|\\s)!`([^`\n]+)`")

// RunContext runs the context commands of a markdown text, Claude Code's
// !`cmd` inline and ```! fenced blocks, and puts each one's output (its
// trailing newline trimmed) in its place. Inline commands inside other
// code blocks are code, not commands. A command that fails fails the
// expansion, told at its line of text.
//
// subst (nil for none) substitutes the variables: in the prose and in each
// command's text, never in a command's output, and the commands are found
// in text as written. So an argument lands in a command as typed, but an
// argument holding !`…` or a fence is text, not a command: the arguments
// of a run served over MCP or queued as a task come from a client, and
// must not run commands of their own; and an output holding "$1" stays so.
func RunContext(ctx context.Context, text string, subst func(string) string, run func(ctx context.Context, cmd string) (string, error)) (string, error) {
	if subst == nil {
		subst = func(s string) string { return s }
	}
	if !strings.Contains(text, "!") {
		return subst(text), nil
	}
	lines := strings.Split(text, "\n")
	var out []string
	// at runs a command of line i (0-based) of text; its error is told
	// at that line.
	at := func(i int, cmd string) (string, error) {
		o, err := run(ctx, subst(cmd))
		if ce, ok := err.(*CommandError); ok && ce.Line == 0 {
			ce.Line = i + 1
		}
		return o, err
	}
	// inline expands lines [from, to): a command cannot span lines, so
	// each line is expanded alone.
	inline := func(from, to int) error {
		for i := from; i < to; i++ {
			var b strings.Builder
			prev := 0
			for _, m := range inlineCommand.FindAllStringSubmatchIndex(lines[i], -1) {
				o, err := at(i, lines[i][m[4]:m[5]])
				if err != nil {
					return err
				}
				b.WriteString(subst(lines[i][prev:m[3]]))
				b.WriteString(strings.TrimRight(o, "\n"))
				prev = m[1]
			}
			b.WriteString(subst(lines[i][prev:]))
			out = append(out, b.String())
		}
		return nil
	}
	next := 0
	for _, f := range fences(text) {
		if err := inline(next, f.start); err != nil {
			return "", err
		}
		block := subst(strings.Join(lines[f.start:f.end+1], "\n"))
		if strings.HasPrefix(f.info, "!") {
			last := f.end
			if !f.closed {
				last++
			}
			o, err := at(f.start, strings.Join(lines[f.start+1:last], "\n"))
			if err != nil {
				return "", err
			}
			block = strings.TrimRight(o, "\n")
		}
		out = append(out, block)
		next = f.end + 1
	}
	if err := inline(next, len(lines)); err != nil {
		return "", err
	}
	return strings.Join(out, "\n"), nil
}

// CommandError is a context command that failed.
type CommandError struct {
	Command  string
	ExitCode int
	Stderr   string
	// Line is the line of the expanded text that holds the command
	// (1-based), set by RunContext.
	Line int
}

// At is an error at a place of the skill's files: a context command that
// failed, at its line, so that what reports it can lead with that place.
type At struct {
	Pos plan.Pos
	Err error
}

func (e *At) Error() string { return fmt.Sprintf("%s: %v", e.Pos, e.Err) }

func (e *At) Unwrap() error { return e.Err }

func (e *CommandError) Error() string {
	return fmt.Sprintf("context command %q exited with status %d: %s", e.Command, e.ExitCode, lastLines(strings.TrimSpace(e.Stderr), 3))
}
