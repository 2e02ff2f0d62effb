// Package mcp makes skillkit an MCP client: it reads the servers a
// project configures (.mcp.json, as Claude Code reads it, and the mcp block
// of skillkit.yaml), starts each once per run on first use, and calls
// their tools for the steps of a skill, through the official Go SDK.
package mcp

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/skillkit/skillkit/plan"
)

// ProjectFile is the file, at the project's root, that configures MCP
// servers for Claude Code and for skillkit alike.
const ProjectFile = ".mcp.json"

// ConfigKey is the key of skillkit.yaml whose servers add to or override
// those of .mcp.json.
const ConfigKey = "mcp"

// Default time limits; skillkit.yaml's mcp.start_timeout and
// mcp.call_timeout change them.
const (
	DefaultStartTimeout = 30 * time.Second
	DefaultCallTimeout  = 2 * time.Minute
)

// Transports a server may use.
const (
	TypeStdio = "stdio"
	TypeHTTP  = "http"
	TypeSSE   = "sse"
)

// Server is one configured MCP server, its ${VAR}s expanded.
type Server struct {
	Name string `json:"name"`
	// Type is TypeStdio (a command), TypeHTTP or TypeSSE (a URL).
	Type    string            `json:"type"`
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	// Dir is the folder of the file that configures the server: a
	// relative command path resolves against it.
	Dir     string            `json:"-"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	// Pos is where the server is configured: its name in .mcp.json or
	// skillkit.yaml.
	Pos plan.Pos `json:"pos"`
}

// Config is the MCP configuration of a run.
type Config struct {
	// Servers by the name skills call them by: NamePart of the
	// configured name (Server.Name), as Claude Code names their tools.
	Servers      map[string]*Server
	StartTimeout time.Duration
	CallTimeout  time.Duration
}

// Server returns the server that name, as configured or as skills call
// it (NamePart), names.
func (c *Config) Server(name string) (*Server, bool) {
	s, ok := c.Servers[NamePart(name)]
	return s, ok
}

// Names returns the server names as skills call them, sorted.
func (c *Config) Names() []string {
	if c == nil {
		return nil
	}
	out := make([]string, 0, len(c.Servers))
	for n := range c.Servers {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// Env is what the servers are given in their configuration, as NAME=value
// pairs, for the scrubbers of a run's logs and cassettes: each server's
// env, its ${VAR}s expanded, and the credentials of its Authorization
// headers under a name that says secret. A scrubber keeps those whose
// names say secret, as it does of skillkit's own environment: a token
// written in .mcp.json, or passed through a variable whose name does not
// say secret, reached mcp.log and the run's state when a server echoed
// it.
func (c *Config) Env() []string {
	if c == nil {
		return nil
	}
	var out []string
	for _, n := range c.Names() {
		s := c.Servers[n]
		for _, k := range slices.Sorted(maps.Keys(s.Env)) {
			out = append(out, k+"="+s.Env[k])
		}
		for _, k := range slices.Sorted(maps.Keys(s.Headers)) {
			if strings.EqualFold(k, "Authorization") || strings.EqualFold(k, "Proxy-Authorization") {
				// "Bearer <token>": the token is the secret.
				v := s.Headers[k]
				if _, cred, ok := strings.Cut(v, " "); ok {
					v = strings.TrimSpace(cred)
				}
				out = append(out, "MCP_AUTHORIZATION_TOKEN="+v)
			}
		}
	}
	return out
}

// ConfigError is a configuration that cannot be used, at its place.
type ConfigError struct {
	Pos plan.Pos
	Msg string
}

func (e *ConfigError) Error() string { return e.Pos.String() + ": " + e.Msg }

// Lookup reads an environment variable, as os.LookupEnv.
type Lookup func(name string) (string, bool)

// Load reads the servers of projectDir's .mcp.json, then the mcp block of
// skillDir's skillkit.yaml on top (a server of the same name replaces the
// project's). Either file may be missing; skillDir may be empty. ${VAR}
// and ${VAR:-default} are expanded with env (nil: the process's).
func Load(projectDir, skillDir string, env Lookup) (*Config, error) {
	if env == nil {
		env = os.LookupEnv
	}
	c := newConfig()
	if projectDir != "" {
		path := filepath.Join(projectDir, ProjectFile)
		data, err := os.ReadFile(path)
		switch {
		case err == nil:
			if err := c.addJSON(path, data, env); err != nil {
				return nil, err
			}
		case !errors.Is(err, fs.ErrNotExist):
			return nil, fmt.Errorf("reading %s: %w", path, err)
		}
	}
	if skillDir != "" {
		path := filepath.Join(skillDir, plan.ConfigFile)
		data, err := os.ReadFile(path)
		switch {
		case err == nil:
			if err := c.addYAML(path, data, env); err != nil {
				return nil, err
			}
		case !errors.Is(err, fs.ErrNotExist):
			return nil, fmt.Errorf("reading %s: %w", path, err)
		}
	}
	return c, nil
}

// newConfig is a configuration of no server, with the default timeouts.
func newConfig() *Config {
	return &Config{Servers: map[string]*Server{}, StartTimeout: DefaultStartTimeout, CallTimeout: DefaultCallTimeout}
}

// ParseProject reads the content of a .mcp.json file, as Load does,
// without the file system: for a file's content at hand (tests, fuzzing).
func ParseProject(path string, data []byte, env Lookup) (*Config, error) {
	c := newConfig()
	return c, c.addJSON(path, data, env)
}

func (c *Config) addJSON(path string, data []byte, env Lookup) error {
	root, err := decodeJSON(path, data)
	if err != nil {
		return err
	}
	if root.kind != "object" {
		return &ConfigError{Pos: root.pos, Msg: "want a JSON object with mcpServers"}
	}
	servers := root.get("mcpServers")
	if servers == nil {
		// A file that configures nothing (an empty {}) is no error.
		return nil
	}
	return c.addServers(servers, filepath.Dir(path), env)
}

func (c *Config) addYAML(path string, data []byte, env Lookup) error {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return &ConfigError{Pos: plan.Pos{File: path}, Msg: err.Error()}
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil
	}
	top := doc.Content[0]
	var block *yaml.Node
	for i := 0; i+1 < len(top.Content); i += 2 {
		if top.Content[i].Value == ConfigKey {
			block = top.Content[i+1]
		}
	}
	if block == nil {
		return nil
	}
	v, err := fromYAML(path, block, 0)
	if err != nil {
		return err
	}
	if v.kind != "object" {
		return &ConfigError{Pos: v.pos, Msg: "mcp: want a map with servers, start_timeout and call_timeout"}
	}
	for i, k := range v.keys {
		m := v.vals[i]
		switch k {
		case "servers":
			if err := c.addServers(m, filepath.Dir(path), env); err != nil {
				return err
			}
		case "start_timeout", "call_timeout":
			d, err := time.ParseDuration(m.str)
			if m.kind != "string" || err != nil || d <= 0 {
				return &ConfigError{Pos: m.pos, Msg: fmt.Sprintf("mcp.%s: want a positive duration such as 30s or 2m, not %q", k, m.str)}
			}
			if k == "start_timeout" {
				c.StartTimeout = d
			} else {
				c.CallTimeout = d
			}
		default:
			return &ConfigError{Pos: m.pos, Msg: fmt.Sprintf("mcp: unknown key %q (want servers, start_timeout or call_timeout)", k)}
		}
	}
	return nil
}

// addServers reads an mcpServers object: name → server.
func (c *Config) addServers(v *value, dir string, env Lookup) error {
	if v.kind != "object" {
		return &ConfigError{Pos: v.pos, Msg: "mcpServers: want an object of server name → server"}
	}
	for i, name := range v.keys {
		s, err := decodeServer(name, v.kpos[i], v.vals[i], dir, env)
		if err != nil {
			return err
		}
		key := NamePart(name)
		if old, ok := c.Servers[key]; ok && old.Pos.File == s.Pos.File {
			return &ConfigError{Pos: s.Pos, Msg: fmt.Sprintf("servers %q and %q are both %s in the names of their tools", old.Name, name, Prefix+key+Sep)}
		}
		// One of the same name in skillkit.yaml replaces the project's.
		c.Servers[key] = s
	}
	return nil
}

func decodeServer(name string, at plan.Pos, v *value, dir string, env Lookup) (*Server, error) {
	errAt := func(at *value, format string, args ...any) error {
		return &ConfigError{Pos: at.pos, Msg: fmt.Sprintf("server %q: ", name) + fmt.Sprintf(format, args...)}
	}
	if key := NamePart(name); key == "" || strings.Contains(key, "__") {
		// mcp__server__tool splits at the first "__" after the server,
		// named as Claude Code names it ("a..b" is a__b).
		return nil, &ConfigError{Pos: at, Msg: fmt.Sprintf("server name %q: want a non-empty name without \"__\" in tool names (%s)", name, Prefix+key+Sep)}
	}
	if v.kind != "object" {
		return nil, errAt(v, "want an object with command (and args, env) or type and url")
	}
	s := &Server{Name: name, Dir: dir, Pos: at}
	str := func(m *value) (string, error) {
		if m.kind != "string" {
			return "", errAt(m, "want a string, not %s", m.kind)
		}
		return expand(m.str, env, func(msg string) error { return errAt(m, "%s", msg) })
	}
	strMap := func(m *value) (map[string]string, error) {
		if m.kind != "object" {
			return nil, errAt(m, "want an object of name → string")
		}
		out := map[string]string{}
		for j, k := range m.keys {
			x, err := str(m.vals[j])
			if err != nil {
				return nil, err
			}
			out[k] = x
		}
		return out, nil
	}
	var err error
	for j, k := range v.keys {
		m := v.vals[j]
		switch k {
		case "type":
			s.Type, err = str(m)
		case "command":
			s.Command, err = str(m)
		case "args":
			if m.kind != "array" {
				return nil, errAt(m, "args: want an array of strings")
			}
			for _, it := range m.items {
				a, err := str(it)
				if err != nil {
					return nil, err
				}
				s.Args = append(s.Args, a)
			}
		case "env":
			s.Env, err = strMap(m)
		case "url":
			s.URL, err = str(m)
		case "headers":
			s.Headers, err = strMap(m)
		default:
			// Claude Code's files carry keys of other clients too
			// (timeout, disabled, alwaysAllow): they are not ours.
		}
		if err != nil {
			return nil, err
		}
	}
	switch {
	case s.Type == "" && s.URL != "":
		s.Type = TypeHTTP
	case s.Type == "":
		s.Type = TypeStdio
	}
	switch s.Type {
	case TypeStdio:
		if s.Command == "" {
			return nil, errAt(v, "no command (a stdio server runs a command; an http or sse server has a url)")
		}
	case TypeHTTP, TypeSSE:
		if s.URL == "" {
			return nil, errAt(v, "type %s needs a url", s.Type)
		}
	default:
		return nil, errAt(v.get("type"), "type %q: want stdio, http or sse", s.Type)
	}
	return s, nil
}

// expand replaces ${VAR} and ${VAR:-default} in s, as Claude Code does in
// .mcp.json. A variable that is unset and has no default is an error:
// the server would start with a hole in its command line.
func expand(s string, env Lookup, fail func(string) error) (string, error) {
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			return "", fail(fmt.Sprintf("%q: ${ without a closing }", s))
		}
		b.WriteString(s[:i])
		ref := s[i+2 : i+end]
		name, def, hasDef := strings.Cut(ref, ":-")
		if !validVar(name) {
			return "", fail(fmt.Sprintf("${%s}: %q is no environment variable name", ref, name))
		}
		val, ok := env(name)
		switch {
		case ok:
		case hasDef:
			val = def
		default:
			return "", fail(fmt.Sprintf("environment variable %s is not set (write ${%s:-default} for a default)", name, name))
		}
		b.WriteString(val)
		s = s[i+end+1:]
	}
}

func validVar(name string) bool {
	if name == "" {
		return false
	}
	for i, r := range name {
		if r != '_' && !(r >= 'A' && r <= 'Z') && !(r >= 'a' && r <= 'z') && !(i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}
