package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/skillkit/skillkit/internal/runstore/sqlstore"
)

func newTasksCmd() *cobra.Command {
	var state string
	var asJSON, watch bool
	c := &cobra.Command{
		Use:   "tasks",
		Short: "List the tasks: id, skill, state, worker, current step, heartbeat age",
		Example: `  skillkit tasks --state needs_review
  skillkit tasks --json`,
		Args: cobra.NoArgs,
		RunE: runE(func(c *cobra.Command, _ []string) error {
			if state != "" && !validState(state) {
				return usageErr(fmt.Errorf("--state %q: not a task state (%v)", state, sqlstore.TaskStates()))
			}
			d, err := openDB(c)
			if err != nil {
				return err
			}
			defer d.Close()
			for {
				if err := writeTasks(c.Context(), c.OutOrStdout(), d, sqlstore.TaskState(state), asJSON); err != nil {
					return dbErr(err)
				}
				if !watch {
					return nil
				}
				select {
				case <-c.Context().Done():
					return nil
				case <-time.After(2 * time.Second):
				}
				fmt.Fprintln(c.OutOrStdout())
			}
		}),
	}
	f := c.Flags()
	f.StringVar(&state, "state", "", "only tasks in this state")
	f.BoolVar(&asJSON, "json", false, "print JSON")
	f.BoolVar(&watch, "watch", false, "print again every 2 seconds until interrupted")
	return c
}

func validState(s string) bool {
	for _, st := range sqlstore.TaskStates() {
		if string(st) == s {
			return true
		}
	}
	return false
}

// taskRow is a task as `skillkit tasks` shows it.
type taskRow struct {
	*sqlstore.Task
	// Step is the current step of its run.
	Step string `json:"step,omitempty"`
}

func writeTasks(ctx context.Context, w io.Writer, d *sqlstore.DB, state sqlstore.TaskState, asJSON bool) error {
	tasks, err := d.Tasks(ctx, state)
	if err != nil {
		return err
	}
	store := d.Store("")
	rows := make([]taskRow, len(tasks))
	for i, t := range tasks {
		rows[i].Task = t
		if t.RunID != "" {
			if sum, err := store.Status(t.RunID); err == nil && sum.Progress.CurrentStep > 0 {
				rows[i].Step = fmt.Sprintf("%d (%s)", sum.Progress.CurrentStep, sum.Progress.Phase)
			}
		}
	}
	if asJSON {
		e := json.NewEncoder(w)
		e.SetIndent("", "  ")
		return e.Encode(rows)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TASK\tSKILL\tSTATE\tWORKER\tSTEP\tHEARTBEAT")
	for _, r := range rows {
		age := "-"
		if !r.Heartbeat.IsZero() {
			age = time.Since(r.Heartbeat).Round(time.Second).String() + " ago"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.ID, r.Skill, r.State, dash(r.Worker), dash(r.Step), age)
	}
	return tw.Flush()
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
