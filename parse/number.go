package parse

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/skillkit/skillkit/plan"
)

// phaseFile matches a numbered phase file name: "02-x.md", "02.5-x.md",
// "01-5-x.md" (read as 1.5, as spec-generator writes it), "03a-x.md".
var phaseFile = regexp.MustCompile(`^(\d+)(?:[.-](\d{1,2})(?:[-_.]|$)|([a-z])(?:[-_.]|$)|[-_.]|$)(.*)$`)

// phaseNumber splits a file name (without .md) into its number and slug.
// ok is false when the name does not start with digits.
func phaseNumber(base string) (n plan.Number, slug string, ok bool) {
	mm := phaseFile.FindStringSubmatch(base)
	if mm == nil {
		return n, "", false
	}
	n.Major, _ = strconv.Atoi(mm[1])
	if mm[2] != "" {
		n.Minor, _ = strconv.Atoi(mm[2])
	}
	n.Letter = mm[3]
	slug = mm[4]
	raw := base[:len(base)-len(slug)]
	n.Raw = strings.TrimRight(raw, "-_.")
	return n, slug, true
}
