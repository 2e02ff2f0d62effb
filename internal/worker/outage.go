package worker

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// DefaultOutage is how long a worker rides out a database it cannot reach
// before it exits: a restart of PostgreSQL, or SQLite busy or out of disk
// for a while, must not end the whole fleet.
const DefaultOutage = 5 * time.Minute

// Bounds of the backoff between two tries of a database that is away.
const (
	firstBackoff = 100 * time.Millisecond
	maxBackoff   = 5 * time.Second
)

// transient reports whether a database error may go away by itself: the
// connection refused, reset or lost, the server shutting down or starting
// (PostgreSQL classes 08 and 57P), SQLite busy, locked or out of disk.
func transient(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return strings.HasPrefix(pe.Code, "08") || strings.HasPrefix(pe.Code, "57P") || pe.Code == "53300"
	}
	var ne net.Error
	switch {
	case errors.Is(err, driver.ErrBadConn), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.As(err, &ne), pgconn.Timeout(err):
		return true
	}
	// The store flattens some errors to their text: the SQLSTATE and the
	// drivers' words are what is left of them.
	msg := strings.ToLower(err.Error())
	for _, s := range []string{"(sqlstate 08", "(sqlstate 57p", "(sqlstate 53300", "database is locked", "sqlite_busy", "database or disk is full", "sqlite_full", "connection refused", "the database system is", "conn closed", "failed to connect"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// retry calls f until it succeeds, fails for good, or the database has been
// away longer than the outage allows; it says so when the database goes
// and when it is back.
func (w *worker) retry(ctx context.Context, what string, f func() error) error {
	backoff := firstBackoff
	var since time.Time
	for {
		err := f()
		if err == nil && !since.IsZero() {
			w.printf("the database is back after %v\n", time.Since(since).Round(time.Millisecond))
		}
		if err == nil || ctx.Err() != nil || !transient(err) {
			return err
		}
		if since.IsZero() {
			since = time.Now()
			w.printf("the database is away while %s (%v): retrying for up to %v (--outage)\n", what, err, w.o.Outage)
		}
		if time.Since(since) >= w.o.Outage {
			return fmt.Errorf("the database was away for %v (--outage) while %s: %w", w.o.Outage, what, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, maxBackoff)
	}
}
