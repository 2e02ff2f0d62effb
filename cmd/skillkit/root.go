package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/skillkit/skillkit/internal/agent"
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
	fmt.Fprintf(s.Err, "skillkit: %v\n", err)
	if code == ExitUsage && isCobraUsage(err) {
		fmt.Fprintln(s.Err, "Run 'skillkit --help' for usage.")
	}
	return code
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
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usageErr(err) })
	root.AddCommand(
		newVersionCmd(),
		newPlanCmd(),
		newSchemaCmd(),
		newGraphCmd(),
		newRunCmd(s),
		newStatusCmd(),
		newRunsCmd(),
		newNewCmd(),
		newAddCmd(),
		newLintCmd(s),
		newLSPCmd(s),
	)
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

// isTerminal reports whether a stream is a terminal: colour, live
// progress and interactive prompts only go to one.
func isTerminal(v any) bool {
	f, ok := v.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
