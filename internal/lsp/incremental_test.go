package lsp

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/skillkit/skillkit/internal/corpus"
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
			rel, _ := within(dir, pk.file)
			for i, st := range steps {
				out.Reset()
				if err := inc.open(uri, i+1, st.text); err != nil {
					t.Fatalf("step %d (%s): %v", i, st.what, err)
				}
				var fresh bytes.Buffer
				if err := testServer(&fresh).open(uri, i+1, st.text); err != nil {
					t.Fatalf("step %d (%s), from scratch: %v", i, st.what, err)
				}
				got, want := published(t, out.Bytes()), published(t, fresh.Bytes())
				for u, w := range want {
					if g := got[u]; g != w {
						t.Fatalf("step %d (%s): diagnostics of %s differ from a lint from scratch\nincremental: %s\nfrom scratch: %s", i, st.what, u, g, w)
					}
				}
				for u, g := range got {
					if _, ok := want[u]; !ok && g != "[]" {
						t.Fatalf("step %d (%s): %s has diagnostics a lint from scratch has not: %s", i, st.what, u, g)
					}
				}
				_, findings, err := lint.LintSkill(dir, map[string][]byte{rel: []byte(st.text)}, "", nil)
				if err != nil {
					t.Fatal(err)
				}
				if kept := inc.skills[dir].findings; !reflect.DeepEqual(kept, findings) {
					t.Fatalf("step %d (%s): findings differ from a lint with no cache:\n%v\n%v", i, st.what, kept, findings)
				}
			}
		})
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
