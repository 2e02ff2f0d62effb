package mcp

import "strings"

// Tool names as Claude Code writes them: mcp__<server>__<tool>.
const (
	Prefix = "mcp__"
	Sep    = "__"
)

// Name is the full name of a server's tool.
func Name(server, tool string) string { return Prefix + server + Sep + tool }

// Split splits mcp__<server>__<tool> at the first "__" after the
// server's name, which holds none.
func Split(name string) (server, tool string, ok bool) {
	rest, ok := strings.CutPrefix(name, Prefix)
	if !ok {
		return "", "", false
	}
	server, tool, ok = strings.Cut(rest, Sep)
	return server, tool, ok && server != "" && tool != ""
}
