package scaffold

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
)

// ErrInvalid is wrapped by every error about what the caller asked for: a
// bad name, an unknown mode, a duplicate phase. The command maps it to the
// usage exit code.
var ErrInvalid = errors.New("invalid request")

// ErrExists is wrapped when new or add would overwrite something: the
// skill folder, a phase or an action of that name.
var ErrExists = errors.New("already exists")

// requestError is an error about what the caller asked for; its message is
// the whole story, and it unwraps to ErrInvalid.
type requestError struct{ msg string }

func (e *requestError) Error() string { return e.msg }
func (e *requestError) Unwrap() error { return ErrInvalid }

func invalidf(format string, args ...any) error {
	return &requestError{fmt.Sprintf(format, args...)}
}

// MaxNameLen is the longest skill, phase or action name (the Agent Skills
// limit on a skill's name).
const MaxNameLen = 64

// CheckName reports whether s follows the Agent Skills name rule: 1–64
// characters, lowercase letters, digits and hyphens, no hyphen at either
// end and no two in a row. what says what the name is for in the error.
func CheckName(what, s string) error {
	bad := func(why string) error {
		return invalidf("%s name %q %s (use 1–%d lowercase letters, digits and single hyphens, e.g. pdf-report)", what, s, why, MaxNameLen)
	}
	switch {
	case s == "":
		return bad("is empty")
	case len(s) > MaxNameLen:
		return bad(fmt.Sprintf("is %d characters long", len(s)))
	case strings.HasPrefix(s, "-") || strings.HasSuffix(s, "-"):
		return bad("starts or ends with a hyphen")
	case strings.Contains(s, "--"):
		return bad("has a double hyphen")
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return bad(fmt.Sprintf("has %q", r))
		}
	}
	return nil
}

// checkNames validates a list of phase or action names: each a valid name,
// none twice.
func checkNames(what string, names []string) error {
	seen := map[string]bool{}
	for _, n := range names {
		if err := CheckName(what, n); err != nil {
			return err
		}
		if seen[n] {
			return invalidf("%s %q is listed twice", what, n)
		}
		seen[n] = true
	}
	return nil
}

// title turns a name into words for headings: "pdf-report" → "Pdf Report".
func title(name string) string {
	words := strings.Split(name, "-")
	for i, w := range words {
		words[i] = strings.ToUpper(w[:1]) + w[1:]
	}
	return strings.Join(words, " ")
}

// typeName turns a skill name into a TypeScript identifier: "pdf-report" →
// "PdfReport"; a leading digit gets a "Skill" prefix so the name stays an
// identifier.
func typeName(name string) string {
	s := strings.ReplaceAll(title(name), " ", "")
	if s != "" && unicode.IsDigit(rune(s[0])) {
		s = "Skill" + s
	}
	return s
}

// actionName drops the "action-" prefix a user may type: the file and id
// get it back.
func actionName(s string) string { return strings.TrimPrefix(s, "action-") }

// nodeID is the mermaid node id of an action: mermaid reads "-" in an id as
// part of an arrow, so hyphens become underscores.
func nodeID(name string) string { return strings.ReplaceAll(name, "-", "_") }
