package orchestrator

// The runtime's own name resolution, for the external tests that check it
// agrees with lint.
var Resolve = resolve
