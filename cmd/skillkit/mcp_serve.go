package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/skillkit/skillkit/internal/mcpserve"
)

func newMCPServeCmd() *cobra.Command {
	var agentCmd string
	c := &cobra.Command{
		Use:   "serve [DIR...]",
		Short: "Serve skillkit's tools, skills and prompts over MCP (stdio)",
		Long: `serve is skillkit as an MCP server on stdin and stdout, for Claude Code or any
MCP client: the tools lint, plan, run (start or resume a run; it returns the
run id, its state and where it stopped), status and test do what the
commands of those names do; every skill under the DIRs (default the
project: the nearest folder up that holds .skillkit/ or .git) is a resource,
skillkit://skill/<folder>/SKILL.md, and a prompt named after it, the skill's
instructions with its arguments substituted.

Paths in tool arguments are relative to the current folder; runs go to the
project's .skillkit/runs, where 'skillkit status' and 'runs' find them. A
run goes through the run gate as 'skillkit run' does: without --agent, a run
sure to reach agent work is refused unless the tool's partial is set.
Confirmations take their defaults. Notes go to stderr; stdout is the
protocol's. docs/mcp-server.md has the set-up and what was tested.`,
		Example: `  claude mcp add skillkit -- skillkit mcp serve
  claude mcp add skillkit -- skillkit mcp serve .claude/skills --agent claude
  npx @modelcontextprotocol/inspector --cli skillkit mcp serve --method tools/list`,
		RunE: runE(func(c *cobra.Command, args []string) error {
			cwd, err := os.Getwd()
			if err != nil {
				return fmt.Errorf("finding the current folder: %w", err)
			}
			root := projectRoot(cwd)
			if len(args) == 0 {
				args = []string{root}
			}
			for _, d := range args {
				if err := checkSkillDir(d); err != nil {
					return err
				}
			}
			o := mcpserve.Options{
				Version: version, Base: cwd, Dirs: args, Store: runsOf(root), ProjectDir: projectDir(root),
				ExitCode: runExit, Log: c.ErrOrStderr(),
			}
			if cmd := firstNonEmpty(agentCmd, os.Getenv("SKILLKIT_AGENT")); cmd != "" {
				o.Agent = absCommand(cmd, cwd)
			}
			ctx, stop := signal.NotifyContext(c.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			srv, err := mcpserve.New(o)
			if err != nil {
				return err
			}
			err = srv.Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(c.InOrStdin()), Writer: writeNopCloser{c.OutOrStdout()}})
			if err != nil && ctx.Err() == nil {
				// The server ends on its own only when what came on stdin
				// was not the protocol: the client's error, not skillkit's.
				return usageErr(fmt.Errorf("mcp serve: stdin is not an MCP client's JSON-RPC: %w", err))
			}
			return nil
		}),
	}
	c.Flags().StringVar(&agentCmd, "agent", "", "what does agent work in runs: claude, codex, or a command reading the prompt on stdin (default $SKILLKIT_AGENT)")
	return c
}

// writeNopCloser is a writer the transport may close: the server's
// stdout stays the process's.
type writeNopCloser struct{ io.Writer }

func (writeNopCloser) Close() error { return nil }
