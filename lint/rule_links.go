package lint

import (
	"net/url"
	"path"
	"slices"
	"strings"

	"github.com/skillkit/skillkit/plan"
)

var linkRules = []Rule{
	newRule("link-broken", plan.SevError,
		"a relative link points at a file that is not in the skill", checkLinks),
}

// resolveLink resolves a link target written in file (both relative to
// the skill) to a skill-relative path. ok is false for what is not a
// local file reference: URLs, anchors, absolute paths, templates, and
// targets outside the skill folder (those depend on where the skill is
// installed, so lint cannot know them).
func resolveLink(file, target string) (string, bool) {
	t := strings.TrimSpace(target)
	if t == "" || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "/") || strings.HasPrefix(t, "~") {
		return "", false
	}
	if u, err := url.Parse(t); err != nil || u.Scheme != "" || u.Host != "" {
		return "", false
	}
	if strings.ContainsAny(t, "{}<>$*") {
		// A template ({name}.md) or a glob, not a file.
		return "", false
	}
	t, _, _ = strings.Cut(t, "#")
	t, _, _ = strings.Cut(t, "?")
	if dec, err := url.PathUnescape(t); err == nil {
		t = dec
	}
	if t == "" {
		return "", false
	}
	p := path.Clean(path.Join(path.Dir(file), t))
	if p == ".." || strings.HasPrefix(p, "../") {
		return "", false
	}
	return p, true
}

func checkLinks(p *Pass) {
	files := p.Skill.Files
	exists := func(rel string) bool {
		if rel == "." {
			return true
		}
		if _, ok := slices.BinarySearch(files, rel); ok {
			return true
		}
		// A folder: some file lies below it.
		i, _ := slices.BinarySearch(files, rel+"/")
		return i < len(files) && strings.HasPrefix(files[i], rel+"/")
	}
	for _, d := range p.Docs() {
		for _, l := range d.Links {
			rel, ok := resolveLink(d.File, l.Target)
			if !ok || exists(rel) {
				continue
			}
			p.Report(l.Pos, "link target %s does not exist (resolved to %s in the skill)", l.Target, rel)
		}
	}
}
