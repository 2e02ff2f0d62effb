package sqlstore

import (
	"context"
	dbsql "database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// ErrSchemaNewer is wrapped by the error of a database migrated by a newer
// skillkit: this binary does not know its tables and must not write them.
var ErrSchemaNewer = errors.New("the database schema is newer than this skillkit")

// migration is one version of the schema: its statements per dialect.
// Both databases run DDL inside a transaction, so a migration applies
// whole or not at all, even when the process is killed in the middle.
type migration struct {
	name   string
	common string
	// sqlite and postgres follow common, for what only one dialect says
	// (triggers).
	sqlite, postgres string
}

// migrations are the schema's versions, in order: version n is
// migrations[n-1]. Only append.
var migrations = []migration{
	{name: "runs", common: `
CREATE TABLE runs (
	id TEXT PRIMARY KEY,
	skill TEXT NOT NULL,
	started_at BIGINT NOT NULL,
	work_dir TEXT NOT NULL,
	holder TEXT,
	token TEXT,
	claimed_at BIGINT,
	heartbeat BIGINT,
	timeout_ms BIGINT
);
CREATE INDEX runs_started ON runs (started_at);
CREATE TABLE events (
	run_id TEXT NOT NULL REFERENCES runs (id),
	seq BIGINT NOT NULL,
	body TEXT NOT NULL,
	PRIMARY KEY (run_id, seq)
);
CREATE TABLE metrics (
	run_id TEXT NOT NULL REFERENCES runs (id),
	seq BIGINT NOT NULL,
	body TEXT NOT NULL,
	PRIMARY KEY (run_id, seq)
);
CREATE TABLE checkpoints (
	run_id TEXT NOT NULL REFERENCES runs (id),
	n BIGINT NOT NULL,
	time BIGINT NOT NULL,
	hook TEXT NOT NULL,
	state TEXT NOT NULL,
	worker TEXT NOT NULL,
	PRIMARY KEY (run_id, n)
);
CREATE TABLE logs (
	run_id TEXT NOT NULL REFERENCES runs (id),
	seq BIGINT NOT NULL,
	name TEXT NOT NULL,
	text TEXT NOT NULL,
	PRIMARY KEY (run_id, seq)
);`,
		// The record is append-only: a changed or deleted event would make
		// a resume rebuild something the run never had.
		sqlite: `
CREATE TRIGGER events_append_only_update BEFORE UPDATE ON events
BEGIN SELECT RAISE(ABORT, 'skillkit: events are append-only'); END;
CREATE TRIGGER events_append_only_delete BEFORE DELETE ON events
BEGIN SELECT RAISE(ABORT, 'skillkit: events are append-only'); END;`,
		postgres: `
CREATE FUNCTION skillkit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	RAISE EXCEPTION 'skillkit: events are append-only';
END $$;
CREATE TRIGGER events_append_only BEFORE UPDATE OR DELETE ON events
	FOR EACH ROW EXECUTE FUNCTION skillkit_append_only();`,
	},
	{name: "tasks", common: taskTables, sqlite: taskTriggerSQLite, postgres: taskTriggerPostgres},
	// The process groups of the holder's commands, for a takeover on
	// the same host to kill what a killed holder left running.
	{name: "process_groups", common: `
CREATE TABLE process_groups (
	run_id TEXT NOT NULL REFERENCES runs (id),
	pgid BIGINT NOT NULL,
	host TEXT NOT NULL,
	PRIMARY KEY (run_id, pgid, host)
);`},
	{name: "task_review", common: taskReviewSQL, sqlite: taskFinalSQLite, postgres: taskFinalPostgres},
	{name: "task_triggers_narrow", postgres: taskTriggersNarrowPostgres},
}

// SchemaVersion is the newest schema this binary knows.
func SchemaVersion() int { return len(migrations) }

// Migrate applies the migrations the database lacks, each in its own
// transaction. Concurrent migrators (workers starting together) queue: on
// PostgreSQL behind an advisory lock, on SQLite behind the write lock that
// an immediate transaction takes at BEGIN.
func (d *DB) Migrate(ctx context.Context) error {
	if _, err := d.exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (version BIGINT PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)`); err != nil {
		return d.migrateErr(err)
	}
	for {
		done, err := d.migrateOne(ctx)
		if err != nil {
			return err
		}
		if done {
			return nil
		}
	}
}

// migrateOne applies the next migration, or reports that there is none.
func (d *DB) migrateOne(ctx context.Context) (done bool, err error) {
	err = d.tx(ctx, func(tx *dbsql.Tx) error {
		if d.dialect == postgres {
			// One constant key: skillkit's migrations, whoever runs them.
			if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(7361626)`); err != nil {
				return err
			}
		}
		v, err := currentVersion(ctx, tx)
		if err != nil {
			return err
		}
		if v > SchemaVersion() {
			return fmt.Errorf("%w: it is at version %d, this skillkit knows %d; upgrade skillkit", ErrSchemaNewer, v, SchemaVersion())
		}
		if v == SchemaVersion() {
			done = true
			return nil
		}
		m := migrations[v]
		ddl := m.common + "\n" + m.sqlite
		if d.dialect == postgres {
			ddl = m.common + "\n" + m.postgres
		}
		if _, err := tx.ExecContext(ctx, ddl); err != nil {
			return fmt.Errorf("migration %d (%s): %v", v+1, m.name, oneLine(err))
		}
		_, err = tx.ExecContext(ctx, d.q(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`), v+1, m.name, ms(time.Now()))
		return err
	})
	if err != nil {
		return false, d.migrateErr(err)
	}
	return done, nil
}

// currentVersion is the newest migration applied.
func currentVersion(ctx context.Context, tx *dbsql.Tx) (int, error) {
	var v dbsql.NullInt64
	if err := tx.QueryRowContext(ctx, `SELECT MAX(version) FROM schema_migrations`).Scan(&v); err != nil {
		return 0, err
	}
	return int(v.Int64), nil
}

// Version is the schema version of the database.
func (d *DB) Version(ctx context.Context) (int, error) {
	var v int
	err := d.tx(ctx, func(tx *dbsql.Tx) error {
		var err error
		v, err = currentVersion(ctx, tx)
		return err
	})
	return v, err
}

func (d *DB) migrateErr(err error) error {
	if errors.Is(err, ErrSchemaNewer) {
		return fmt.Errorf("%s: %w", d.Redacted(), err)
	}
	return fmt.Errorf("migrating %s: %s", d.Redacted(), strings.TrimSpace(oneLine(err)))
}
