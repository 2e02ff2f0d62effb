package sqlstore

import (
	"context"
	"errors"
	"slices"
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

// A database of the previous schema, with a task done and one queued,
// takes the task_review migration: the tasks keep their rows, review none,
// and the complete one is final from then on.
func TestMigrateTaskReviewKeepsTasks(t *testing.T) {
	sqltest.Each(t, func(t *testing.T, url string) {
		ctx := context.Background()
		all := migrations
		defer func() { migrations = all }()
		migrations = all[:slices.IndexFunc(all, func(m migration) bool { return m.name == "task_review" })]
		d, err := Open(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{
			`INSERT INTO tasks (id, skill, inputs, args, state, created_at, updated_at) VALUES ('done', 's', '{}', '[]', 'watching', 0, 0)`,
			`INSERT INTO tasks (id, skill, inputs, args, state, created_at, updated_at) VALUES ('queued', 's', '{}', '[]', 'watching', 1, 1)`,
			`UPDATE tasks SET state = 'working', worker = 'w' WHERE id = 'done'`,
			`UPDATE tasks SET state = 'complete' WHERE id = 'done'`,
			`UPDATE tasks SET message = 'an old complete task could still change' WHERE id = 'done'`,
		} {
			if _, err := d.exec(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		d.Close()
		migrations = all
		if d, err = Open(ctx, url); err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		tasks, err := d.Tasks(ctx, "")
		if err != nil || len(tasks) != 2 || tasks[0].State != Complete || tasks[0].Review != ReviewNone || tasks[1].State != Watching {
			t.Fatalf("tasks after the migration: %+v %v", tasks, err)
		}
		if _, err := d.exec(ctx, `UPDATE tasks SET message = 'x' WHERE id = 'done'`); !errors.Is(d.taskErr("raw", err), ErrTransition) {
			t.Errorf("a complete task changed after the migration: %v", err)
		}
	})
}
