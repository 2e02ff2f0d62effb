package parse

import (
	"regexp"
)

// stepHeading matches "Step 2", "Step 2.1: Title", "Step 3 - Title" and
// the Chinese "步骤 2".
var stepHeading = regexp.MustCompile(`^(?i:step|步骤)\s*(\d+(?:\.\d+)*)\s*[:：.\-–—]?\s*(.*)$`)

// phaseTitle matches a "Phase N:" prefix of a phase's H1.
var phaseTitle = regexp.MustCompile(`^(?i:phase)\s+([0-9]+(?:[.-][0-9]+)?[a-z]?)\s*[:：.\-–—]?\s*(.*)$`)
