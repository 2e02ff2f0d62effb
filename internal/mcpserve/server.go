// Package mcpserve is skillkit as an MCP server (`skillkit mcp serve`,
// docs/mcp-server.md): its tools lint, plan, run, status and test do what
// the commands of those names do, each skill found at start is a resource,
// and each skill's prompt an MCP prompt. The protocol is the official Go
// SDK's; this package only maps skillkit onto it.
package mcpserve

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillkit/skillkit/internal/agent"
	"github.com/skillkit/skillkit/internal/runstore"
	"github.com/skillkit/skillkit/lint"
)

// Options configure the server.
type Options struct {
	// Version is skillkit's, for the server's implementation info.
	Version string
	// Base is the folder that relative paths of tool arguments resolve
	// against, and that findings are shown relative to.
	Base string
	// Dirs are searched for skills at start: each skill found is served
	// as a resource and a prompt. Relative to Base.
	Dirs []string
	// Store keeps the runs the run tool starts, and status reads.
	Store runstore.Store
	// ProjectDir is the project the skills' code may touch (run's
	// ProjectDir).
	ProjectDir string
	// Agent is the command that does agent work in runs, as run's
	// --agent; empty runs without one.
	Agent string
	// ExitCode maps a run's error to skillkit's exit code, for the test
	// tool's expectations.
	ExitCode func(error) int
	// Log receives the server's own notes (a skill it could not read);
	// nil discards them.
	Log io.Writer
}

// New builds the server: its tools, and a resource and a prompt for
// every skill under o.Dirs.
func New(o Options) (*mcp.Server, error) {
	if o.Log == nil {
		o.Log = io.Discard
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "skillkit", Title: "skillkit", Version: o.Version}, &mcp.ServerOptions{
		Instructions: "skillkit lints, plans, runs and tests agent skills (a folder with SKILL.md and phases/). " +
			"Paths are relative to " + o.Base + ". Start with lint or plan; run starts or resumes a run and says where it stopped.",
	})
	h := &handlers{o: o}
	mcp.AddTool(s, &mcp.Tool{Name: "lint", Title: "Lint skills",
		Description: "Check skills without running them, as `skillkit lint`: front matter, layout, links, actions, code and state. Returns every finding with file, line and rule."}, h.lint)
	mcp.AddTool(s, &mcp.Tool{Name: "plan", Title: "Plan a skill",
		Description: "Read a skill as the runners do, as `skillkit plan`: its mode, phases, steps and actions, and which of them are native and which go to the agent, with why."}, h.plan)
	mcp.AddTool(s, &mcp.Tool{Name: "run", Title: "Run a skill",
		Description: "Start a run of a skill, or resume one, as `skillkit run`. It returns when the run ends or stops: the run id, its state, and where it stopped. Without an agent configured on the server, a run sure to reach agent work is refused unless partial is set."}, h.run)
	mcp.AddTool(s, &mcp.Tool{Name: "status", Title: "Status of a run",
		Description: "The state of a run, as `skillkit status`: its phase and step, the steps completed and the last error. Without a run id, the newest run."}, h.status)
	mcp.AddTool(s, &mcp.Tool{Name: "test", Title: "Test skills",
		Description: "Run skills' regression tests with the recorded agent replies, as `skillkit test`: no agent and no network take part."}, h.test)
	skills, err := findSkills(o)
	if err != nil {
		return nil, err
	}
	for _, sk := range skills {
		s.AddResource(sk.resource(), h.skillResource(sk))
		s.AddPrompt(sk.prompt(), h.skillPrompt(sk))
	}
	s.AddResourceTemplate(fileResources(), h.skillFile(skills))
	return s, nil
}

// handlers hold the tools' and resources' handlers.
type handlers struct{ o Options }

// path resolves a tool argument's path against Base.
func (h *handlers) path(p string) string { return resolve(h.o.Base, p) }

// resolve is p relative to base; empty is base.
func resolve(base, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(base, p)
}

// newAgent is the agent of a run the server starts, nil without one.
func (h *handlers) newAgent() *agent.Agent {
	if h.o.Agent == "" {
		return nil
	}
	return &agent.Agent{Command: h.o.Agent}
}

// findSkills is every skill under o.Dirs, once each.
func findSkills(o Options) ([]*skill, error) {
	seen := map[string]bool{}
	names := map[string]bool{}
	var out []*skill
	for _, d := range o.Dirs {
		dirs, err := lint.Discover(resolve(o.Base, d))
		if err != nil {
			return nil, err
		}
		for _, dir := range dirs {
			if seen[dir] {
				continue
			}
			seen[dir] = true
			sk, err := loadSkill(o.Base, dir)
			if err != nil {
				fmt.Fprintf(o.Log, "skillkit mcp serve: %v; not served\n", err)
				continue
			}
			// Prompts are named by the skill's name; two skills of one
			// name are told apart by their folder.
			if names[sk.name] {
				sk.name = sk.rel
			}
			names[sk.name] = true
			out = append(out, sk)
		}
	}
	return out, nil
}
