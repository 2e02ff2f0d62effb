package mcp

import "github.com/skillkit/skillkit/internal/jsstatic"

// Tool names as Claude Code writes them: mcp__<server>__<tool>.
const (
	Prefix = jsstatic.MCPPrefix
	Sep    = jsstatic.MCPSep
)

// Name is the full name of a server's tool.
func Name(server, tool string) string { return Prefix + server + Sep + tool }
