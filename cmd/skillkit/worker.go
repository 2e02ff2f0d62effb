package main

import (
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/skillkit/skillkit/internal/agent"
	"github.com/skillkit/skillkit/internal/gate"
	skrun "github.com/skillkit/skillkit/internal/run"
	"github.com/skillkit/skillkit/internal/worker"
	"github.com/skillkit/skillkit/parse"
	"github.com/skillkit/skillkit/plan"
)

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
that fails sets error and waits for the conductor. SIGTERM or Ctrl-C stops
the step under way and hands its task back (fix_proposed) for the next
worker, which resumes the run. Work dirs are under .skillkit/work on this
machine.`,
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
			o.Run = skrun.Options{ProjectDir: cwd, Yes: true, Validate: gate.Options{Base: cwd, Out: c.ErrOrStderr()}.Validator()}
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
