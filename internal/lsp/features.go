package lsp

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/skillkit/skillkit/lint"
	"github.com/skillkit/skillkit/plan"
)

// stateOf returns the skill folder and the last lint of the skill that
// holds path, and path relative to it; nil when the skill was not linted.
// A skill inside another's folder holds its files as lint.SkillOf finds
// them: the nearest, the one with the longest folder.
func (s *server) stateOf(path string) (string, *skillState, string) {
	best, bestRel := "", ""
	for dir := range s.skills {
		if rel, ok := within(dir, path); ok && len(dir) > len(best) {
			best, bestRel = dir, rel
		}
	}
	if best == "" {
		return "", nil, ""
	}
	return best, s.skills[best], bestRel
}

// codeActions offers the fixes of the findings on the requested lines.
func (s *server) codeActions(p codeActionParams) []codeAction {
	doc := pathOf(p.TextDocument.URI)
	dir, st, rel := s.stateOf(doc)
	out := []codeAction{}
	if st == nil {
		return out
	}
	lines := s.lineSource()
	for _, f := range st.findings {
		if f.File != rel || len(f.Fix) == 0 || f.Line-1 < p.Range.Start.Line || f.Line-1 > p.Range.End.Line {
			continue
		}
		changes := map[string][]textEdit{}
		for _, e := range f.Fix {
			abs := filepath.Join(dir, filepath.FromSlash(e.File))
			uri := uriOf(abs)
			if d := s.docs[abs]; d != nil {
				uri = d.uri
			}
			changes[uri] = append(changes[uri], toTextEdit(e, lint.LineEnding(s.textOf(abs))))
		}
		out = append(out, codeAction{
			Title: "Fix: " + f.Message, Kind: "quickfix", IsPreferred: true,
			Diagnostics: []diagnostic{toDiagnostic(f, lines(doc, f.Line))},
			Edit:        workspaceEdit{Changes: changes},
		})
	}
	return out
}

// toTextEdit turns a whole-line edit into an LSP edit: from the start of
// its first line to the start of the line after its last. Its lines end
// with nl, the file's line ending, as lint --fix writes them.
func toTextEdit(e lint.Edit, nl string) textEdit {
	text := ""
	if len(e.Lines) > 0 {
		text = strings.Join(e.Lines, nl) + nl
	}
	return textEdit{
		Range:   lspRange{Start: position{e.Line - 1, 0}, End: position{max(e.EndLine, e.Line-1), 0}},
		NewText: text,
	}
}

var (
	// linkAt is a markdown link, label and target (the group).
	linkAt = regexp.MustCompile(`\[[^\]]*\]\(([^)\s]+)\)`)
	// stateRef is state.field.
	stateRef = regexp.MustCompile(`\bstate\.([A-Za-z_$][\w$]*)`)
	// wordAt is an identifier or action id.
	wordAt = regexp.MustCompile(`[A-Za-z_][\w-]*`)
)

// spanAt returns the submatch group of the match of re that covers the
// UTF-16 column col of line, "" when none does.
func spanAt(re *regexp.Regexp, line string, col, group int) string {
	for _, m := range re.FindAllStringSubmatchIndex(line, -1) {
		if utf16Len(line[:m[0]]) <= col && col <= utf16Len(line[:m[1]]) {
			return line[m[2*group]:m[2*group+1]]
		}
	}
	return ""
}

func utf16Len(s string) int { return utf16Col(s, len([]rune(s))+1) }

// definition finds what the word under the cursor names: a link's file,
// a state field's declaration in the state schema, an action's file.
func (s *server) definition(p textDocumentPositionParams) any {
	doc := pathOf(p.TextDocument.URI)
	dir, st, rel := s.stateOf(doc)
	if st == nil {
		return nil
	}
	line := s.lineSource()(doc, p.Position.Line+1)
	col := p.Position.Character
	at := func(file string, n int) any {
		return location{URI: uriOf(filepath.Join(dir, filepath.FromSlash(file))), Range: lspRange{Start: position{n, 0}, End: position{n, 0}}}
	}
	if target := spanAt(linkAt, line, col, 1); target != "" {
		t, _, _ := strings.Cut(target, "#")
		file := path.Clean(path.Join(path.Dir(rel), t))
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(file))); err == nil {
			return at(file, 0)
		}
	}
	if field := spanAt(stateRef, line, col, 1); field != "" {
		if ss := st.skill.StateSchema; ss != nil {
			if n := s.declarationLine(filepath.Join(dir, filepath.FromSlash(ss.File)), field); n >= 0 {
				return at(ss.File, n)
			}
		}
	}
	if word := spanAt(wordAt, line, col, 0); word != "" {
		if a := st.skill.ResolveAction(word); a != nil {
			return at(a.Doc.File, max(a.Doc.TitlePos.Line-1, 0))
		}
		if c := st.skill.Catalog; c != nil {
			for _, r := range c.Rows {
				if r.Action == word {
					if f := st.skill.RowFile(c, r); f != "" {
						return at(f, 0)
					}
				}
			}
		}
	}
	return nil
}

// declarationLine is the 0-based line of the state schema file where a
// field is declared (name: or "name": at the start of a line), -1 when
// there is none.
func (s *server) declarationLine(file, field string) int {
	decl := regexp.MustCompile(`^\s*["']?` + regexp.QuoteMeta(field) + `["']?\??\s*:`)
	for i, l := range s.linesOf(file) {
		if decl.MatchString(l) {
			return i
		}
	}
	return -1
}

// hover says what is under the cursor: a state field (its declaration in
// the state schema), an action (its catalog row: purpose, preconditions,
// file), a heading (what the parser reads it as), else the step, action
// or decision logic the line is in: whether it runs natively or goes to
// the agent, and why.
func (s *server) hover(p textDocumentPositionParams) any {
	doc := pathOf(p.TextDocument.URI)
	dir, st, rel := s.stateOf(doc)
	if st == nil {
		return nil
	}
	text := s.lineSource()(doc, p.Position.Line+1)
	if h := s.hoverAt(dir, st.skill, text, p.Position.Character); h != "" {
		return hover{Contents: markupContent{Kind: "markdown", Value: h}}
	}
	line := p.Position.Line + 1
	sk := st.skill
	for _, ph := range sk.Phases {
		if ph.Doc.File != rel {
			continue
		}
		var at *plan.Step
		for _, step := range ph.Steps {
			if step.Pos.Line <= line || step.Whole {
				at = step
			}
		}
		if at != nil {
			return classHover("Step "+stepName(at), at.Class)
		}
	}
	for _, a := range sk.Actions {
		if a.Doc.File == rel {
			return classHover("Action "+a.ID, a.Execution.Class)
		}
	}
	if o := sk.Orchestrator; o != nil && o.Doc.File == rel && o.Decision != nil {
		return classHover("selectNextAction", o.Class)
	}
	return nil
}

func stepName(st *plan.Step) string {
	if st.Number != "" {
		return st.Number + ": " + st.Title
	}
	return st.Title
}

func classHover(what string, c plan.Class) any {
	if c.Kind == "" {
		return nil
	}
	runs := "runs natively (skillkit runs its code)"
	if c.Kind == plan.ClassAgent {
		runs = "goes to the agent (its text and code are instructions)"
	}
	return hover{Contents: markupContent{Kind: "markdown", Value: fmt.Sprintf("**%s** %s: %s", what, runs, c.Reason)}}
}

// hoverAt is the hover of what is at column col of line, "" when it is
// no state field, action or heading.
func (s *server) hoverAt(dir string, sk *plan.Skill, line string, col int) string {
	if field := spanAt(stateRef, line, col, 1); field != "" {
		if ss := sk.StateSchema; ss != nil {
			file := filepath.Join(dir, filepath.FromSlash(ss.File))
			if n := s.declarationLine(file, field); n >= 0 {
				decl := strings.TrimSpace(s.linesOf(file)[n])
				return fmt.Sprintf("**state.%s**: `%s` (%s:%d)", field, decl, ss.File, n+1)
			}
		}
		return fmt.Sprintf("**state.%s**: not declared in the state schema", field)
	}
	if word := spanAt(wordAt, line, col, 0); word != "" {
		if h := actionHover(sk, word); h != "" {
			return h
		}
	}
	if m := headingLine.FindStringSubmatch(line); m != nil {
		if key := plan.SectionKey(m[2]); key != "" {
			return fmt.Sprintf("**%s**: heading of level %d, read as the section `%s`", m[2], len(m[1]), key)
		}
	}
	return ""
}

// headingLine matches an ATX heading: its marks and its text.
var headingLine = regexp.MustCompile(`^(#{1,6})[ \t]+(.+?)[ \t#]*$`)

// actionHover describes the action id names: its catalog row (purpose and
// preconditions) and its file.
func actionHover(sk *plan.Skill, id string) string {
	var b strings.Builder
	if c := sk.Catalog; c != nil {
		for _, r := range c.Rows {
			if r.Action != id {
				continue
			}
			fmt.Fprintf(&b, "**%s** (catalog row, line %d)", id, r.Pos.Line)
			if r.Purpose != "" {
				fmt.Fprintf(&b, ": %s", r.Purpose)
			}
			for _, pre := range r.Preconditions {
				fmt.Fprintf(&b, "\n\n- when `%s`", pre.JS)
			}
			if f := sk.RowFile(c, r); f != "" {
				fmt.Fprintf(&b, "\n\nfile: %s", f)
			}
			return b.String()
		}
	}
	if a := sk.ResolveAction(id); a != nil {
		fmt.Fprintf(&b, "**%s**: %s, %s", id, a.Doc.Title, a.Doc.File)
		for _, pre := range a.Preconditions {
			fmt.Fprintf(&b, "\n\n- when `%s`", pre.JS)
		}
		return b.String()
	}
	return ""
}
