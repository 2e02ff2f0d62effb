package runstore_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/skillkit/skillkit/internal/runstore"
	"github.com/skillkit/skillkit/internal/runstore/fsstore"
	"github.com/skillkit/skillkit/internal/runstore/sqlstore"
	"github.com/skillkit/skillkit/internal/runstore/sqlstore/sqltest"
)

func TestDirUnder(t *testing.T) {
	root := t.TempDir()
	for _, tc := range []struct {
		segs []string
		ok   bool
	}{
		{[]string{"review", "20260101-000000-abcdef"}, true},
		{[]string{"CCW Loop", "id"}, true},
		{[]string{"../../../../tmp/x", "id"}, false},
		{[]string{"..", "id"}, false},
		{[]string{".", "id"}, false},
		{[]string{"a\\b", "id"}, false},
		{[]string{"a\x00b", "id"}, false},
		{[]string{"", "id"}, false},
		{[]string{"skill", "../id"}, false},
	} {
		dir, err := runstore.DirUnder(root, tc.segs...)
		if tc.ok != (err == nil) {
			t.Errorf("DirUnder(%q) = %q, %v; want ok %v", tc.segs, dir, err, tc.ok)
		}
		if err != nil && !errors.Is(err, runstore.ErrBadSegment) {
			t.Errorf("DirUnder(%q): %v is not ErrBadSegment", tc.segs, err)
		}
	}
}

// TestStoresRefuseEscapingNames: whatever the caller checked, a store
// does not make a folder outside its root from a record's names (N1).
func TestStoresRefuseEscapingNames(t *testing.T) {
	base := t.TempDir()
	db, err := sqlstore.Open(context.Background(), sqltest.SQLite(t))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	stores := map[string]runstore.Store{
		"fs":     fsstore.New(fsstore.Options{Base: filepath.Join(base, "proj"), NoSync: true}),
		"sqlite": db.Store(filepath.Join(base, "work")),
	}
	for name, st := range stores {
		start := runstore.Start{RunID: runstore.NewID(time.Now()), Skill: "../../../../escaped-" + name}
		_, err := st.Create(runstore.NewRun{Start: start}, runstore.ClaimOptions{})
		if !errors.Is(err, runstore.ErrBadSegment) {
			t.Errorf("%s: Create with skill %q: %v, want ErrBadSegment", name, start.Skill, err)
		}
	}
	entries, _ := os.ReadDir(base)
	for _, e := range entries {
		if e.Name() != "proj" && e.Name() != "work" {
			t.Errorf("a folder %s was made outside the stores' roots", e.Name())
		}
	}
}
