package lsp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/skillkit/skillkit/internal/corpus"
	"github.com/skillkit/skillkit/internal/testfs"
	"github.com/skillkit/skillkit/jsstatic"
	"github.com/skillkit/skillkit/lint"
)

// TestIncrementalMatchesFullLint edits real corpus files step by step, as
// a person typing would, and holds the server's diagnostics after each
// change (a lint that reuses the work of the last one) to those of a
// server that lints the same text from scratch, byte for byte, and its
// findings to a lint with no cache at all.
func TestIncrementalMatchesFullLint(t *testing.T) {
	type pick struct {
		skill, file string
		fences      int
	}
	var picks []pick
	for _, e := range corpus.Skills(t) {
		dir := e.Path()
		best := pick{skill: dir}
		_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") || !strings.Contains(p, "/phases/") {
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return nil
			}
			text := string(data)
			n := strings.Count(text, "\n```javascript") + strings.Count(text, "\n```js\n") + strings.Count(text, "\n```bash")
			if n > best.fences {
				best.file, best.fences = p, n
			}
			return nil
		})
		if best.file != "" {
			picks = append(picks, best)
		}
	}
	// The skills whose busiest phase or action has the most runnable
	// blocks: where reuse has the most to get wrong.
	slices.SortFunc(picks, func(a, b pick) int { return b.fences - a.fences })
	picks = picks[:min(6, len(picks))]
	for _, pk := range picks {
		t.Run(filepath.Base(pk.file), func(t *testing.T) {
			data, err := os.ReadFile(pk.file)
			if err != nil {
				t.Fatal(err)
			}
			steps := editSteps(string(data))
			var out bytes.Buffer
			inc := testServer(&out)
			uri := uriOf(pk.file)
			dir, err := lint.SkillOf(filepath.Dir(pk.file))
			if err != nil || dir == "" {
				t.Fatalf("no skill for %s: %v", pk.file, err)
			}
			for i, st := range steps {
				out.Reset()
				if err := inc.open(uri, i+1, st.text); err != nil {
					t.Fatalf("step %d (%s): %v", i, st.what, err)
				}
				matchesFresh(t, fmt.Sprintf("step %d (%s)", i, st.what), inc, out.Bytes(), dir, uri, st.text)
			}
		})
	}
}

// matchesFresh holds what inc published after opening text at uri, in
// out, to what a new server publishes for the same change, byte for
// byte, and inc's findings to a lint of the skill dir with no cache.
func matchesFresh(t *testing.T, what string, inc *server, out []byte, dir, uri, text string) {
	t.Helper()
	var fresh bytes.Buffer
	if err := testServer(&fresh).open(uri, 1, text); err != nil {
		t.Fatalf("%s, from scratch: %v", what, err)
	}
	got, want := published(t, out), published(t, fresh.Bytes())
	for u, w := range want {
		if g := got[u]; g != w {
			t.Fatalf("%s: diagnostics of %s differ from a lint from scratch\nincremental: %s\nfrom scratch: %s", what, u, g, w)
		}
	}
	for u, g := range got {
		if _, ok := want[u]; !ok && g != "[]" {
			t.Fatalf("%s: %s has diagnostics a lint from scratch has not: %s", what, u, g)
		}
	}
	rel, _ := within(dir, pathOf(uri))
	_, findings, err := lint.LintSkill(dir, map[string][]byte{rel: []byte(text)}, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if kept := inc.skills[dir].findings; !reflect.DeepEqual(kept, findings) {
		t.Fatalf("%s: findings differ from a lint with no cache:\n%v\n%v", what, kept, findings)
	}
}

// testServer is a server that writes to out, initialized.
func testServer(out *bytes.Buffer) *server {
	return &server{conn: newConn(strings.NewReader(""), out), docs: map[string]*document{}, skills: map[string]*skillState{}, initialized: true}
}

// published reads the publishDiagnostics notifications in out: each
// URI's diagnostics as JSON.
func published(t *testing.T, out []byte) map[string]string {
	t.Helper()
	c := newConn(bytes.NewReader(out), nil)
	got := map[string]string{}
	for {
		m, err := c.read()
		if err != nil {
			return got
		}
		var p struct {
			URI         string          `json:"uri"`
			Diagnostics json.RawMessage `json:"diagnostics"`
		}
		if err := json.Unmarshal(m.Params, &p); err != nil {
			t.Fatal(err)
		}
		got[p.URI] = string(p.Diagnostics)
	}
}

type editStep struct {
	what, text string
}

// editSteps is a session of edits of a file: lines inserted above
// everything (every block moves), a block changed, broken, mended,
// duplicated and deleted, a name typed a character at a time, prose
// removed, and the file put back as it was.
func editSteps(text string) []editStep {
	lines := strings.SplitAfter(text, "\n")
	join := func(ls []string) string { return strings.Join(ls, "") }
	with := func(at int, add ...string) []string {
		out := slices.Clone(lines[:at])
		out = append(out, add...)
		return append(out, lines[at:]...)
	}
	// The first fenced block: its opening and closing lines.
	open, end := -1, -1
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			if open < 0 {
				open = i
			} else {
				end = i
				break
			}
		}
	}
	steps := []editStep{{"as it is", text}}
	top := 1
	steps = append(steps, editStep{"two lines inserted at the top", join(with(top, "\n", "A note added above.\n"))})
	if open >= 0 && end > open {
		lang := strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(lines[open]), "`"))
		add := "echo added\n"
		broken := "if then fi (\n"
		if strings.HasPrefix(lang, "j") {
			add, broken = "const added = state.count;\n", "const = ;\n"
		}
		steps = append(steps,
			editStep{"a line added to the first block", join(with(end, add))},
			editStep{"the first block broken", join(with(end, add, broken))},
			editStep{"the first block mended", join(with(end, add))},
			editStep{"the first block duplicated below itself", join(with(end+1, lines[open:end+1]...))},
		)
		for _, typed := range []string{"c", "co", "cou", "coun", "count"} {
			steps = append(steps, editStep{"typing in the first block: " + typed, join(with(end, "// "+typed+"\n"))})
		}
		out := slices.Clone(lines[:open])
		steps = append(steps, editStep{"the first block deleted", join(append(out, lines[end+1:]...))})
	}
	if n := len(lines); n > 10 {
		out := slices.Clone(lines[:n/2])
		steps = append(steps, editStep{"a line in the middle deleted", join(append(out, lines[n/2+1:]...))})
	}
	return append(steps, editStep{"put back as it was", text})
}

// TestKeptDocumentsFollowTheFiles changes, under a server that keeps the
// parse of every unchanged file, the files it is not editing: on disk,
// deleted, and one whose change alters another file's findings (the
// state schema the phase's reads are checked against, a link's target).
// After each change the server's diagnostics are those of a lint from
// scratch.
func TestKeptDocumentsFollowTheFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".claude", "skills", "demo")
	skill := "---\nname: demo\ndescription: Counts files.\n---\n\n# Demo\n\nSee [the count](phases/01-count.md) and [the report](phases/02-report.md).\n"
	// The report's Timeout is not a duration: the phase reader adds that
	// diagnostic to the kept document at every lint, and it must be
	// reported once.
	report := "# Phase 2: Report\n\n## Execution\n\n### Step 1: Report\n\n- **Timeout**: forever\n\n```javascript\nconsole.log(state.count);\n```\n"
	testfs.WriteTree(t, dir, map[string]string{
		"SKILL.md":               skill,
		"phases/01-count.md":     phaseMD,
		"phases/02-report.md":    report,
		"phases/state-schema.md": schema,
	})
	var out bytes.Buffer
	inc := testServer(&out)
	phase := filepath.Join(dir, "phases", "01-count.md")
	uri := uriOf(phase)
	text := phaseMD
	write := func(rel, data string) {
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(rel)), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	steps := []struct {
		what   string
		change func()
	}{
		{"as it is", func() {}},
		{"a word typed in the phase", func() { text = strings.Replace(text, "Ask the user.", "Ask the user twice.", 1) }},
		{"the schema loses count on disk", func() {
			write("phases/state-schema.md", strings.Replace(schema, "count: number;", "total: number;", 1))
		}},
		{"the schema's field renamed, same size", func() {
			write("phases/state-schema.md", strings.Replace(schema, "count: number;", "cuont: number;", 1))
		}},
		{"the schema put back", func() { write("phases/state-schema.md", schema) }},
		{"a phase broken on disk", func() {
			write("phases/02-report.md", strings.Replace(report, "console.log(state.count);", "const = ;", 1))
		}},
		{"that phase deleted", func() {
			if err := os.Remove(filepath.Join(dir, "phases", "02-report.md")); err != nil {
				t.Fatal(err)
			}
		}},
		{"it comes back", func() { write("phases/02-report.md", report) }},
		// A file's own parse diagnostics (here the encoding's, then the
		// NUL bytes') are kept with its parse and reported at every lint
		// that takes the file from the kept documents: the steps after
		// each of these.
		{"a note saved in Latin-1", func() { write("phases/notes.md", "# Notes\n\nCaf\xe9 au lait.\n") }},
		// A link is read as its own path: renaming its target leaves it
		// dangling, and the kept parse under its name is dropped.
		{"a phase linked to the report", func() {
			if err := os.Symlink("02-report.md", filepath.Join(dir, "phases", "03-again.md")); err != nil {
				t.Fatal(err)
			}
		}},
		{"the report renamed, the same bytes", func() {
			if err := os.Rename(filepath.Join(dir, "phases", "02-report.md"), filepath.Join(dir, "phases", "02-summary.md")); err != nil {
				t.Fatal(err)
			}
		}},
		{"the note turns binary", func() { write("phases/notes.md", "# Notes\x00\x01\n") }},
		{"SKILL.md's link changed on disk", func() { write("SKILL.md", strings.Replace(skill, "02-report.md", "03-report.md", 1)) }},
		{"SKILL.md put back", func() { write("SKILL.md", skill) }},
	}
	seen := map[string]bool{}
	for i, st := range steps {
		st.change()
		out.Reset()
		if err := inc.open(uri, i+1, text); err != nil {
			t.Fatalf("%s: %v", st.what, err)
		}
		matchesFresh(t, st.what, inc, out.Bytes(), dir, uri, text)
		for _, f := range inc.skills[dir].findings {
			seen[f.Rule] = true
		}
	}
	// The changes on disk must have been seen, not only matched.
	for _, rule := range []string{"state-unknown-field", "js-syntax", "link-broken", "step-attribute", "file-encoding", "file-binary", "file-unreadable"} {
		if !seen[rule] {
			t.Errorf("no %s finding in any step: the changes on disk were not linted (%v)", rule, seen)
		}
	}
}

// TestClosedSkillForgetsItsParses closes the last open document of a
// skill: the server clears its diagnostics and forgets the parses it
// kept for the next change, which a session that opens many skills would
// otherwise hold until it ends. Opened again, the skill's diagnostics
// are a lint from scratch's.
func TestClosedSkillForgetsItsParses(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".claude", "skills", "demo")
	testfs.WriteTree(t, dir, map[string]string{
		"SKILL.md":               "---\nname: demo\ndescription: Counts files.\n---\n\n# Demo\n",
		"phases/01-count.md":     phaseMD,
		"phases/state-schema.md": schema,
	})
	var out bytes.Buffer
	inc := testServer(&out)
	uri := uriOf(filepath.Join(dir, "phases", "01-count.md"))
	broken := strings.Replace(phaseMD, "const n = state.count + 1;", "const = ;", 1)
	if err := inc.open(uri, 1, broken); err != nil {
		t.Fatal(err)
	}
	if inc.skills[dir].cache == nil {
		t.Fatal("no cache while the phase is open")
	}
	out.Reset()
	if err := inc.close(uri); err != nil {
		t.Fatal(err)
	}
	if got := published(t, out.Bytes())[uri]; got != "[]" {
		t.Fatalf("closed, the phase has diagnostics %s, want none", got)
	}
	if inc.skills[dir] != nil {
		t.Fatal("the skill's parses are kept after its last document was closed")
	}
	for i, text := range []string{broken, phaseMD} {
		out.Reset()
		if err := inc.open(uri, i+2, text); err != nil {
			t.Fatal(err)
		}
		matchesFresh(t, fmt.Sprintf("opened again (%d)", i), inc, out.Bytes(), dir, uri, text)
	}
}

// TestSwitchingFilesParsesNoBlockAgain edits one phase of a corpus skill
// and then another, as a person moving between files does. The second
// phase's parse was kept whole while the first was edited, so the cache
// of block parses never saw its blocks; at its first change the blocks
// it still holds unchanged must not be parsed again: that change runs
// goja's parser as often as the next one does (the expressions a lint
// reads each time), where it parsed every JavaScript block again.
func TestSwitchingFilesParsesNoBlockAgain(t *testing.T) {
	var dir, first, second string
	for _, e := range corpus.Skills(t) {
		phases := map[string][]string{} // by skill folder
		_ = filepath.WalkDir(e.Path(), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") || filepath.Base(filepath.Dir(p)) != "phases" {
				return nil
			}
			if data, err := os.ReadFile(p); err == nil && strings.Count(string(data), "```javascript") >= 3 {
				skill, _ := lint.SkillOf(filepath.Dir(p))
				phases[skill] = append(phases[skill], p)
			}
			return nil
		})
		for _, skill := range slices.Sorted(maps.Keys(phases)) {
			if ps := phases[skill]; skill != "" && len(ps) >= 2 {
				dir, first, second = skill, ps[0], ps[1]
				break
			}
		}
		if dir != "" {
			break
		}
	}
	if dir == "" {
		t.Fatal("no corpus skill with two phases of JavaScript")
	}
	var out bytes.Buffer
	inc := testServer(&out)
	edit := func(file string, n int) int64 {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		before := jsstatic.Parses()
		if err := inc.open(uriOf(file), n, string(data)+strings.Repeat("\nA note.\n", n)); err != nil {
			t.Fatal(err)
		}
		return jsstatic.Parses() - before
	}
	edit(first, 1)
	edit(first, 2)
	edit(second, 0) // opened as it is on disk
	if switched, next := edit(second, 1), edit(second, 2); switched != next {
		t.Errorf("%s: the first change after editing %s ran goja's parser %d times, the next change %d", second, filepath.Base(first), switched, next)
	}
}
