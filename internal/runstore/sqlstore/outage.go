package sqlstore

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

// Outage is how the users of a database ride it out while it is away (a
// restart of PostgreSQL, SQLite busy or out of disk for a while): they try
// again with a bounded backoff for up to For, telling Say when it goes and
// when it is back. The zero Outage tries once.
type Outage struct {
	For time.Duration
	Say func(format string, args ...any)
}

// Bounds of the backoff between two tries of a database that is away.
const (
	firstBackoff = 100 * time.Millisecond
	maxBackoff   = 5 * time.Second
)

// ErrAway is wrapped by the error of a database that stayed away longer
// than the outage allows: whoever meets it should stop, not carry on as if
// the work had failed.
var ErrAway = errors.New("the database was away")

// RideOut makes the database's own writes of runs (a step's events,
// checkpoints, metrics and logs, the claim's checks) and Retry ride out
// an outage of o.For. The workers of one process share their DB: the
// last one set tells its Say.
func (d *DB) RideOut(o Outage) { d.outage.Store(&o) }

// Retry calls f until it succeeds, fails for good, or the database has
// been away longer than the outage allows (RideOut); it says so when the
// database goes and when it is back. what says what f does, for the
// messages. An f whose effect may have been applied by a try whose answer
// was lost must tell, on the next try, that it was.
func (d *DB) Retry(ctx context.Context, what string, f func() error) error {
	var o Outage
	if p := d.outage.Load(); p != nil {
		o = *p
	}
	say := o.Say
	if say == nil {
		say = func(string, ...any) {}
	}
	backoff := firstBackoff
	var since time.Time
	for {
		err := f()
		if !since.IsZero() && ctx.Err() == nil && (err == nil || !Transient(err)) {
			// The database answered, if only to say there is no task to
			// claim: it is back.
			say("the database is back after %v\n", time.Since(since).Round(time.Millisecond))
		}
		if err == nil || ctx.Err() != nil || !Transient(err) || o.For <= 0 {
			return err
		}
		if since.IsZero() {
			since = time.Now()
			say("the database is away while %s (%s): retrying for up to %v (--outage)\n", what, oneLine(err), o.For)
		}
		if time.Since(since) >= o.For {
			return fmt.Errorf("%w for %v (--outage) while %s: %w", ErrAway, o.For, what, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, maxBackoff)
	}
}

// RetryWrite is Retry for a write f that a try may have applied although
// its answer was lost (the database went away at its commit): before the
// next try, applied says whether it was, and ends the retry if so.
func (d *DB) RetryWrite(ctx context.Context, what string, applied func() (bool, error), f func() error) error {
	unsure := false
	return d.Retry(ctx, what, func() error {
		if unsure {
			if ok, err := applied(); err != nil || ok {
				return err
			}
		}
		err := f()
		unsure = err != nil && Transient(err)
		return err
	})
}

// Transient reports whether a database error may go away by itself: the
// connection refused, reset or lost, the server shutting down or starting
// (PostgreSQL classes 08 and 57P), SQLite busy, locked or out of disk.
func Transient(err error) bool {
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
