package sqlstore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSQLiteFileDeletedOrReplaced: a database file deleted or replaced
// under an open DB stops the next write with ErrReplaced, instead of
// writing into an unlinked file where nothing keeps it (N11).
func TestSQLiteFileDeletedOrReplaced(t *testing.T) {
	ctx := context.Background()
	for _, how := range []string{"deleted", "replaced"} {
		t.Run(how, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "skillkit.db")
			d := openDB(t, "sqlite:"+file)
			if _, err := d.AddTask(ctx, "skill", nil, nil, ReviewNone); err != nil {
				t.Fatal(err)
			}
			for _, f := range []string{file, file + "-wal", file + "-shm"} {
				os.Remove(f)
			}
			if how == "replaced" {
				if err := os.WriteFile(file, nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			// AddTask folds its error to a line: the words are what is left.
			if _, err := d.AddTask(ctx, "skill", nil, nil, ReviewNone); err == nil || !strings.Contains(err.Error(), ErrReplaced.Error()) {
				t.Errorf("a task added after the file was %s: %v, want ErrReplaced", how, err)
			}
			if _, _, err := d.ClaimNext(ctx, "w"); !errors.Is(err, ErrReplaced) {
				t.Errorf("a claim after the file was %s: %v, want ErrReplaced", how, err)
			}
		})
	}
}
