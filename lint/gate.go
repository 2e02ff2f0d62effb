package lint

import "slices"

// unrunnable are the rules whose error-level findings make a skill
// unrunnable (DESIGN §3.1): a run refuses to start on them. Every other
// lint error is printed as a warning when a run starts, and the run goes
// on (a step whose code is broken goes to the agent); --strict refuses on
// any lint error. docs/runtime.md lists the same ids, which a test checks.
var unrunnable = []string{
	// Files the runner cannot read.
	"file-unreadable", "file-binary", "file-too-deep",
	// Two phases in the same place: their order is undefined.
	"phase-number-duplicate",
	// The state cannot be validated against a schema that does not compile.
	"state-schema-invalid",
	// Hook commands the runtime cannot attach.
	"hooks-invalid",
	// A step attribute the runtime cannot apply (a retry count, a backoff,
	// a timeout it cannot read).
	"step-attribute",
	// An output the run would look for outside its folders.
	"output-path-outside",
}

// Unrunnable reports whether an error of the rule stops a run from
// starting.
func Unrunnable(ruleID string) bool { return slices.Contains(unrunnable, ruleID) }

// UnrunnableRules returns the ids of the rules Unrunnable holds, sorted.
func UnrunnableRules() []string {
	out := slices.Clone(unrunnable)
	slices.Sort(out)
	return out
}
