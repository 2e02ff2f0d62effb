package plan

import (
	"path"
	"regexp"
	"slices"
	"strings"
)

// actionIDPattern is a name written as an action id.
var actionIDPattern = regexp.MustCompile(`^action-[A-Za-z0-9][A-Za-z0-9_-]*$`)

// namePattern is a catalog cell or returned string that names one thing
// (INIT, init, action-init), as opposed to prose ("Initialize the run").
var namePattern = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]*$`)

// IsActionID reports whether a name is written as an action id
// (action-init), the form graph nodes must take to count as actions.
func IsActionID(name string) bool { return actionIDPattern.MatchString(name) }

// IsActionName reports whether a string is written as one name (INIT,
// init, action-init) rather than prose: only such strings are taken to
// name an action, by lint and by the runtime alike.
func IsActionName(name string) bool { return namePattern.MatchString(name) }

// ResolveAction returns the action a name as written refers to, or nil.
// Catalogs and decision logic name actions by id (action-init), without
// the prefix, in capitals or with underscores (init, INIT, INIT_RUN for
// action-init-run). Lint and the runtime both resolve through here, so a
// name that lints clean is one the run can select.
func (s *Skill) ResolveAction(name string) *Action {
	if a := s.Action(name); a != nil {
		return a
	}
	if !IsActionName(name) {
		return nil
	}
	lower := strings.ToLower(strings.ReplaceAll(name, "_", "-"))
	if a := s.Action(lower); a != nil {
		return a
	}
	if !strings.HasPrefix(lower, "action-") {
		return s.Action("action-" + lower)
	}
	return nil
}

// ResolveRow returns the action a catalog row names: the file its Action
// cell links to, else the action its cell's text resolves to; nil when
// neither names an action file.
func (s *Skill) ResolveRow(r *CatalogRow) *Action {
	if r.Link != "" {
		target, _, _ := strings.Cut(r.Link, "#")
		if base := path.Base(target); strings.HasSuffix(base, ".md") {
			if a := s.Action(strings.TrimSuffix(base, ".md")); a != nil {
				return a
			}
		}
	}
	return s.ResolveAction(r.Action)
}

// MissingActionFile is the file name an unresolved action name would
// have: what lint tells the author to create.
func MissingActionFile(name string) string {
	if IsActionID(name) {
		return name
	}
	return "action-" + strings.ToLower(strings.ReplaceAll(name, "_", "-"))
}

// Action returns the action a mermaid node names: its label or id when
// written as an action id, "" otherwise (start, end and decision nodes
// are not actions).
func (n GraphNode) Action() string {
	if l := strings.TrimSpace(n.Label); IsActionID(l) {
		return l
	}
	if IsActionID(n.ID) {
		return n.ID
	}
	return ""
}

// RowFile returns the file of the skill a catalog row of c names when
// the row is no action file: real catalogs also list workers or agents
// kept as their own documents (workers/worker-a.md). It is the file the
// Action cell links to, else the one markdown file named after the cell
// (worker-a.md anywhere in the skill); "" when there is none.
func (s *Skill) RowFile(c *Catalog, r *CatalogRow) string {
	if r.Link != "" {
		target, _, _ := strings.Cut(r.Link, "#")
		rel := path.Clean(path.Join(path.Dir(c.File), target))
		if slices.Contains(s.Files, rel) {
			return rel
		}
	}
	if !IsActionName(r.Action) {
		return ""
	}
	found := ""
	for _, f := range s.Files {
		if strings.EqualFold(path.Base(f), r.Action+".md") {
			if found != "" {
				return "" // two candidates: the name does not say which
			}
			found = f
		}
	}
	return found
}
