package script

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/dop251/goja"

	"github.com/skillkit/skillkit/internal/mcp"
	"github.com/skillkit/skillkit/jsstatic"
)

// errNoMCP is the error of an MCP call in a host without servers.
var errNoMCP = errors.New("no MCP server is configured (.mcp.json, or mcp.servers in skillkit.yaml)")

// mcpNames finds the MCP tool names of rewritten source. It may find one
// in a string or a comment too: defining it does no harm.
var mcpNames = regexp.MustCompile(`\bmcp__[A-Za-z0-9_$]+`)

// defineMCP defines a function for each mcp__server__tool name of a
// block: the names are open-ended, so they are found in the code rather
// than listed.
func (ev *evaluation) defineMCP(src string) {
	if !strings.Contains(src, jsstatic.MCPPrefix) {
		// No name to find: the search was a loop iteration's 2%.
		return
	}
	for _, name := range mcpNames.FindAllString(jsstatic.RewriteMCP(src), -1) {
		if ev.vm.GlobalObject().Get(name) != nil {
			continue
		}
		full, _ := jsstatic.MCPToolName(name)
		server, tool, ok := jsstatic.SplitMCP(full)
		if !ok {
			continue
		}
		_ = ev.vm.Set(name, func(call goja.FunctionCall) goja.Value {
			return ev.callMCP(full, server, tool, call.Argument(0))
		})
	}
}

// mcpObject is the global MCP: MCP.call(server, tool, args).
func (ev *evaluation) mcpObject() goja.Value {
	obj := ev.vm.NewObject()
	_ = obj.Set("call", func(call goja.FunctionCall) goja.Value {
		server := ev.str("MCP.call", call.Argument(0).Export(), "a server name")
		tool := ev.str("MCP.call", call.Argument(1).Export(), "a tool name")
		return ev.callMCP("MCP.call", server, tool, call.Argument(2))
	})
	return obj
}

// callMCP calls a tool and returns its result to skill code, at once: real
// skills call these functions without await (await of a value is the
// value). A failure throws, with the tool's message; a server that is
// gone throws an error that stops the run resumable unless the code
// catches it.
func (ev *evaluation) callMCP(fn, server, tool string, arg goja.Value) goja.Value {
	var args map[string]any
	if !goja.IsUndefined(arg) && !goja.IsNull(arg) {
		v, err := fromJS(ev.globals.g, arg)
		if err != nil {
			ev.throw(fn, err)
		}
		m, ok := v.(map[string]any)
		if !ok {
			ev.throw(fn, fmt.Errorf("want an object of arguments, got %v", v))
		}
		args = m
	}
	if ev.h.opts.MCP == nil {
		ev.throw(fn, fmt.Errorf("%s: %w", mcp.Name(server, tool), errNoMCP))
	}
	ev.settle(fn)
	res, err := ev.h.opts.MCP.Call(ev.ctx, server, tool, args)
	if err != nil {
		// The error names the tool already.
		panic(ev.vm.NewGoError(err))
	}
	v, err := toJS(ev.vm, res)
	if err != nil {
		ev.throw(fn, err)
	}
	return v
}
