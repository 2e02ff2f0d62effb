// Package sqlstore is the SQL store of runs and tasks: one schema, applied by
// versioned migrations on first use, over two drivers behind one code path
// (database/sql): SQLite through modernc.org/sqlite (pure Go, the
// embedded default) and PostgreSQL through pgx's database/sql adapter
// (across machines). DESIGN §3.6.
//
// The run record is the events table, append-only, keyed by run id and
// sequence number; progress and state are derived by replaying it with
// runstore.Progress.Apply, exactly as the filesystem store replays
// events.jsonl. A commit of the record is a transaction commit. Metrics,
// checkpoints and logs have tables of their own; the claim of a run is
// columns on its runs row.
//
// Work dirs are not in the database: each worker keeps them on its own
// disk under a work base (Options.WorkBase), by skill and run id. A run
// taken over by a worker on another machine continues from the record in
// a fresh work dir there; when the files the steps leave must survive a
// machine, point every worker's work base at one shared mount (NFS, a
// cloud file system), so that the run's work dir is the same folder
// wherever it continues.
package sqlstore

import (
	"context"
	dbsql "database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	// The drivers: registered by their import, chosen by the URL.
	_ "github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite"
)

// DefaultURL is the database of a project when neither --db nor
// SKILLKIT_DB says otherwise.
const DefaultURL = "sqlite:.skillkit/skillkit.db"

// dialect is what differs between the two databases; everything else is
// one code path.
type dialect int

const (
	sqlite dialect = iota
	postgres
)

// DB is an open skillkit database, its schema migrated.
type DB struct {
	db      *dbsql.DB
	dialect dialect
	// url is what the user gave, for messages; dsn what the driver got.
	url, dsn string
	// file is the SQLite database's path and what it was when opened: a
	// file deleted or replaced under open connections would take every
	// later write into an unlinked file, lost without a word (N11).
	file     string
	fileInfo os.FileInfo
	// outage is how long its writes of runs ride out the database's
	// absence (RideOut); the workers of one process share a DB.
	outage atomic.Pointer[Outage]
	// batch commits this process's SQLite writes together (group.go).
	batch batcher
	// stmts are the statements prepared on SQLite, by text (prepared).
	stmts sync.Map
	// groupsConn writes process groups on PostgreSQL (groupWrite).
	groups     sync.Mutex
	groupsConn *dbsql.Conn
}

// ErrURL is wrapped by the error of a database URL skillkit cannot use.
var ErrURL = errors.New("bad database URL")

// ErrUnreachable is wrapped by the error of a database that does not
// answer (a server down, a file that cannot be opened).
var ErrUnreachable = errors.New("database unreachable")

// Open opens the database of url (sqlite:PATH, or postgres://…) and
// applies the migrations it lacks. A database whose schema is newer than
// this binary's is refused (ErrSchemaNewer).
func Open(ctx context.Context, rawURL string) (*DB, error) {
	d, err := open(rawURL)
	if err != nil {
		return nil, err
	}
	if err := d.Migrate(ctx); err != nil {
		d.Close()
		return nil, err
	}
	if d.file != "" {
		if d.fileInfo, err = os.Stat(d.file); err != nil {
			d.Close()
			return nil, fmt.Errorf("opening %s: %w: %v", rawURL, ErrUnreachable, err)
		}
	}
	return d, nil
}

// ErrReplaced is wrapped by the error of a write to a SQLite database
// whose file was deleted or replaced since it was opened.
var ErrReplaced = errors.New("the SQLite database file was deleted or replaced since it was opened")

// checkFile refuses to go on with a SQLite file that is no longer the one
// opened.
func (d *DB) checkFile() error {
	if d.fileInfo == nil {
		return nil
	}
	cur, err := os.Stat(d.file)
	if err != nil || !os.SameFile(cur, d.fileInfo) {
		return fmt.Errorf("%s: %w; stopping rather than writing where nothing keeps it", d.file, ErrReplaced)
	}
	return nil
}

// open connects without migrating.
func open(rawURL string) (*DB, error) {
	d := &DB{url: rawURL}
	var driver string
	switch {
	case strings.HasPrefix(rawURL, "sqlite:"):
		path := strings.TrimPrefix(strings.TrimPrefix(rawURL, "sqlite:"), "//")
		if path == "" {
			return nil, fmt.Errorf("%w %q: sqlite:PATH names no file", ErrURL, rawURL)
		}
		if dir := filepath.Dir(path); dir != "." {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return nil, fmt.Errorf("opening %s: %w: %v", rawURL, ErrUnreachable, err)
			}
		}
		// WAL lets readers (skillkit tasks) go on while a worker writes;
		// an immediate transaction takes the write lock at BEGIN, so two
		// claimers queue on busy_timeout instead of one failing with
		// SQLITE_BUSY when it upgrades a read lock; FULL syncs the WAL at
		// every commit, so a commit survives a power loss as the
		// filesystem store's does.
		q := url.Values{}
		q.Add("_pragma", "busy_timeout(30000)")
		q.Add("_pragma", "journal_mode(WAL)")
		q.Add("_pragma", "synchronous(FULL)")
		q.Add("_pragma", "foreign_keys(1)")
		q.Set("_txlock", "immediate")
		d.dsn, d.dialect, driver, d.file = "file:"+path+"?"+q.Encode(), sqlite, "sqlite", path
	case strings.HasPrefix(rawURL, "postgres://"), strings.HasPrefix(rawURL, "postgresql://"):
		if _, err := url.Parse(rawURL); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrURL, err)
		}
		d.dsn, d.dialect, driver = rawURL, postgres, "pgx"
	default:
		return nil, fmt.Errorf("%w %q: use sqlite:PATH or postgres://USER:PASSWORD@HOST/DB", ErrURL, rawURL)
	}
	db, err := dbsql.Open(driver, d.dsn)
	if err != nil {
		return nil, fmt.Errorf("%w %q: %v", ErrURL, rawURL, err)
	}
	// database/sql keeps two idle connections by default: the eight
	// workers of a process (or one with --concurrency 8) then closed a
	// connection at nearly every statement and dialed the next, a
	// backend's fork and login on PostgreSQL, and drained fewer tasks
	// than one worker alone could. A connection idle for a minute is let
	// go, so that a quiet worker holds none.
	db.SetMaxIdleConns(maxIdleConns)
	db.SetConnMaxIdleTime(time.Minute)
	d.db = db
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("opening %s: %w: %v%s", d.Redacted(), ErrUnreachable, oneLine(err), d.unwritable())
	}
	return d, nil
}

// unwritable says why SQLite could not open its file when its folder
// cannot be written (a read-only file system, a folder of another
// user's), where SQLite says only "unable to open database file": it
// writes its log beside the file even to read. Else it is empty.
func (d *DB) unwritable() string {
	if d.file == "" {
		return ""
	}
	dir := filepath.Dir(d.file)
	f, err := os.CreateTemp(dir, ".skillkit-probe-*")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Sprintf(" (%s is not writable: %v)", dir, err)
	}
	f.Close()
	os.Remove(f.Name())
	return ""
}

// maxIdleConns is how many connections a process keeps open between
// its statements: more than the workers of a busy process use at once.
const maxIdleConns = 32

// groupWriteTimeout bounds a write of process groups: it is made on a
// command's way in and out, which must not wait for a database that is
// away (a failed write costs only a kill after a takeover).
const groupWriteTimeout = 5 * time.Second

// groupWrite writes a row of process_groups: a command's children start
// within a millisecond of it, and a kill between its start and its
// record leaves them to nobody. On SQLite it goes in the process's next
// group of writes, whose sync it shares (a connection of its own would
// wait on the write lock, polling). On PostgreSQL it goes on the
// process's one connection whose commits do not wait for the disk: the
// rows matter only while processes of this machine live, which a power
// loss ends anyway, and a killed process keeps them.
func (d *DB) groupWrite(query string, args ...any) {
	ctx, cancel := context.WithTimeout(context.Background(), groupWriteTimeout)
	defer cancel()
	if d.dialect == sqlite {
		d.exec(ctx, query, args...)
		return
	}
	d.groups.Lock()
	defer d.groups.Unlock()
	if d.groupsConn == nil {
		c, err := d.db.Conn(ctx)
		if err != nil {
			return
		}
		if _, err := c.ExecContext(ctx, "SET synchronous_commit = off"); err != nil {
			discard(c)
			return
		}
		d.groupsConn = c
	}
	if _, err := d.groupsConn.ExecContext(ctx, d.q(query), args...); err != nil {
		// The next write dials again rather than wait on what failed.
		discard(d.groupsConn)
		d.groupsConn = nil
	}
}

// discard closes a connection for good: back in the pool, one whose
// session says synchronous_commit off would commit other rows without
// waiting for the disk.
func discard(c *dbsql.Conn) {
	_ = c.Raw(func(any) error { return driver.ErrBadConn })
	c.Close()
}

// Close closes the connections.
func (d *DB) Close() error {
	d.groups.Lock()
	if d.groupsConn != nil {
		discard(d.groupsConn)
		d.groupsConn = nil
	}
	d.groups.Unlock()
	d.stmts.Range(func(_, s any) bool {
		s.(*dbsql.Stmt).Close()
		return true
	})
	return d.db.Close()
}

// Postgres reports whether the database is PostgreSQL.
func (d *DB) Postgres() bool { return d.dialect == postgres }

// Redacted is the URL without its password, for messages.
func (d *DB) Redacted() string {
	if u, err := url.Parse(d.url); err == nil && u.User != nil {
		return u.Redacted()
	}
	return d.url
}

// q rewrites a query written with ? placeholders for the dialect:
// PostgreSQL numbers them.
func (d *DB) q(query string) string {
	if d.dialect != postgres {
		return query
	}
	var b strings.Builder
	n := 0
	for _, r := range query {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// exec runs one statement: on its own, or on SQLite in a group of the
// process's writes (tx).
func (d *DB) exec(ctx context.Context, query string, args ...any) (dbsql.Result, error) {
	if d.dialect == sqlite {
		var res dbsql.Result
		err := d.tx(ctx, func(tx *dbsql.Tx) (err error) {
			res, err = d.txExec(ctx, tx, query, args...)
			return err
		})
		return res, err
	}
	return d.db.ExecContext(ctx, d.q(query), args...)
}

// txExec runs query in tx, prepared once per connection on SQLite
// (prepared).
func (d *DB) txExec(ctx context.Context, tx *dbsql.Tx, query string, args ...any) (dbsql.Result, error) {
	s, err := d.prepared(ctx, tx, query)
	if err != nil {
		return nil, err
	}
	if s == nil {
		return tx.ExecContext(ctx, d.q(query), args...)
	}
	return s.ExecContext(ctx, args...)
}

// txQueryRow is txExec for a statement that returns a row.
func (d *DB) txQueryRow(ctx context.Context, tx *dbsql.Tx, query string, args ...any) rowScanner {
	s, err := d.prepared(ctx, tx, query)
	switch {
	case err != nil:
		return failedRow{err}
	case s == nil:
		return tx.QueryRowContext(ctx, d.q(query), args...)
	}
	return s.QueryRowContext(ctx, args...)
}

// rowScanner is a row to scan: *sql.Row, or the error that left none.
type rowScanner interface{ Scan(...any) error }

type failedRow struct{ err error }

func (r failedRow) Scan(...any) error { return r.err }

// prepared is query as a statement of tx, prepared on its connection once
// and kept for the next transactions there: SQLite compiles a statement at
// every call otherwise, and a write to tasks compiles the triggers with
// it, half the CPU of a claim. PostgreSQL's driver keeps its prepared
// statements itself: nil there.
func (d *DB) prepared(ctx context.Context, tx *dbsql.Tx, query string) (*dbsql.Stmt, error) {
	if d.dialect != sqlite {
		return nil, nil
	}
	s, ok := d.stmts.Load(query)
	if !ok {
		p, err := d.db.PrepareContext(ctx, query)
		if err != nil {
			return nil, err
		}
		var loaded bool
		if s, loaded = d.stmts.LoadOrStore(query, p); loaded {
			p.Close()
		}
	}
	return tx.StmtContext(ctx, s.(*dbsql.Stmt)), nil
}

// queryRow runs one statement that returns a row (a write's RETURNING)
// and scans it, as exec runs one that does not.
func (d *DB) queryRow(ctx context.Context, scan func(rowScanner) error, query string, args ...any) error {
	if d.dialect == sqlite {
		return d.tx(ctx, func(tx *dbsql.Tx) error { return scan(d.txQueryRow(ctx, tx, query, args...)) })
	}
	return scan(d.db.QueryRowContext(ctx, d.q(query), args...))
}

// tx runs f in a transaction and commits it; an error of f rolls it back.
// On SQLite, f joins the writes of this process's other goroutines in one
// transaction and one sync (group.go).
func (d *DB) tx(ctx context.Context, f func(*dbsql.Tx) error) error {
	if err := d.checkFile(); err != nil {
		return err
	}
	if d.dialect == sqlite {
		return d.batch.do(ctx, d.db, f)
	}
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := f(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// ms is a time as the database keeps it: Unix milliseconds, one type that
// both databases compare and index alike.
func ms(t time.Time) int64 { return t.UnixMilli() }

// fromMS is the time of a stored Unix millisecond count.
func fromMS(v int64) time.Time { return time.UnixMilli(v) }

// oneLine folds a driver's error onto one line: a message is one line,
// and pgx puts the cause of a failed connection on the next.
func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}
