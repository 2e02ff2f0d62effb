// Package sqltest gives tests the databases of the SQL store: a fresh
// SQLite file, and a fresh PostgreSQL database on the server that
// SKILLKIT_TEST_DATABASE_URL names, dropped when the test ends.
package sqltest

import (
	"context"
	"crypto/rand"
	dbsql "database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	// The PostgreSQL driver, for the administrative connection.
	_ "github.com/jackc/pgx/v5/stdlib"
)

// Env names the PostgreSQL server the tests may use: a URL of a role that
// may create databases.
const Env = "SKILLKIT_TEST_DATABASE_URL"

// How to get one, for the skip message.
const howTo = Env + " is not set or the server does not answer; the PostgreSQL tests skip. " +
	"To run them: pg_ctlcluster 15 main start; " +
	`runuser -u postgres -- psql -c "CREATE ROLE skillkit LOGIN SUPERUSER PASSWORD 'skillkit'"; ` +
	"export " + Env + "=postgres://skillkit:skillkit@localhost:5432/postgres (.ci/run does this where the cluster exists)"

// SQLite is the URL of a new SQLite database in a temporary folder.
func SQLite(t testing.TB) string {
	return "sqlite:" + filepath.Join(t.TempDir(), "skillkit.db")
}

// Postgres is the URL of a new, empty PostgreSQL database, dropped at the
// end of the test; the test skips, saying how to get a server, when there
// is none.
func Postgres(t testing.TB) string {
	return PostgresAt(t, os.Getenv(Env))
}

// PostgresAt is Postgres on the server base names (a role that may create
// databases), for a test with a server of its own.
func PostgresAt(t testing.TB, base string) string {
	t.Helper()
	if base == "" {
		t.Skip(howTo)
	}
	admin, err := dbsql.Open("pgx", base)
	if err != nil {
		t.Skip(howTo + ": " + err.Error())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := admin.PingContext(ctx); err != nil {
		admin.Close()
		t.Skip(howTo + ": " + err.Error())
	}
	var b [6]byte
	rand.Read(b[:])
	name := "skillkit_test_" + hex.EncodeToString(b[:])
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		admin.Close()
		t.Fatalf("creating test database: %v", err)
	}
	t.Cleanup(func() {
		admin.Exec("DROP DATABASE " + name + " WITH (FORCE)")
		admin.Close()
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

// Each runs f once per SQL database: SQLite, then PostgreSQL (skipped
// without a server).
func Each(t *testing.T, f func(t *testing.T, url string)) {
	t.Run("sqlite", func(t *testing.T) { f(t, SQLite(t)) })
	t.Run("postgres", func(t *testing.T) { f(t, Postgres(t)) })
}
