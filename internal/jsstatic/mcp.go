package jsstatic

import "strings"

// MCPPrefix starts the name of an MCP tool as Claude Code writes it,
// mcp__<server>__<tool>; MCPSep ends the server's name.
const (
	MCPPrefix = "mcp__"
	MCPSep    = "__"
)

// SplitMCP splits mcp__<server>__<tool> at the first "__" after the
// server's name, which holds none.
func SplitMCP(name string) (server, tool string, ok bool) {
	rest, ok := strings.CutPrefix(name, MCPPrefix)
	if !ok {
		return "", "", false
	}
	server, tool, ok = strings.Cut(rest, MCPSep)
	return server, tool, ok && server != "" && tool != ""
}

// mcpHyphen stands for a hyphen inside an MCP tool's name once the source
// is rewritten: a character JavaScript allows in names, one byte like the
// hyphen, so that every position of the block holds.
const mcpHyphen = '$'

// RewriteMCP makes the MCP tool names of JavaScript source callable as
// written: real skills call mcp__ace-tool__search_context({...}), which
// JavaScript reads as a subtraction. Inside a name that starts with
// mcp__, each hyphen followed by a letter or digit becomes mcpHyphen;
// strings, template literals and comments are left alone. The result is
// as long as src, line for line.
func RewriteMCP(src string) string {
	if !strings.Contains(src, MCPPrefix) {
		return src
	}
	b := []byte(src)
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"' || c == '\'' || c == '`':
			i = skipQuoted(b, i)
		case c == '/' && i+1 < len(b) && b[i+1] == '/':
			for i < len(b) && b[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(b) && b[i+1] == '*':
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				return string(b)
			}
			i += end + 3
		case identByte(c):
			start := i
			for i < len(b) && identByte(b[i]) {
				i++
			}
			if strings.HasPrefix(src[start:], MCPPrefix) {
				for i+1 < len(b) && b[i] == '-' && alnum(b[i+1]) {
					b[i] = mcpHyphen
					for i++; i < len(b) && identByte(b[i]); i++ {
					}
				}
			}
			i--
		}
	}
	return string(b)
}

// MCPToolName returns a name of rewritten source as the skill wrote it,
// and whether it names an MCP tool.
func MCPToolName(name string) (string, bool) {
	if !strings.HasPrefix(name, MCPPrefix) {
		return name, false
	}
	return strings.ReplaceAll(name, string(mcpHyphen), "-"), true
}

// skipQuoted returns the index of the quote that closes the string
// opened at b[i], or the last byte.
func skipQuoted(b []byte, i int) int {
	q := b[i]
	for i++; i < len(b); i++ {
		switch {
		case b[i] == '\\':
			i++
		case b[i] == q:
			return i
		case b[i] == '\n' && q != '`':
			return i
		}
	}
	return len(b) - 1
}

func identByte(c byte) bool { return alnum(c) || c == '_' || c == '$' || c >= 0x80 }

func alnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
