package cassette

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/skillkit/skillkit/internal/mcp"
)

// RequestMCP is the Request of an exchange that is an MCP tool call. Its
// ID is the tool's full name (mcp__server__tool), its Prompt the call's
// arguments as indented JSON (what a miss diffs), its Reply the result as
// JSON and its Error the tool's message of a result with isError.
const RequestMCP = "mcp"

var (
	_ mcp.Tape = (*Recorder)(nil)
	_ mcp.Tape = (*Player)(nil)
)

// mcpPrompt is a call's arguments as a cassette keeps and matches them.
func mcpPrompt(p placeholders, s *Scrubber, args map[string]any) string {
	if args == nil {
		args = map[string]any{}
	}
	data, _ := json.MarshalIndent(args, "", "  ")
	return p.prompt(s, string(data)+"\n")
}

// workDir is the run's work dir in its environment (script.Env).
func workDir(env []string) string {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "SKILL_WORKDIR="); ok {
			return v
		}
	}
	return ""
}

// ReplayMCP sends every call to the server: a recording does not answer.
// It notes the work dir's files, for RecordMCP to keep what the call
// changed there (a filesystem server writes files): the host makes one
// call at a time.
func (r *Recorder) ReplayMCP(env []string, _ mcp.Call) (any, bool, error) {
	before, err := WorkFiles(workDir(env))
	r.mu.Lock()
	r.mcpBefore, r.mcpErr = before, err
	r.mu.Unlock()
	return nil, false, nil
}

// RecordMCP writes a call the server answered.
func (r *Recorder) RecordMCP(env []string, c mcp.Call) {
	p := placeholdersOfEnv(env, "")
	id := mcp.Name(c.Server, c.Tool)
	r.mu.Lock()
	k := key(RequestMCP, id)
	r.attempts[k]++
	attempt := r.attempts[k]
	r.mu.Unlock()
	prompt := mcpPrompt(p, r.scrub, c.Args)
	e := Exchange{Request: RequestMCP, ID: id, Attempt: attempt, PromptHash: Hash(prompt), Prompt: prompt,
		Error: r.scrub.Scrub(p.hide(c.Error))}
	r.mu.Lock()
	before, err := r.mcpBefore, r.mcpErr
	r.mu.Unlock()
	if dir := workDir(env); err == nil && dir != "" {
		var after map[string]string
		if after, err = WorkFiles(dir); err == nil {
			e.Files, err = changes(dir, before, after)
		}
		r.scrubFiles(e.Files, p)
	}
	if err == nil && c.Error == "" {
		var data []byte
		if data, err = json.Marshal(c.Result); err == nil {
			e.Reply = r.scrub.Scrub(p.hide(string(data)))
		}
	}
	r.write(e, err)
}

// RecordMCP does nothing: a replay records nothing.
func (p *Player) RecordMCP([]string, mcp.Call) {}

// ReplayMCP answers a call from the first unused exchange of the same
// tool and arguments. Nothing recorded is a *MissError, with a diff
// against the closest arguments recorded for the tool.
func (p *Player) ReplayMCP(env []string, c mcp.Call) (any, bool, error) {
	ph := placeholdersOfEnv(env, "")
	id := mcp.Name(c.Server, c.Tool)
	p.mu.Lock()
	p.mcpCalls++
	p.mu.Unlock()
	e, miss := p.take(RequestMCP, id, mcpPrompt(ph, p.scrub, c.Args))
	if miss != nil {
		return nil, true, miss
	}
	if err := apply(workDir(env), e.Files, ph); err != nil {
		return nil, true, fmt.Errorf("replaying %s: %w", id, err)
	}
	if e.Error != "" {
		return nil, true, &mcp.ToolError{Server: c.Server, Tool: c.Tool, Msg: ph.show(e.Error)}
	}
	var v any
	if e.Reply != "" {
		if err := json.Unmarshal([]byte(ph.show(e.Reply)), &v); err != nil {
			return nil, true, fmt.Errorf("replaying %s: the recorded result is no JSON: %w", id, err)
		}
	}
	return v, true, nil
}

// MCPCalls is how many MCP calls the replay answered or missed.
func (p *Player) MCPCalls() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.mcpCalls
}
