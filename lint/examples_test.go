package lint

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The examples of docs/lint-rules.md are the source of both the docs test
// and the per-rule golden folders: an example is a base skill from
// testdata/base with files of the doc laid over it.

const docsFile = "../docs/lint-rules.md"

// example is one bad or good example of a rule.
type example struct {
	base    string // testdata/base/<base>/demo
	folder  string // the skill folder's name, demo unless set
	profile string
	files   []exampleFile
	deletes []string
}

type exampleFile struct {
	path    string
	content string
	symlink bool
}

// ruleExamples maps a rule id to its "bad" and "good" examples.
type ruleExamples map[string]map[string]*example

// readExamples reads the rule sections (### id) and their example blocks:
// five-backtick fences whose info string holds bad or good and key=value
// settings (base, file, folder, profile, pad, delete) or flags (escaped, symlink).
func readExamples(t testing.TB) ruleExamples {
	t.Helper()
	f, err := os.Open(docsFile)
	if err != nil {
		t.Fatalf("reading the rule docs: %v", err)
	}
	defer f.Close()
	out := ruleExamples{}
	rule := ""
	var cur *exampleFile
	var body []string
	var pad int
	var escaped bool
	var ex *example
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if cur != nil {
			if line == "`````" {
				content := strings.Join(body, "\n") + "\n"
				if escaped {
					content = strings.NewReplacer(`\x00`, "\x00", `\xff`, "\xff").Replace(content)
				}
				for i := range pad {
					content += fmt.Sprintf("Filler line %d.\n", i+1)
				}
				cur.content = content
				ex.files = append(ex.files, *cur)
				cur = nil
				continue
			}
			body = append(body, line)
			continue
		}
		if id, ok := strings.CutPrefix(line, "### "); ok {
			rule = strings.TrimSpace(id)
			continue
		}
		info, ok := strings.CutPrefix(line, "`````")
		if !ok || info == "" {
			continue
		}
		fields := strings.Fields(info)[1:]
		kind := ""
		settings := map[string]string{}
		flags := map[string]bool{}
		for _, w := range fields {
			if k, v, ok := strings.Cut(w, "="); ok {
				settings[k] = v
			} else if w == "bad" || w == "good" {
				kind = w
			} else {
				flags[w] = true
			}
		}
		if kind == "" || rule == "" {
			t.Fatalf("%s:%d: example block without bad/good or outside a rule section", docsFile, n)
		}
		if out[rule] == nil {
			out[rule] = map[string]*example{}
		}
		ex = out[rule][kind]
		if ex == nil {
			ex = &example{}
			out[rule][kind] = ex
		}
		if b := settings["base"]; b != "" {
			ex.base = b
		}
		if fo := settings["folder"]; fo != "" {
			ex.folder = fo
		}
		if pr := settings["profile"]; pr != "" {
			ex.profile = pr
		}
		if d := settings["delete"]; d != "" {
			ex.deletes = append(ex.deletes, d)
		}
		pad, _ = strconv.Atoi(settings["pad"])
		escaped = flags["escaped"]
		cur = &exampleFile{path: settings["file"], symlink: flags["symlink"]}
		body = body[:0]
		if cur.path == "" {
			t.Fatalf("%s:%d: example block without file=", docsFile, n)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// build lays the example out as dir/demo (or dir/<folder>).
func (ex *example) build(t testing.TB, dir string) {
	t.Helper()
	if ex.base == "" {
		t.Fatal("example names no base skill")
	}
	folder := ex.folder
	if folder == "" {
		folder = "demo"
	}
	dst := filepath.Join(dir, folder)
	copyTree(t, filepath.Join("testdata", "base", ex.base, "demo"), dst)
	for _, d := range ex.deletes {
		if err := os.Remove(filepath.Join(dst, filepath.FromSlash(d))); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range ex.files {
		p := filepath.Join(dst, filepath.FromSlash(f.path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		os.Remove(p)
		var err error
		if f.symlink {
			err = os.Symlink(strings.TrimSpace(f.content), p)
		} else {
			err = os.WriteFile(p, []byte(f.content), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

func copyTree(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatalf("copying %s: %v", src, err)
	}
}
