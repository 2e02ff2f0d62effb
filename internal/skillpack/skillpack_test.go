package skillpack

import (
	"archive/zip"
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillkit/skillkit/parse"
)

func pack(t testing.TB, dir string) []byte {
	t.Helper()
	s, err := parse.Dir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Pack(&b, s); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestPackExamples packs every bundled example twice: the same bytes, the
// skill's folder at the top, and Check agrees, with the hash a run of the
// skill records.
func TestPackExamples(t *testing.T) {
	dirs, _ := filepath.Glob("../../examples/*/SKILL.md")
	if len(dirs) < 5 {
		t.Fatalf("%d examples", len(dirs))
	}
	for _, f := range dirs {
		dir := filepath.Dir(f)
		a, b := pack(t, dir), pack(t, dir)
		if !bytes.Equal(a, b) {
			t.Errorf("%s: two packs differ", dir)
		}
		info, err := Check(bytes.NewReader(a), int64(len(a)))
		if err != nil {
			t.Errorf("%s: %v", dir, err)
			continue
		}
		s, _ := parse.Dir(dir)
		if info.Name != filepath.Base(dir) || info.Hash != s.Hash || info.Files != len(s.Files) {
			t.Errorf("%s: %+v, want %s, %s, %d files", dir, info, filepath.Base(dir), s.Hash, len(s.Files))
		}
	}
}

// archive makes a zip of entries (name → content; a name ending in "@"
// is a symlink to its content) with comment.
func archive(t *testing.T, comment string, entries ...[2]string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, e := range entries {
		h := &zip.FileHeader{Name: e[0]}
		if name, ok := strings.CutSuffix(e[0], "@"); ok {
			h.Name = name
			h.SetMode(fs.ModeSymlink | 0o777)
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(e[1]))
	}
	zw.SetComment(comment)
	zw.Close()
	return b.Bytes()
}

// TestCheckRefuses: what an archive must not hold, each with why.
func TestCheckRefuses(t *testing.T) {
	good := pack(t, "../../examples/sequential")
	zr, _ := zip.NewReader(bytes.NewReader(good), int64(len(good)))
	skill := [2]string{"sequential/SKILL.md", "---\nname: sequential\ndescription: x\n---\n# S\n"}
	for _, c := range []struct {
		name, want string
		data       []byte
	}{
		{"escaping", "leaves the archive's folder", archive(t, zr.Comment, skill, [2]string{"sequential/../../.bashrc", "x"})},
		{"absolute", "leaves the archive's folder", archive(t, zr.Comment, skill, [2]string{"/etc/cron.d/x", "x"})},
		{"backslash", "backslash", archive(t, zr.Comment, skill, [2]string{`sequential\..\x`, "x"})},
		{"symlink", "a symlink", archive(t, zr.Comment, skill, [2]string{"sequential/link@", "/etc/passwd"})},
		{"duplicate", "twice", archive(t, zr.Comment, skill, skill)},
		{"duplicate by case", "twice", archive(t, zr.Comment, skill, [2]string{"sequential/skill.md", "x"})},
		{"two skills", "outside the skill's folder", archive(t, zr.Comment, skill, [2]string{"other/SKILL.md", "x"})},
		{"no SKILL.md", "no sequential/SKILL.md", archive(t, zr.Comment, [2]string{"sequential/README.md", "x"})},
		{"no hash", "carries no skill hash", archive(t, "", skill)},
		{"changed", "changed after packing", archive(t, zr.Comment, skill)},
		{"not a zip", "not a zip archive", []byte("PK\x03\x04 not really")},
	} {
		_, err := Check(bytes.NewReader(c.data), int64(len(c.data)))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.want)
		}
	}
}

// TestPackRefusesLinkOut: a symlink in the skill to a file outside it is
// refused; one to a file inside is packed as that file.
func TestPackRefusesLinkOut(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "linked")
	if err := os.CopyFS(dir, os.DirFS("../../examples/sequential")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("README.md", filepath.Join(dir, "ALIAS.md")); err != nil {
		t.Skip("no symlinks here:", err)
	}
	a := pack(t, dir)
	if _, err := Check(bytes.NewReader(a), int64(len(a))); err != nil {
		t.Errorf("a link inside the skill: %v", err)
	}
	secret := filepath.Join(t.TempDir(), "secret.txt")
	os.WriteFile(secret, []byte("not the skill's"), 0o644)
	if err := os.Symlink(secret, filepath.Join(dir, "secret.txt")); err != nil {
		t.Fatal(err)
	}
	s, err := parse.Dir(dir)
	if err != nil {
		t.Fatal(err)
	}
	err = Pack(&bytes.Buffer{}, s)
	if err == nil || !strings.Contains(err.Error(), "outside the skill") {
		t.Errorf("a link out of the skill: %v", err)
	}
}

// FuzzCheck: Check never panics or hangs on any bytes, and what it
// accepts has a SKILL.md under one folder.
func FuzzCheck(f *testing.F) {
	f.Add(pack(f, "../../examples/sequential"))
	f.Add([]byte("PK\x05\x06" + strings.Repeat("\x00", 18)))
	f.Fuzz(func(t *testing.T, data []byte) {
		info, err := Check(bytes.NewReader(data), int64(len(data)))
		if err == nil && (info.Name == "" || info.Files == 0 || info.Hash == "") {
			t.Errorf("accepted %+v", info)
		}
	})
}
