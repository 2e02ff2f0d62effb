package skillfs

import (
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestHostileFiles: the files of the audit (N2, N3, N15) are refused at
// once, and nothing outside the folder is read or written.
func TestHostileFiles(t *testing.T) {
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret")
	if err := os.WriteFile(secret, []byte("s3cret"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "ok.md"), []byte("# ok\n"), 0o644))
	must(t, os.Symlink("ok.md", filepath.Join(dir, "inside.md")))
	must(t, os.Symlink(secret, filepath.Join(dir, "abs.md")))
	must(t, os.Symlink("../"+filepath.Base(outside)+"/secret", filepath.Join(dir, "rel.md")))
	must(t, os.Symlink(outside, filepath.Join(dir, "outdir")))
	must(t, os.Symlink("/dev/zero", filepath.Join(dir, "zero.md")))
	must(t, syscall.Mkfifo(filepath.Join(dir, "fifo.md"), 0o644))
	sparse, err := os.Create(filepath.Join(dir, "sparse.md"))
	must(t, err)
	must(t, sparse.Truncate(8<<30))
	sparse.Close()

	want := map[string]error{
		"abs.md":        nil,
		"rel.md":        nil,
		"outdir/secret": nil,
		"zero.md":       nil, // outside the folder, and a device
		"fifo.md":       ErrSpecial,
		"sparse.md":     ErrTooLarge,
		"../x":          iofs.ErrInvalid,
	}
	// A device inside the folder (root alone may make one): /dev/zero's
	// numbers, 1:5.
	if syscall.Mknod(filepath.Join(dir, "dev.md"), syscall.S_IFCHR|0o644, 1<<8|5) == nil {
		want["dev.md"] = ErrSpecial
	}
	f, err := Open(dir)
	must(t, err)
	defer f.Close()
	if data, err := f.ReadFile("inside.md"); err != nil || string(data) != "# ok\n" {
		t.Errorf("a link inside the folder: %q, %v", data, err)
	}
	for name, want := range want {
		done := make(chan struct{})
		var data []byte
		var err error
		go func() { data, err = f.ReadFile(name); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("reading %s hangs", name)
		}
		if err == nil {
			t.Errorf("reading %s: %q, want an error", name, data)
		} else if want != nil && !errors.Is(err, want) {
			t.Errorf("reading %s: %v, want %v", name, err, want)
		}
	}
	for _, name := range []string{"outdir/planted", "abs.md"} {
		if err := f.WriteFile(name, []byte("x"), 0o644); err == nil {
			t.Errorf("writing %s through a link out of the folder succeeded", name)
		}
	}
	if err := f.WriteFile("fifo.md", []byte("x"), 0o644); !errors.Is(err, ErrSpecial) {
		t.Errorf("writing into a FIFO: %v, want ErrSpecial", err)
	}
	if data, _ := os.ReadFile(secret); string(data) != "s3cret" {
		t.Errorf("the file outside was changed: %q", data)
	}
	if _, err := os.Stat(filepath.Join(outside, "planted")); err == nil {
		t.Error("a file was written outside the folder")
	}
	must(t, f.WriteFile("tests/golden/out.txt", []byte("new"), 0o644))
	if data, err := os.ReadFile(filepath.Join(dir, "tests/golden/out.txt")); err != nil || string(data) != "new" {
		t.Errorf("a golden inside: %q, %v", data, err)
	}
}

func TestSizeCap(t *testing.T) {
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "a"), make([]byte, 11), 0o644))
	f, err := Open(dir)
	must(t, err)
	defer f.Close()
	f.max = 10
	if _, err := f.ReadFile("a"); !errors.Is(err, ErrTooLarge) {
		t.Errorf("an 11-byte file at a cap of 10: %v", err)
	}
	f.max = 11
	if _, err := f.ReadFile("a"); err != nil {
		t.Errorf("an 11-byte file at a cap of 11: %v", err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestReadBeneathAgreesWithRoot: a read resolved in one openat2 call
// gives what the root's open gives, bytes or error, for every kind of
// path (where there is no openat2 both are the root's).
func TestReadBeneathAgreesWithRoot(t *testing.T) {
	outside := t.TempDir()
	dir := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(dir, "phases", "deep"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "phases", "deep", "a.md"), []byte("# a\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(outside, "secret"), []byte("s"), 0o644))
	must(t, os.Symlink("deep/a.md", filepath.Join(dir, "phases", "link.md")))
	must(t, os.Symlink("..", filepath.Join(dir, "phases", "deep", "up")))
	must(t, os.Symlink("../"+filepath.Base(outside)+"/secret", filepath.Join(dir, "out.md")))
	must(t, os.Symlink("loop.md", filepath.Join(dir, "loop.md")))
	must(t, syscall.Mkfifo(filepath.Join(dir, "phases", "fifo.md"), 0o644))
	fast, err := Open(dir)
	must(t, err)
	defer fast.Close()
	slow, err := Open(dir)
	must(t, err)
	defer slow.Close()
	slow.beneath = nil
	if _, ok, _ := fast.readBeneath("phases/deep/up/deep/a.md"); !ok && fast.beneath != nil {
		t.Error("a file beneath the root, through a link inside it, was not read in one resolution")
	}
	for _, name := range []string{
		"phases/deep/a.md", "phases/link.md", "phases/deep/up/deep/a.md",
		"out.md", "loop.md", "phases/fifo.md", "phases", "missing.md",
		"phases/../out.md", "./phases/link.md", "phases//link.md", "/etc/passwd",
	} {
		got, gerr := fast.ReadFile(name)
		want, werr := slow.ReadFile(name)
		if string(got) != string(want) || fmt.Sprint(gerr) != fmt.Sprint(werr) {
			t.Errorf("%s: one resolution %q, %v; the root's %q, %v", name, got, gerr, want, werr)
		}
	}
	for _, name := range []string{".", "phases", "phases/deep/up", "phases/link.md", "out.md", "missing", "phases/../phases", "/etc"} {
		got, gerr := fast.ReadDir(name)
		want, werr := slow.ReadDir(name)
		if g, w := listing(got), listing(want); g != w || fmt.Sprint(gerr) != fmt.Sprint(werr) {
			t.Errorf("listing %s: one resolution %s, %v; the root's %s, %v", name, g, gerr, w, werr)
		}
	}
}

// listing shows a folder's entries with what their Info says.
func listing(entries []iofs.DirEntry) string {
	var b strings.Builder
	for _, e := range entries {
		info, err := e.Info()
		if err != nil {
			fmt.Fprintf(&b, "%s %v %v; ", e.Name(), e.Type(), err)
			continue
		}
		fmt.Fprintf(&b, "%s %v %v %d; ", e.Name(), e.Type(), info.Mode(), info.Size())
	}
	return b.String()
}
