package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/skillkit/skillkit/internal/agent"
	skrun "github.com/skillkit/skillkit/internal/run"
	skillsql "github.com/skillkit/skillkit/internal/runstore/sql"
	"github.com/skillkit/skillkit/internal/worker"
	"github.com/skillkit/skillkit/parse"
	"github.com/skillkit/skillkit/plan"
)

// addDBFlag gives every command --db, the database of tasks and their
// runs (DESIGN §3.6).
func addDBFlag(root *cobra.Command) {
	root.PersistentFlags().String("db", "", "the database of tasks: sqlite:PATH or postgres://USER:PASSWORD@HOST/DB (default $SKILLKIT_DB, else "+skillsql.DefaultURL+")")
}

// openDB opens the database --db or SKILLKIT_DB names, migrated.
func openDB(c *cobra.Command) (*skillsql.DB, error) {
	url := firstNonEmpty(c.Flag("db").Value.String(), os.Getenv("SKILLKIT_DB"), skillsql.DefaultURL)
	d, err := skillsql.Open(c.Context(), url)
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
	case errors.Is(err, skillsql.ErrURL), errors.Is(err, skillsql.ErrNoTask), errors.Is(err, skillsql.ErrTransition),
		errors.Is(err, skillsql.ErrSchemaNewer):
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

func newTaskCmd() *cobra.Command {
	task := &cobra.Command{Use: "task", Short: "Queue runs of skills as tasks for workers"}
	var inputs []string
	add := &cobra.Command{
		Use:   "add SKILL [-- ARGS]",
		Short: "Queue a run of SKILL as a task; prints its id",
		Long: `Queue a run of SKILL as a task in watching, for any worker to claim. SKILL is
the skill's folder as the workers see it (relative to their current folder,
or absolute). Prints the task's id.`,
		Example: `  skillkit task add examples/sequential --input dir="$PWD/docs"
  skillkit task add triage --db postgres://skillkit:skillkit@db/skillkit -- 1234`,
		Args: func(c *cobra.Command, args []string) error {
			if dash := c.ArgsLenAtDash(); len(args) == 0 || dash > 1 || dash < 0 && len(args) > 1 {
				return fmt.Errorf("want one SKILL, then the skill's arguments after --; got %q", args)
			}
			return nil
		},
		RunE: runE(func(c *cobra.Command, args []string) error {
			if _, err := parse.Dir(args[0]); err != nil {
				return usageErr(err)
			}
			in, err := parseInputs(inputs)
			if err != nil {
				return usageErr(err)
			}
			d, err := openDB(c)
			if err != nil {
				return err
			}
			defer d.Close()
			t, err := d.AddTask(c.Context(), args[0], in, args[1:])
			if err != nil {
				return dbErr(err)
			}
			fmt.Fprintln(c.OutOrStdout(), t.ID)
			return nil
		}),
	}
	add.Flags().StringArrayVar(&inputs, "input", nil, "an input as key=value, repeatable")
	task.AddCommand(add)
	return task
}

func newWorkerCmd() *cobra.Command {
	var o worker.Options
	var agentCmd string
	c := &cobra.Command{
		Use:   "worker",
		Short: "Claim tasks and run them, stopping at review checkpoints",
		Long: `Claim tasks from the database and run them with the normal runtime, the runs
recorded in the same database (so another worker can take one over). The
worker heartbeats at every step boundary; after a step marked
"- **Review**: required" it sets needs_review and waits for 'skillkit
review': approved goes on, a rejection or a proposed fix goes to the agent
and is submitted again, an exit request hands the task off (exited). A run
that fails sets error and waits for the conductor. Work dirs are under
.skillkit/work on this machine.`,
		Example: `  skillkit worker --concurrency 4 --agent claude
  skillkit worker --until-idle --name ci-1`,
		Args: cobra.NoArgs,
		RunE: runE(func(c *cobra.Command, _ []string) error {
			d, err := openDB(c)
			if err != nil {
				return err
			}
			defer d.Close()
			cwd, err := os.Getwd()
			if err != nil {
				return err
			}
			o.DB, o.Out = d, c.OutOrStdout()
			o.Load = func(dir string) (*plan.Skill, error) { return parse.Dir(dir) }
			o.Run = skrun.Options{ProjectDir: cwd, Yes: true, Validate: func(sk *plan.Skill) error { return lintGate(c, sk, cwd, false) }}
			if cmd := firstNonEmpty(agentCmd, os.Getenv("SKILLKIT_AGENT")); cmd != "" {
				o.Run.Agent = &agent.Agent{Command: absCommand(cmd, cwd)}
			}
			ctx, stop := signal.NotifyContext(c.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return dbErr(worker.Run(ctx, o))
		}),
	}
	f := c.Flags()
	f.IntVar(&o.Concurrency, "concurrency", 1, "tasks run at once")
	f.BoolVar(&o.UntilIdle, "until-idle", false, "stop when no task is claimable and none of its runs is active (a failed task is left in error for the conductor) instead of waiting for more")
	f.StringVar(&o.Name, "name", "", "the worker's name in the tasks it holds (default worker-PID@HOST)")
	f.DurationVar(&o.Outage, "outage", worker.DefaultOutage, "how long to retry a database that is away (a restart, SQLite busy or out of disk) before exiting")
	f.DurationVar(&o.Poll, "poll", 2*time.Second, "how often to look for tasks and for review answers (PostgreSQL is notified at once)")
	f.StringVar(&agentCmd, "agent", "", "what does agent work: claude, codex, or a command reading the prompt on stdin (default $SKILLKIT_AGENT)")
	return c
}

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
does not allow is refused with exit 2.`,
		Example: `  skillkit review t20261121-101500-ab12cd --approve
  skillkit review t20261121-101500-ab12cd --reject "the summary misses the totals"`,
		Args: cobra.ExactArgs(1),
		RunE: runE(func(c *cobra.Command, args []string) error {
			var to skillsql.TaskState
			var msg string
			n := 0
			for _, r := range []struct {
				set   bool
				state skillsql.TaskState
				msg   string
			}{{approve, skillsql.ReviewApproved, ""}, {c.Flags().Changed("reject"), skillsql.ReviewFailed, reject},
				{c.Flags().Changed("fix"), skillsql.FixProposed, fix}, {exit, skillsql.ExitRequested, ""}} {
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
			if err := d.Review(c.Context(), args[0], to, msg); err != nil {
				return dbErr(err)
			}
			fmt.Fprintf(c.OutOrStdout(), "%s: %s\n", args[0], to)
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
				return usageErr(fmt.Errorf("--state %q: not a task state (%v)", state, skillsql.TaskStates))
			}
			d, err := openDB(c)
			if err != nil {
				return err
			}
			defer d.Close()
			for {
				if err := writeTasks(c.Context(), c.OutOrStdout(), d, skillsql.TaskState(state), asJSON); err != nil {
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
	for _, st := range skillsql.TaskStates {
		if string(st) == s {
			return true
		}
	}
	return false
}

// taskRow is a task as `skillkit tasks` shows it.
type taskRow struct {
	*skillsql.Task
	// Step is the current step of its run.
	Step string `json:"step,omitempty"`
}

func writeTasks(ctx context.Context, w io.Writer, d *skillsql.DB, state skillsql.TaskState, asJSON bool) error {
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
