package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/skillkit/skillkit/internal/runstore/sqlstore"
)

// addDBFlag gives every command --db, the database of tasks and their
// runs (DESIGN §3.6).
func addDBFlag(root *cobra.Command) {
	root.PersistentFlags().String("db", "", "the database of tasks: sqlite:PATH or postgres://USER:PASSWORD@HOST/DB (default $SKILLKIT_DB, else "+sqlstore.DefaultURL+")")
}

// openDB opens the database --db or SKILLKIT_DB names, migrated.
func openDB(c *cobra.Command) (*sqlstore.DB, error) {
	url := firstNonEmpty(c.Flag("db").Value.String(), os.Getenv("SKILLKIT_DB"), sqlstore.DefaultURL)
	d, err := sqlstore.Open(c.Context(), url)
	if err != nil {
		return nil, dbErr(err)
	}
	return d, nil
}

// dbErr gives a database error its exit code: what the user can fix by
// what they typed (a URL, a task id, a review the task's state does not
// allow, a binary older than the schema) is a usage error; a database
// that does not answer is not skillkit's to fix either, but nothing ran.
func dbErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, sqlstore.ErrURL), errors.Is(err, sqlstore.ErrNoTask), errors.Is(err, sqlstore.ErrTransition),
		errors.Is(err, sqlstore.ErrSchemaNewer):
		return usageErr(err)
	}
	return &exitError{code: ExitInternal, err: err}
}

func newDBCmd() *cobra.Command {
	db := &cobra.Command{Use: "db", Short: "Manage the database of tasks"}
	db.AddCommand(&cobra.Command{
		Use:   "migrate",
		Short: "Apply the schema migrations the database lacks",
		Long: `Apply the schema migrations the database lacks, each in its own transaction:
a migration applies whole or not at all. Every command that opens the
database does this first; migrate does it on its own, before workers start.
A database migrated by a newer skillkit is refused (exit 2).`,
		Example: "  skillkit db migrate --db postgres://skillkit:skillkit@localhost/skillkit",
		Args:    cobra.NoArgs,
		RunE: runE(func(c *cobra.Command, _ []string) error {
			d, err := openDB(c)
			if err != nil {
				return err
			}
			defer d.Close()
			v, err := d.Version(c.Context())
			if err != nil {
				return dbErr(err)
			}
			fmt.Fprintf(c.OutOrStdout(), "%s: schema version %d\n", d.Redacted(), v)
			return nil
		}),
	})
	return db
}
