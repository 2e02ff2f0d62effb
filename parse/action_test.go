package parse

import "testing"

func TestActionInProse(t *testing.T) {
	for in, want := range map[string]string{
		"go to action-menu":                   "action-menu",
		"继续到 `action-diagnose-*`":             "",
		"`action-diagnose-*` or action-abort": "action-abort",
		"action-x_* then":                     "",
		"no action here":                      "",
	} {
		if got := actionInProse(in); got != want {
			t.Errorf("actionInProse(%q) = %q, want %q", in, got, want)
		}
	}
}
