package mcp

import (
	"strings"
	"unicode/utf16"

	"github.com/skillkit/skillkit/jsstatic"
)

// Tool names as Claude Code writes them: mcp__<server>__<tool>.
const (
	Prefix = jsstatic.MCPPrefix
	Sep    = jsstatic.MCPSep
)

// Name is the full name of a server's tool, as skills call it: the
// server by its configured name or by NamePart of it alike.
func Name(server, tool string) string { return Prefix + NamePart(server) + Sep + tool }

// NamePart is a server's name as Claude Code writes it in the names of its
// tools, and so as skills call them: each character outside
// [A-Za-z0-9_-] becomes "_", one for each UTF-16 unit of it, as
// JavaScript's replace counts them. "my.server" is mcp__my_server__….
func NamePart(name string) string {
	var b strings.Builder
	for _, r := range name {
		switch {
		case r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		default:
			b.WriteString(strings.Repeat("_", max(utf16.RuneLen(r), 1)))
		}
	}
	return b.String()
}
