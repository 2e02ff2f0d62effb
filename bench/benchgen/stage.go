package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// stage copies the corpus skills into OUT/.claude/skills/<name>/, where
// every peer finds them: claudelint only discovers .claude/skills/*, and
// skills-ref and skill-check want the folder named like the skill. A name
// that is taken gets a suffix, and copy k of -copies gets "-cK"; the
// front matter name is rewritten to match the folder.
func stage(args []string) error {
	fl := flag.NewFlagSet("stage", flag.ContinueOnError)
	from := fl.String("from", "", "corpus folder (INDEX.json, or found by SKILL.md / phases/)")
	copies := fl.Int("copies", 1, "copies of each skill")
	limit := fl.Int("limit", 0, "stage only the first K skills (0: all)")
	out := fl.String("out", "", "folder to stage into")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if *from == "" || *out == "" {
		return errors.New("stage: -from and -out are required")
	}
	dirs, err := skillDirs(*from)
	if err != nil {
		return err
	}
	if *limit > 0 && len(dirs) > *limit {
		dirs = dirs[:*limit]
	}
	root := filepath.Join(*out, ".claude", "skills")
	taken := map[string]bool{}
	for k := 1; k <= *copies; k++ {
		for _, d := range dirs {
			base := skillName(d)
			if k > 1 {
				base = fmt.Sprintf("%s-c%d", base, k)
			}
			name := base
			for i := 2; taken[name]; i++ {
				name = fmt.Sprintf("%s-%d", base, i)
			}
			taken[name] = true
			if err := copySkill(d, filepath.Join(root, name), name); err != nil {
				return err
			}
		}
	}
	fmt.Printf("%d skills staged in %s\n", len(taken), root)
	return nil
}

// skillDirs lists the skills of a corpus: INDEX.json's dirs, else every
// folder holding a SKILL.md or a phases/ folder.
func skillDirs(corpus string) ([]string, error) {
	if data, err := os.ReadFile(filepath.Join(corpus, "INDEX.json")); err == nil {
		var idx []struct {
			Dir string `json:"dir"`
		}
		if err := json.Unmarshal(data, &idx); err != nil {
			return nil, fmt.Errorf("reading %s/INDEX.json: %w", corpus, err)
		}
		var out []string
		for _, e := range idx {
			out = append(out, filepath.Join(corpus, e.Dir))
		}
		return out, nil
	}
	var out []string
	err := filepath.WalkDir(corpus, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if isFile(filepath.Join(p, "SKILL.md")) || isDir(filepath.Join(p, "phases")) {
			out = append(out, p)
			return fs.SkipDir
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("looking for skills in %s: %w", corpus, err)
	}
	return out, nil
}

func isFile(p string) bool { st, err := os.Stat(p); return err == nil && st.Mode().IsRegular() }
func isDir(p string) bool  { st, err := os.Stat(p); return err == nil && st.IsDir() }

// entryFile is the document whose front matter names the skill.
func entryFile(dir string) string {
	for _, f := range []string{"SKILL.md", "orchestrator.md"} {
		if isFile(filepath.Join(dir, f)) {
			return f
		}
	}
	return ""
}

var (
	nameLine = regexp.MustCompile(`(?m)^name:[ \t]*(.*?)[ \t]*$`)
	badChars = regexp.MustCompile(`[^a-z0-9-]+`)
)

// skillName is the skill's front matter name made a valid folder name,
// else its folder's name.
func skillName(dir string) string {
	name := filepath.Base(dir)
	if f := entryFile(dir); f != "" {
		data, _ := os.ReadFile(filepath.Join(dir, f))
		if fm, ok := frontMatter(string(data)); ok {
			if m := nameLine.FindStringSubmatch(fm); m != nil {
				name = strings.Trim(m[1], `"'`)
			}
		}
	}
	name = strings.Trim(badChars.ReplaceAllString(strings.ToLower(name), "-"), "-")
	if name == "" {
		return "skill"
	}
	return name
}

// frontMatter returns the block between the opening and closing "---".
func frontMatter(s string) (string, bool) {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	if !strings.HasPrefix(s, "---\n") {
		return "", false
	}
	end := strings.Index(s[4:], "\n---")
	if end < 0 {
		return "", false
	}
	return s[4 : 4+end+1], true
}

// renameSkill sets the front matter name of an entry document.
func renameSkill(src, name string) string {
	fm, ok := frontMatter(src)
	if !ok {
		return src
	}
	src = strings.ReplaceAll(src, "\r\n", "\n")
	var nfm string
	if nameLine.MatchString(fm) {
		done := false
		nfm = nameLine.ReplaceAllStringFunc(fm, func(l string) string {
			if done {
				return l
			}
			done = true
			return "name: " + name
		})
	} else {
		nfm = "name: " + name + "\n" + fm
	}
	return "---\n" + nfm + src[4+len(fm):]
}

func copySkill(from, to, name string) error {
	entry := entryFile(from)
	return filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if rel == entry {
			data = []byte(renameSkill(string(data), name))
		}
		return os.WriteFile(dst, data, 0o644)
	})
}
