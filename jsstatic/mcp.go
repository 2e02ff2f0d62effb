package jsstatic

import (
	"strings"

	"github.com/dop251/goja/ast"
)

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

// MCPCall is a call of an MCP tool in a block: mcp__server__tool(...).
type MCPCall struct {
	// Name is the tool's full name as the skill wrote it.
	Name      string
	Line, Col int
	// Args are the keys of the call's object literal argument with the
	// kind of each value (KindString…, "" when it is computed); nil when
	// the argument is no object literal (a variable), which cannot be
	// checked. An empty map is a call with no or empty arguments.
	Args map[string]Arg
}

// Arg is one argument of an MCPCall.
type Arg struct {
	Kind      string
	Line, Col int
}

// MCPCalls returns the calls of MCP tools in the program, in order.
func (p *Program) MCPCalls() []MCPCall { return p.memo.mcp.get(p.mcpCalls) }

func (p *Program) mcpCalls() []MCPCall {
	var out []MCPCall
	Inspect(p.AST, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpression)
		if !ok {
			return true
		}
		id, ok := call.Callee.(*ast.Identifier)
		if !ok {
			return true
		}
		name, isTool := MCPToolName(id.Name.String())
		if !isTool {
			return true
		}
		c := MCPCall{Name: name}
		c.Line, c.Col = p.Position(id.Idx)
		switch {
		case len(call.ArgumentList) == 0:
			c.Args = map[string]Arg{}
		default:
			if obj, ok := call.ArgumentList[0].(*ast.ObjectLiteral); ok {
				c.Args = map[string]Arg{}
				for _, prop := range obj.Value {
					a := Arg{}
					switch k := prop.(type) {
					case *ast.PropertyShort:
						// { entities }: a variable's value, of no known kind.
						a.Line, a.Col = p.Position(k.Name.Idx)
						c.Args[k.Name.Name.String()] = a
						continue
					case *ast.PropertyKeyed:
						if !k.Computed {
							a.Kind, _ = literal(k.Value)
							a.Line, a.Col = p.Position(k.Key.Idx0())
							c.Args[propertyName(k.Key)] = a
							continue
						}
					}
					// A spread or a computed key: the keys are not all
					// known.
					c.Args = nil
					break
				}
			}
		}
		out = append(out, c)
		return true
	})
	return out
}
