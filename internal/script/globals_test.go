package script

import (
	"context"
	"slices"
	"testing"

	"github.com/skillkit/skillkit/jsstatic"
	"github.com/skillkit/skillkit/plan"
)

// TestHostGlobalsListed: every global the host defines for skill code is
// in plan.HostGlobals or jsstatic.Builtins, so that the step classifier
// never sends code that only uses the host API to the agent.
func TestHostGlobalsListed(t *testing.T) {
	h, err := NewHost(Options{WorkDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	ev, err := h.start(context.Background(), map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	defer ev.stop()
	for _, name := range ev.vm.GlobalObject().GetOwnPropertyNames() {
		if name == tickName {
			continue // not a name skill code can write
		}
		if !slices.Contains(plan.HostGlobals, name) && !slices.Contains(jsstatic.Builtins, name) {
			t.Errorf("the host defines %s, which plan.HostGlobals lacks", name)
		}
	}
}
