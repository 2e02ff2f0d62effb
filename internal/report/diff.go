package report

import (
	"encoding/json"
	"maps"
	"slices"

	"github.com/skillkit/skillkit/internal/runstore"
)

// unitDiff is what one action, or one step, changed in the skill's state.
type unitDiff struct {
	Unit string
	// Position is its place in the run (the event's position), 0 when the
	// record does not say.
	Position int
	Action   bool
	Outcome  string
	Changes  []change
}

// change is one leaf of the state that a unit added, removed or changed:
// its dotted path and its values as JSON.
type change struct {
	Path, Before, After string
}

// Kind says whether the change added, removed or changed the leaf.
func (c change) Kind() string {
	switch {
	case c.Before == "":
		return "added"
	case c.After == "":
		return "removed"
	}
	return "changed"
}

// stateDiffs replays the states the events carry and diffs the state at
// each action's start with the state at its end; a step is listed too
// when it changed something. Every action is listed, a change or not: that
// an action changed nothing is often the bug.
func stateDiffs(events []runstore.Event) []unitDiff {
	var out []unitDiff
	state := map[string]string{}
	before := map[string]map[string]string{}
	var fold runstore.StateFold
	for _, e := range events {
		key, unit := "", ""
		switch {
		case e.Step != "":
			key, unit = "step:"+e.Step, e.Step
		case e.Action != "":
			key, unit = "action:"+e.Action, e.Action
		}
		if key != "" && e.Opens() {
			before[key] = state
		}
		if changed, err := fold.Apply(&e); err == nil && changed {
			state = map[string]string{}
			flatten("", fold.State(), state)
		}
		start, ok := before[key]
		if !ok || !ended(e) {
			continue
		}
		d := unitDiff{Unit: unit, Action: e.Action != "", Outcome: string(e.To), Changes: diff(start, state)}
		if e.Record != nil {
			d.Position = e.Record.Step
		}
		delete(before, key)
		if d.Action || len(d.Changes) > 0 {
			out = append(out, d)
		}
	}
	return out
}

// ended reports whether e is a step's or an action's last transition:
// the one that carries its record. A failure a retry follows carries
// none; an aborted step is never recorded.
func ended(e runstore.Event) bool {
	return e.Record != nil || e.To == "aborted" || (e.Action != "" && e.To == "failed")
}

// flatten writes the leaves of v under prefix: objects are walked, any
// other value (an array too) is a leaf, as JSON.
func flatten(prefix string, v any, out map[string]string) {
	if m, ok := v.(map[string]any); ok && len(m) > 0 {
		for k, x := range m {
			p := k
			if prefix != "" {
				p = prefix + "." + k
			}
			flatten(p, x, out)
		}
		return
	}
	b, _ := json.Marshal(v)
	out[prefix] = string(b)
}

// diff lists the leaves that differ between two flattened states, by
// path.
func diff(before, after map[string]string) []change {
	var out []change
	for _, p := range slices.Sorted(maps.Keys(union(before, after))) {
		if before[p] != after[p] {
			out = append(out, change{Path: p, Before: before[p], After: after[p]})
		}
	}
	return out
}

func union(a, b map[string]string) map[string]bool {
	u := map[string]bool{}
	for k := range a {
		u[k] = true
	}
	for k := range b {
		u[k] = true
	}
	return u
}
