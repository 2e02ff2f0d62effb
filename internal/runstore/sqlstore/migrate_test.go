package sqlstore

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/skillkit/skillkit/internal/runstore/sqlstore/sqltest"
)

// Migrations apply once, a second open changes nothing, and a schema
// newer than the binary's is refused in one line.
func TestMigrate(t *testing.T) {
	sqltest.Each(t, func(t *testing.T, url string) {
		ctx := context.Background()
		for range 2 {
			d, err := Open(ctx, url)
			if err != nil {
				t.Fatal(err)
			}
			if v, err := d.Version(ctx); err != nil || v != SchemaVersion() {
				t.Fatalf("version %d, %v; want %d", v, err, SchemaVersion())
			}
			d.Close()
		}
		d, _ := Open(ctx, url)
		if _, err := d.exec(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, 'future', 0)`, SchemaVersion()+1); err != nil {
			t.Fatal(err)
		}
		d.Close()
		_, err := Open(ctx, url)
		if !errors.Is(err, ErrSchemaNewer) || strings.Contains(err.Error(), "\n") {
			t.Fatalf("newer schema: %v", err)
		}
	})
}

// Bad URLs and servers that do not answer are one-line errors.
func TestOpenBad(t *testing.T) {
	for url, want := range map[string]error{
		"mysql://x":                            ErrURL,
		"sqlite:":                              ErrURL,
		"postgres://nobody@127.0.0.1:1/nodb":   ErrUnreachable,
		"sqlite:/proc/no/such/dir/skillkit.db": ErrUnreachable,
	} {
		_, err := Open(context.Background(), url)
		if !errors.Is(err, want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want %v", url, err, want)
		}
	}
}
