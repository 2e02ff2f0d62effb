package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/skillkit/skillkit/internal/mcp"
	"github.com/skillkit/skillkit/parse"
	"github.com/skillkit/skillkit/plan"
)

// loadMCP reads the MCP servers of the project that holds the current
// folder (.mcp.json at its root) and of the skill folder skillDir (its
// skillkit.yaml), which may be empty. A configuration that cannot be used
// is the user's to fix (exit 2), with its file:line.
func loadMCP(skillDir string) (*mcp.Config, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return nil, fmt.Errorf("finding the current folder: %w", err)
	}
	c, err := mcp.Load(projectRoot(cwd), skillDir, nil)
	if err != nil {
		return nil, usageErr(err)
	}
	return c, nil
}

// readSkillMCP is readSkill with the MCP servers the skill may call:
// a step calling a tool of another server goes to the agent.
func readSkillMCP(dir string) (*plan.Skill, *mcp.Config, error) {
	if err := checkSkillDir(dir); err != nil {
		return nil, nil, err
	}
	c, err := loadMCP(dir)
	if err != nil {
		return nil, nil, err
	}
	s, err := parse.DirWith(dir, parse.Options{MCPServers: c.Names()})
	if err != nil {
		return nil, nil, usageErr(err)
	}
	return s, c, nil
}

func newMCPListCmd() *cobra.Command {
	var skill string
	var asJSON bool
	c := &cobra.Command{
		Use:   "list",
		Short: "List the configured MCP servers",
		Long: `list shows the MCP servers of the project's .mcp.json (at the root of the
project that holds the current folder) and, with --skill, of the skill's
skillkit.yaml, which add to or override them. It starts none of them.`,
		Example: `  skillkit mcp list
  skillkit mcp list --skill examples/mcp-notes --json`,
		Args: cobra.NoArgs,
		RunE: runE(func(c *cobra.Command, _ []string) error {
			cfg, err := loadMCP(skill)
			if err != nil {
				return err
			}
			servers := make([]*mcp.Server, 0, len(cfg.Servers))
			for _, n := range cfg.Names() {
				servers = append(servers, cfg.Servers[n])
			}
			if asJSON {
				return writeJSON(c.OutOrStdout(), servers)
			}
			if len(servers) == 0 {
				_, err := fmt.Fprintf(c.OutOrStdout(), "no MCP server configured (%s, or mcp.servers in skillkit.yaml)\n", mcp.ProjectFile)
				return err
			}
			w := tabwriter.NewWriter(c.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "NAME\tTYPE\tCOMMAND OR URL\tWHERE")
			for _, s := range servers {
				target := s.URL
				if s.Type == mcp.TypeStdio {
					target = s.Command
					for _, a := range s.Args {
						target += " " + a
					}
				}
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", s.Name, s.Type, target, relPos(s.Pos))
			}
			return w.Flush()
		}),
	}
	c.Flags().StringVar(&skill, "skill", "", "a skill folder whose skillkit.yaml adds servers")
	c.Flags().BoolVar(&asJSON, "json", false, "print the servers as JSON")
	return c
}

// relPos shows a position relative to the current folder where it is
// under it.
func relPos(p plan.Pos) string {
	if cwd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(cwd, p.File); err == nil && filepath.IsLocal(rel) {
			p.File = rel
		}
	}
	return p.String()
}

func newMCPToolsCmd() *cobra.Command {
	var skill string
	var save, asJSON bool
	c := &cobra.Command{
		Use:   "tools SERVER",
		Short: "List an MCP server's tools and their input schemas",
		Long: `tools starts the server, lists its tools with their input schemas, and stops
it. With --save it also writes the listing to .mcp-tools/SERVER.json beside
the file that configures the server: commit it, and lint checks the
arguments of the skill's calls against it (mcp-args) without starting
anything.`,
		Example: `  skillkit mcp tools memory
  skillkit mcp tools filesystem --skill examples/mcp-notes --save`,
		Args: cobra.ExactArgs(1),
		RunE: runE(func(c *cobra.Command, args []string) error {
			cfg, err := loadMCP(skill)
			if err != nil {
				return err
			}
			s, ok := cfg.Server(args[0])
			if !ok {
				return usageErr(fmt.Errorf("MCP server %q is not configured; skillkit mcp list shows those that are", args[0]))
			}
			// Ctrl-C stops the server it started (in a process group of
			// its own, which the terminal's signal does not reach).
			ctx, stop := signal.NotifyContext(c.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			pool := mcp.NewPool(mcp.Options{Config: cfg, Log: c.ErrOrStderr()})
			defer pool.Close()
			tools, err := pool.Tools(ctx, s.Name)
			if err != nil {
				return err
			}
			listing := mcp.ListingOf(s.Name, tools)
			if save {
				path, err := listing.Save(s.Dir)
				if err != nil {
					return err
				}
				fmt.Fprintf(c.ErrOrStderr(), "saved %d tool(s) to %s\n", len(listing.Tools), path)
			}
			if asJSON {
				return writeJSON(c.OutOrStdout(), listing)
			}
			for _, t := range listing.Tools {
				schema, _ := json.Marshal(t.InputSchema)
				fmt.Fprintf(c.OutOrStdout(), "%s\n  %s\n  input: %s\n", mcp.Name(s.Name, t.Name), t.Description, schema)
			}
			return nil
		}),
	}
	c.Flags().StringVar(&skill, "skill", "", "a skill folder whose skillkit.yaml adds servers")
	c.Flags().BoolVar(&save, "save", false, "write the listing to .mcp-tools/SERVER.json beside the server's configuration, for lint")
	c.Flags().BoolVar(&asJSON, "json", false, "print the listing as JSON")
	return c
}
