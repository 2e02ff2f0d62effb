package parse

import (
	"regexp"
)

// phaseTitle matches a "Phase N:" prefix of a phase's H1.
var phaseTitle = regexp.MustCompile(`^(?i:phase)\s+([0-9]+(?:[.-][0-9]+)?[a-z]?)\s*[:：.\-–—]?\s*(.*)$`)
