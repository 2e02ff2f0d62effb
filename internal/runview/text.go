package runview

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// Column widths of WriteSteps: a row fits in 79 columns (38 + 11 + 7 +
// "1 +1 interrupted" and the gaps), so that status stays one line a unit
// on a narrow terminal.
const (
	labelWidth = 38
	errorWidth = 74
)

// WriteSteps prints the units of a run one a line, steps and actions
// under their phase: state, working time and tries (interrupted tries
// apart), and under a unit that failed or was interrupted, its error.
func WriteSteps(w io.Writer, r *Run) error {
	var b strings.Builder
	row := func(label, state, took, tries string) {
		fmt.Fprintf(&b, "%-*s %-11s %7s  %s\n", labelWidth, cut(label, labelWidth), state, took, tries)
	}
	row("UNIT", "STATE", "TIME", "TRIES")
	for _, u := range r.Units {
		name, indent := u.ID, ""
		if u.Parent != "" {
			indent = "  "
			// A step's phase is the line above it.
			name = strings.TrimPrefix(name, u.Parent)
		}
		if u.Title != "" && !strings.EqualFold(u.Title, u.ID) {
			name += " " + u.Title
		}
		row(indent+name, u.State, short(u.Work), tries(u))
		if u.Error != "" && (u.State == Failed || u.State == Interrupted) && !r.childStopped(u) {
			fmt.Fprintf(&b, "%s\n", cut(indent+"  "+firstLine(u.Error), errorWidth))
		}
	}
	fmt.Fprintf(&b, "worked %s", short(r.Work))
	if r.Idle > 0 {
		fmt.Fprintf(&b, ", idle %s waiting for a resume", short(r.Idle))
	}
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// tries is a unit's TRIES column: the tries that ran, and the
// interrupted ones apart.
func tries(u *Unit) string {
	s := fmt.Sprint(u.Tries)
	if u.Interrupted > 0 {
		s += fmt.Sprintf(" +%d interrupted", u.Interrupted)
	}
	return s
}

// short rounds d to what a column shows: milliseconds under a second,
// tenths under a minute, seconds above.
func short(d time.Duration) string {
	switch {
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// cut shortens s to n runes with an ellipsis.
func cut(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// childStopped reports whether a step or action of phase u failed or was
// interrupted: its error is said there, where it happened.
func (r *Run) childStopped(u *Unit) bool {
	for _, c := range r.Units {
		if c.Parent == u.ID && u.Kind == KindPhase && (c.State == Failed || c.State == Interrupted) {
			return true
		}
	}
	return false
}
