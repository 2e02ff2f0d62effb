package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/skillkit/skillkit/internal/agent"
	"github.com/skillkit/skillkit/internal/proc"
	skrun "github.com/skillkit/skillkit/internal/run"
	"github.com/skillkit/skillkit/internal/runstore"
)

// Exit codes, the same for every command (DESIGN §2).
const (
	ExitOK          = 0   // success, no error-level finding
	ExitFailed      = 1   // findings at error level; a run failed or was aborted
	ExitUsage       = 2   // bad flags or arguments, or an invalid skill
	ExitInternal    = 3   // skillkit itself failed
	ExitInterrupted = 130 // Ctrl-C: state saved, the run can be resumed
)

// Streams are the standard streams a command uses; tests swap them.
type Streams struct {
	In  io.Reader
	Out io.Writer
	Err io.Writer
}

// exitError carries an exit code up to Main. A nil err with a code is a
// silent exit: the command already said what it had to.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// runExit maps what a run returned to its exit code: the one place a
// runtime error meets the table above.
func runExit(err error) int {
	var re *skrun.RunError
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, context.Canceled), errors.Is(err, agent.ErrBudget):
		return ExitInterrupted
	case errors.Is(err, skrun.ErrInvalid):
		return ExitUsage
	case errors.Is(err, runstore.ErrRunRemoved):
		// A write error, but the run's own end: its folder went while
		// it ran, and there is nothing to resume.
		return ExitFailed
	case errors.Is(err, runstore.ErrWrite):
		// The disk failed, not the skill: the run stays resumable.
		return ExitInternal
	case errors.As(err, &re):
		return ExitFailed
	case errors.Is(err, runstore.ErrTerminal), errors.Is(err, skrun.ErrSkillChanged), errors.Is(err, runstore.ErrNoRun),
		errors.Is(err, runstore.ErrCorrupt):
		return ExitUsage
	case errors.As(err, new(*runstore.ClaimedError)):
		return ExitFailed
	}
	return ExitInternal
}

// usageErr marks err as a usage error (exit 2).
func usageErr(err error) error { return &exitError{code: ExitUsage, err: err} }

// failed marks err as a failure (exit 1); a nil err exits 1 silently.
func failed(err error) error { return &exitError{code: ExitFailed, err: err} }

// version is set by the linker for releases (-ldflags "-X main.version=v1.2.3").
var version = "devel"

// Main runs skillkit with args and returns the exit code.
func Main(args []string, s Streams) int {
	// The cgroups kept for the next command go with the process.
	defer proc.RemoveIdle()
	return guard(s.Err, func() int { return execute(args, s) })
}

func execute(args []string, s Streams) int {
	root := newRootCmd(s)
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return ExitOK
	}
	code := ExitInternal
	var ee *exitError
	switch {
	case errors.As(err, &ee):
		code = ee.code
		if ee.err == nil {
			return code
		}
	case isCobraUsage(err):
		code = ExitUsage
	}
	msg := err.Error()
	if code == ExitUsage && isCobraUsage(err) {
		msg = oneLine(msg) + "; see 'skillkit --help'"
	}
	fmt.Fprintf(s.Err, "skillkit: %s\n", msg)
	return code
}

// oneLine folds cobra's unknown-command error, whose suggestions follow
// on lines of their own, into one line.
func oneLine(msg string) string {
	first, more, ok := strings.Cut(msg, "\n\nDid you mean this?\n")
	if !ok {
		return strings.TrimSpace(msg)
	}
	return first + " (did you mean " + strings.Join(strings.Fields(more), " or ") + "?)"
}

// withUsageLine makes the argument errors of c and its subcommands usage
// errors of one line that ends in the command's usage line: cobra's own
// ("accepts 1 arg(s), received 0") says neither what is missing nor how
// to call the command.
func withUsageLine(c *cobra.Command) {
	if check := c.Args; check != nil {
		c.Args = func(c *cobra.Command, args []string) error {
			err := check(c, args)
			if err == nil {
				return nil
			}
			what := err.Error()
			if len(args) == 0 {
				what = "missing argument"
			}
			return usageErr(fmt.Errorf("%s; usage: %s", what, strings.TrimSuffix(c.UseLine(), " [flags]")))
		}
	}
	for _, sub := range c.Commands() {
		withUsageLine(sub)
	}
}

// isCobraUsage reports errors that cobra raises itself for unknown
// commands and wrong argument counts: every error of skillkit's own code
// reaches Main as an *exitError (see runE), so anything else is the user's.
func isCobraUsage(err error) bool {
	var ee *exitError
	return !errors.As(err, &ee)
}

// runE adapts a command body: an error it returns that carries no exit code
// is skillkit failing (exit 3), kept apart from cobra's usage errors.
func runE(fn func(c *cobra.Command, args []string) error) func(*cobra.Command, []string) error {
	return func(c *cobra.Command, args []string) error {
		err := fn(c, args)
		var ee *exitError
		if err == nil || errors.As(err, &ee) {
			return err
		}
		return &exitError{code: ExitInternal, err: err}
	}
}

func newRootCmd(s Streams) *cobra.Command {
	root := &cobra.Command{
		Use:   "skillkit",
		Short: "Scaffold, lint, plan and run agent skills",
		Long: `skillkit makes agent skills — a SKILL.md and phases/ of markdown — into real
software: it scaffolds the three layouts (sequential, autonomous, hybrid),
reads them into a typed plan, lints them in CI, and runs them locally with
durable state, resume, retries and an embedded JavaScript engine.`,
		Example: `  skillkit plan examples/sequential
  skillkit plan examples/autonomous --json`,
		SilenceErrors: true,
		SilenceUsage:  true,
		Version:       version,
	}
	root.SetIn(s.In)
	root.SetOut(s.Out)
	root.SetErr(s.Err)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageErr(fmt.Errorf("%w; see '%s --help'", err, c.CommandPath()))
	})
	root.AddCommand(
		newVersionCmd(),
		newPlanCmd(),
		newSchemaCmd(),
		newGraphCmd(),
		newRunCmd(s),
		newStatusCmd(),
		newRunsCmd(),
		newReportCmd(),
		newPackCmd(),
		newNewCmd(),
		newAddCmd(),
		newLintCmd(s),
		newDBCmd(),
		newTaskCmd(),
		newWorkerCmd(),
		newReviewCmd(),
		newRecoverCmd(),
		newTasksCmd(),
		newLSPCmd(s),
		newTestCmd(),
		newDoctorCmd(),
		newMCPCmd(),
	)
	withUsageLine(root)
	addDBFlag(root)
	return root
}

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print skillkit's version",
		Example: "  skillkit version",
		Args:    cobra.NoArgs,
		RunE: runE(func(c *cobra.Command, _ []string) error {
			_, err := fmt.Fprintf(c.OutOrStdout(), "skillkit %s\n", version)
			return err
		}),
	}
}
