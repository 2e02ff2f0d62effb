package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"
)

func newRecoverCmd() *cobra.Command {
	var stale time.Duration
	c := &cobra.Command{
		Use:   "recover",
		Short: "Send tasks whose worker stopped heartbeating back to the queue",
		Long: `The conductor's crash recovery: every task a worker holds (working,
needs_review, review_approved, review_failed, error) whose heartbeat is
older than --stale-after moves to fix_proposed, with a hand-off message
naming the last completed step; the next worker claims it and resumes its
run from the record. Prints the tasks it moved.`,
		Example: "  skillkit recover --stale-after 5m",
		Args:    cobra.NoArgs,
		RunE: runE(func(c *cobra.Command, _ []string) error {
			d, err := openDB(c)
			if err != nil {
				return err
			}
			defer d.Close()
			moved, err := d.Recover(c.Context(), stale)
			for _, t := range moved {
				fmt.Fprintf(c.OutOrStdout(), "%s: fix_proposed: %s\n", t.ID, t.Message)
			}
			return dbErr(err)
		}),
	}
	c.Flags().DurationVar(&stale, "stale-after", 9*time.Minute, "how old a heartbeat may get before its task is recovered")
	return c
}
