package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/skillkit/skillkit/internal/runstore/sqlstore"
)

func newReviewCmd() *cobra.Command {
	var approve, exit bool
	var reject, fix string
	c := &cobra.Command{
		Use:   "review TASK (--approve | --reject MSG | --fix MSG | --exit)",
		Short: "Answer a task that waits for review, as the conductor",
		Long: `Answer a task as the conductor: --approve (needs_review → review_approved),
--reject MSG (→ review_failed: the worker hands MSG to the agent and submits
again), --fix MSG (needs_review or error → fix_proposed: any worker claims it
and hands MSG to the agent), --exit (needs_review or error → exit_requested:
the worker hands off and the task ends exited). A review the task's state
does not allow is refused with exit 2.

A task added with --review completion (or whose skill says review:
completion) waits in needs_review when its run completes: --approve then
makes it complete, a final state; --reject and --fix send it back to the
worker as at a step's review. Prints the task's state after the review.`,
		Example: `  skillkit review t20261121-101500-ab12cd --approve
  skillkit review t20261121-101500-ab12cd --reject "the summary misses the totals"`,
		Args: cobra.ExactArgs(1),
		RunE: runE(func(c *cobra.Command, args []string) error {
			var to sqlstore.TaskState
			var msg string
			n := 0
			for _, r := range []struct {
				set   bool
				state sqlstore.TaskState
				msg   string
			}{{approve, sqlstore.ReviewApproved, ""}, {c.Flags().Changed("reject"), sqlstore.ReviewFailed, reject},
				{c.Flags().Changed("fix"), sqlstore.FixProposed, fix}, {exit, sqlstore.ExitRequested, ""}} {
				if r.set {
					n++
					to, msg = r.state, r.msg
				}
			}
			if n != 1 {
				return usageErr(errors.New("give exactly one of --approve, --reject MSG, --fix MSG, --exit"))
			}
			d, err := openDB(c)
			if err != nil {
				return err
			}
			defer d.Close()
			got, err := d.Review(c.Context(), args[0], to, msg)
			if err != nil {
				return dbErr(err)
			}
			fmt.Fprintf(c.OutOrStdout(), "%s: %s\n", args[0], got)
			return nil
		}),
	}
	f := c.Flags()
	f.BoolVar(&approve, "approve", false, "approve the checkpoint")
	f.StringVar(&reject, "reject", "", "reject the checkpoint with this message")
	f.StringVar(&fix, "fix", "", "propose this fix")
	f.BoolVar(&exit, "exit", false, "ask the worker to hand off and exit")
	return c
}
