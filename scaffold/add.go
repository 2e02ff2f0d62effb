package scaffold

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/skillkit/skillkit/parse"
	"github.com/skillkit/skillkit/plan"
)

// AddPhase inserts the phase name into the skill folder dir after the
// phase numbered after ("01", "1", "02.5"; empty means after the last) and
// returns the files it wrote.
//
// Numbering: after the last phase the new one gets the next whole number
// (03 → 04). Between two phases it gets the middle tenth: between 01 and
// 02 it is 01.5, between 01 and 01.5 it is 01.2, between 01.5 and 02 it
// is 01.7, and so on until no tenth is left (then add refuses: renumber by
// hand). Tenths only, because a phase number's fraction sorts as a whole
// number (02.25 would come after 02.5).
//
// The previous phase's Next Phase link is rewired to the new phase, and the
// new phase links to the one that followed.
func AddPhase(dir, name, after string) ([]string, error) {
	if err := CheckName("phase", name); err != nil {
		return nil, err
	}
	s, err := parse.Dir(dir)
	if err != nil {
		return nil, fmt.Errorf("adding phase %s: %w", name, err)
	}
	if len(s.Phases) == 0 {
		return nil, invalidf("%s has no numbered phases to add to (mode %s); add an action instead", dir, s.Mode)
	}
	if err := checkPhaseName(name, s.Mode == plan.ModeHybrid); err != nil {
		return nil, err
	}
	output := name + ".json"
	for _, p := range s.Phases {
		if p.Slug == name {
			return nil, fmt.Errorf("adding phase %s: %s: %w", name, p.Doc.File, ErrExists)
		}
		for _, o := range p.Outputs {
			if o.File == output {
				return nil, fmt.Errorf("adding phase %s: %s: phase %s already writes %s: %w", name, o.Pos, p.Doc.File, output, ErrExists)
			}
		}
	}
	i, err := findPhase(s.Phases, after)
	if err != nil {
		return nil, err
	}
	prev := s.Phases[i]
	var next *plan.Phase
	if i+1 < len(s.Phases) {
		next = s.Phases[i+1]
	}
	n, err := between(prev.Number, next)
	if err != nil {
		return nil, err
	}
	raw := fmt.Sprintf("%0*d", max(majorWidth(prev.Number.Raw), 2), n.Major)
	if n.Minor != 0 {
		raw += "." + strconv.Itoa(n.Minor)
	}
	dirOf := path.Dir(prev.Doc.File)
	rel := path.Join(dirOf, phaseFileName(raw, name))

	d := phaseData{Skill: s.Name, Number: n.String(), Slug: name, Title: title(name), Output: output, PrevNumber: phaseNum(prev)}
	if len(prev.Outputs) > 0 {
		d.PrevOutput = prev.Outputs[0].File
	}
	if next != nil {
		d.Next = &link{Text: "Phase " + phaseNum(next) + ": " + next.Title, Target: relTo(dirOf, next.Doc.File)}
	}
	content, err := render("phase.md.tmpl", d)
	if err != nil {
		return nil, err
	}
	e := newEdits(dir)
	if err := e.create(rel, content); err != nil {
		return nil, fmt.Errorf("adding phase %s: %w", name, err)
	}
	to := phaseLink(n.String(), name, path.Base(rel))
	if err := rewireNext(e, prev, to); err != nil {
		return nil, fmt.Errorf("adding phase %s: %w", name, err)
	}
	if err := updatePhaseList(e, s.Phases, i, strings.TrimSuffix(path.Base(rel), ".md"), name); err != nil {
		return nil, fmt.Errorf("adding phase %s: %w", name, err)
	}
	return e.write()
}

// updatePhaseList keeps SKILL.md's list of the phases true where it has
// one: a line that names every phase in order, by id ("01-collect,
// 02-analyze") or by name ("collect, analyze"), as skillkit new writes
// it, gets the new phase after phases[i]. Lists in other shapes are the
// author's to edit, and so is the name of a lone phase, which is no list
// and may be any word of the text.
func updatePhaseList(e *edits, phases []*plan.Phase, i int, id, slug string) error {
	if _, err := os.Stat(filepath.Join(e.dir, "SKILL.md")); err != nil || len(phases) < 2 {
		return nil
	}
	f, err := e.file("SKILL.md")
	if err != nil {
		return err
	}
	var ids, slugs []string
	for _, p := range phases {
		ids, slugs = append(ids, p.ID()), append(slugs, p.Slug)
	}
	lists := [][2][]string{
		{ids, slices.Insert(slices.Clone(ids), i+1, id)},
		{slugs, slices.Insert(slices.Clone(slugs), i+1, slug)},
	}
	for n, line := range f.lines {
		changed := line
		for _, l := range lists {
			changed = strings.Replace(changed, strings.Join(l[0], ", "), strings.Join(l[1], ", "), 1)
		}
		if changed != line {
			if err := e.change("SKILL.md", lineOp{line: n + 1, del: 1, insert: []string{changed}}); err != nil {
				return err
			}
		}
	}
	return nil
}

// findPhase returns the index of the phase numbered after, or the last
// phase when after is empty.
func findPhase(phases []*plan.Phase, after string) (int, error) {
	if after == "" {
		return len(phases) - 1, nil
	}
	want := strings.TrimLeft(after, "0")
	var nums []string
	for i, p := range phases {
		if p.Number.Raw == after || p.Number.String() == want || strings.TrimLeft(p.Number.Raw, "0") == want {
			return i, nil
		}
		nums = append(nums, p.Number.Raw)
	}
	return 0, invalidf("--after %s names no phase; the phases are numbered %s", after, strings.Join(nums, ", "))
}

// between returns the number for a phase after prev and before next (nil
// when prev is the last).
func between(prev plan.Number, next *plan.Phase) (plan.Number, error) {
	if next == nil {
		return plan.Number{Major: prev.Major + 1}, nil
	}
	lo, hi := prev.Minor, 10
	if lo >= 10 {
		// A hand-written two-digit fraction: stay in hundredths.
		hi = 100
	}
	if next.Number.Major == prev.Major {
		hi = next.Number.Minor
	}
	mid := (lo + hi) / 2
	if mid <= lo {
		return plan.Number{}, invalidf("no phase number is left between %s and %s; renumber the phases after %s by hand", prev.Raw, next.Number.Raw, prev.Raw)
	}
	return plan.Number{Major: prev.Major, Minor: mid}, nil
}

// majorWidth is the number of leading digits of a raw phase number, so
// that "01" begets "01.5" and "1" begets "1.5".
func majorWidth(raw string) int {
	n := 0
	for n < len(raw) && raw[n] >= '0' && raw[n] <= '9' {
		n++
	}
	return n
}

// phaseNum is the number a phase's links and headings call it by.
func phaseNum(p *plan.Phase) string {
	if p.HeadingNumber != "" {
		return p.HeadingNumber
	}
	return p.Number.String()
}

// relTo makes target (relative to the skill) relative to the folder dir.
func relTo(dir, target string) string {
	if path.Dir(target) == dir {
		return path.Base(target)
	}
	up := strings.Repeat("../", strings.Count(dir, "/")+1)
	if dir == "." {
		up = ""
	}
	return up + target
}

// rewireNext points p's Next Phase link at to, adding the section when p
// has none.
func rewireNext(e *edits, p *plan.Phase, to *link) error {
	line := "→ [" + to.Text + "](" + to.Target + ")"
	file := p.Doc.File
	if p.Next != nil {
		f, err := e.file(file)
		if err != nil {
			return err
		}
		n := p.Next.Pos.Line
		old := f.lines[n-1]
		re := regexp.MustCompile(`\[[^\]]*\]\(` + regexp.QuoteMeta(p.Next.Target) + `\)`)
		if re.MatchString(old) {
			line = re.ReplaceAllLiteralString(old, "["+to.Text+"]("+to.Target+")")
		}
		return e.change(file, lineOp{line: n, del: 1, insert: []string{line}})
	}
	for _, sec := range p.Doc.Sections {
		if sec.Key == plan.SecNextPhase {
			// A Next Phase section without a link ("none, this is the last
			// phase"): its text is replaced by the link.
			return e.change(file, lineOp{line: sec.Pos.Line + 1, del: sec.EndLine - sec.Pos.Line, insert: []string{"", line, ""}})
		}
	}
	f, err := e.file(file)
	if err != nil {
		return err
	}
	add := []string{"## Next Phase", "", line, ""}
	end := len(f.lines)
	if end > 0 && f.lines[end-1] == "" {
		// Keep the file's final newline last.
		end--
	}
	if end > 0 && strings.TrimSpace(f.lines[end-1]) != "" {
		add = append([]string{""}, add...)
	}
	if end < len(f.lines) {
		add = add[:len(add)-1]
	}
	return e.change(file, lineOp{line: end + 1, insert: add})
}
