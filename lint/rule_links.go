package lint

import (
	"fmt"
	"net/url"
	"path"
	"strings"

	"github.com/skillkit/skillkit/plan"
)

var linkRules = []Rule{
	newRule("link-broken", plan.SevError,
		"a relative link points at a markdown document or folder that is not in the skill", checkLinks(false)),
	newRule("link-asset-missing", plan.SevError,
		"a relative link points at a script, template or other asset that is not in the skill", checkLinks(true)),
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

// isTemplateDoc reports whether a document is a template for a file that
// a skill generates elsewhere (templates/…): its relative links are
// relative to where the generated file lands, not to the template.
func isTemplateDoc(file string) bool {
	return strings.HasPrefix(file, "templates/") || strings.Contains(file, "/templates/")
}

// isDocTarget reports whether a link target is a markdown document or a
// folder, as opposed to an asset.
func isDocTarget(rel string) bool {
	ext := strings.ToLower(path.Ext(rel))
	return ext == "" || ext == ".md" || ext == ".markdown"
}

// checkLinks reports missing link targets: documents and folders, or,
// with assets set, every other kind of file. The two are apart because
// documents are what an agent reads on (a broken one loses instructions),
// and because copies of skills often leave assets out.
func checkLinks(assets bool) func(p *Pass) {
	return func(p *Pass) {
		files := map[string]bool{}
		dirs := map[string]bool{".": true}
		for _, f := range p.Skill.Files {
			files[f] = true
			for d := path.Dir(f); d != "."; d = path.Dir(d) {
				dirs[d] = true
			}
		}
		// Links to one missing file have one cause: one finding at the
		// first, counting the others.
		type broken struct {
			link  *plan.Link
			where string
			more  int
		}
		var order []string
		byTarget := map[string]*broken{}
		for _, d := range p.Docs() {
			if isTemplateDoc(d.File) {
				continue
			}
			for _, l := range d.Links {
				rel, ok := resolveLink(d.File, l.Target)
				if !ok || files[rel] || dirs[rel] || isDocTarget(rel) == assets {
					continue
				}
				if b := byTarget[rel]; b != nil {
					b.more++
					continue
				}
				where := ""
				if rel != strings.TrimPrefix(l.Target, "./") {
					where = " (" + rel + " in the skill)"
				}
				byTarget[rel] = &broken{link: l, where: where}
				order = append(order, rel)
			}
		}
		for _, rel := range order {
			b := byTarget[rel]
			more := ""
			if b.more > 0 {
				more = fmt.Sprintf("; %s to it", plural(b.more, "more link"))
			}
			p.Report(b.link.Pos, "link target %s does not exist%s%s", b.link.Target, b.where, more)
		}
	}
}
