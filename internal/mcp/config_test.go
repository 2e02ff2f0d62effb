package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func env(m map[string]string) Lookup {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestParseProject(t *testing.T) {
	data := `{
  "mcpServers": {
    "memory": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-memory"],
      "env": {"MEMORY_FILE_PATH": "${HOME}/mem.json"}
    },
    "docs": {
      "type": "http",
      "url": "${DOCS_URL:-https://example.com/mcp}",
      "headers": {"Authorization": "Bearer ${API_TOKEN}"}
    },
    "legacy": {"type": "sse", "url": "http://localhost:9/sse", "alwaysAllow": ["x"]}
  }
}`
	c, err := ParseProject("/p/.mcp.json", []byte(data), env(map[string]string{"HOME": "/home/u", "API_TOKEN": "t0k"}))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(c.Names(), ","); got != "docs,legacy,memory" {
		t.Fatalf("names %s", got)
	}
	m := c.Servers["memory"]
	if m.Type != TypeStdio || m.Command != "npx" || m.Args[1] != "@modelcontextprotocol/server-memory" || m.Env["MEMORY_FILE_PATH"] != "/home/u/mem.json" {
		t.Errorf("memory: %+v", m)
	}
	if m.Pos.String() != "/p/.mcp.json:3:5" {
		t.Errorf("memory at %s", m.Pos)
	}
	d := c.Servers["docs"]
	if d.Type != TypeHTTP || d.URL != "https://example.com/mcp" || d.Headers["Authorization"] != "Bearer t0k" {
		t.Errorf("docs: %+v", d)
	}
	if c.Servers["legacy"].Type != TypeSSE {
		t.Errorf("legacy: %+v", c.Servers["legacy"])
	}
}

func TestParseProjectErrors(t *testing.T) {
	for _, tc := range []struct{ name, data, want string }{
		{"syntax", "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\",}\n  }\n}", ".mcp.json:3:"},
		{"truncated", "{\"mcpServers\": {", ".mcp.json:1:17: not valid JSON: unexpected end of JSON input"},
		{"not object", "[1]", ".mcp.json:1:1: want a JSON object with mcpServers"},
		{"servers not object", `{"mcpServers": []}`, ".mcp.json:1:16: mcpServers: want an object"},
		{"no command", "{\"mcpServers\": {\n \"a\": {\"args\": []}}}", `.mcp.json:2:7: server "a": no command`},
		{"args not strings", `{"mcpServers": {"a": {"command": "x", "args": [1]}}}`, `.mcp.json:1:48: server "a": want a string, not number`},
		{"unset var", "{\"mcpServers\": {\"a\": {\n\"command\": \"${NOPE}\"}}}", `.mcp.json:2:12: server "a": environment variable NOPE is not set`},
		{"bad var", `{"mcpServers": {"a": {"command": "${1X}"}}}`, `"1X" is no environment variable name`},
		{"unclosed var", `{"mcpServers": {"a": {"command": "${X"}}}`, `${ without a closing }`},
		{"bad type", `{"mcpServers": {"a": {"type": "ws", "url": "x"}}}`, `.mcp.json:1:31: server "a": type "ws": want stdio, http or sse`},
		{"http without url", `{"mcpServers": {"a": {"type": "http"}}}`, `type http needs a url`},
		{"twice", "{\"mcpServers\": {\"a\": {\"command\": \"x\"},\n \"a\": {\"command\": \"y\"}}}", `.mcp.json:2:2: key "a" appears twice`},
		{"double underscore", `{"mcpServers": {"a__b": {"command": "x"}}}`, `without "__"`},
		// Claude Code writes each dot as "_": the tools of "a..b" would be
		// mcp__a__b__…, of "a.b" and "a_b" both mcp__a_b__….
		{"double underscore as Claude Code names it", `{"mcpServers": {"a..b": {"command": "x"}}}`, `.mcp.json:1:17: server name "a..b": want a non-empty name without "__" in tool names (mcp__a__b__)`},
		{"two servers, one tool name", "{\"mcpServers\": {\"a.b\": {\"command\": \"x\"},\n \"a_b\": {\"command\": \"y\"}}}", `.mcp.json:2:2: servers "a.b" and "a_b" are both mcp__a_b__ in the names of their tools`},
		{"trailing", `{} {}`, "data after the top-level value"},
		{"deep", strings.Repeat("[", 100) + strings.Repeat("]", 100), "nested too deep"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseProject(".mcp.json", []byte(tc.data), env(nil))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}
}

func TestLoadMergesSkillkitYAML(t *testing.T) {
	project, skill := t.TempDir(), t.TempDir()
	write(t, filepath.Join(project, ".mcp.json"), `{"mcpServers": {
  "memory": {"command": "mcp-server-memory"},
  "fs": {"command": "mcp-server-filesystem", "args": ["."]}
}}`)
	write(t, filepath.Join(skill, "skillkit.yaml"), `execution: auto
mcp:
  start_timeout: 5s
  call_timeout: 1m30s
  servers:
    fs:
      command: ./bin/fs
      args: [/data]
    extra:
      type: http
      url: http://localhost:1/mcp
`)
	c, err := Load(project, skill, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(c.Names(), ","); got != "extra,fs,memory" {
		t.Fatalf("names %s", got)
	}
	fs := c.Servers["fs"]
	if fs.Command != "./bin/fs" || fs.Args[0] != "/data" || fs.Dir != skill || fs.Pos.Line != 6 {
		t.Errorf("fs: %+v", fs)
	}
	if c.StartTimeout != 5*time.Second || c.CallTimeout != 90*time.Second {
		t.Errorf("timeouts %s %s", c.StartTimeout, c.CallTimeout)
	}
	write(t, filepath.Join(skill, "skillkit.yaml"), "mcp:\n  call_timeout: soon\n")
	if _, err := Load(project, skill, env(nil)); err == nil || !strings.Contains(err.Error(), "skillkit.yaml:2:17: mcp.call_timeout: want a positive duration") {
		t.Errorf("bad timeout: %v", err)
	}
	write(t, filepath.Join(skill, "skillkit.yaml"), "mcp:\n  server: {}\n")
	if _, err := Load(project, skill, env(nil)); err == nil || !strings.Contains(err.Error(), `skillkit.yaml:2:11: mcp: unknown key "server"`) {
		t.Errorf("unknown key: %v", err)
	}
	// No files: nothing configured, no error.
	c, err = Load(t.TempDir(), t.TempDir(), nil)
	if err != nil || len(c.Servers) != 0 {
		t.Errorf("empty: %v %v", c, err)
	}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func FuzzParseProject(f *testing.F) {
	f.Add([]byte(`{"mcpServers": {"a": {"command": "x", "args": ["${A:-b}"], "env": {"K": "${K}"}}}}`))
	f.Add([]byte(`{"mcpServers": {"w": {"type": "http", "url": "u", "headers": {"h": "v"}}}}`))
	f.Add([]byte("{\n\"mcpServers\": {\"a\":"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseProject(".mcp.json", data, env(map[string]string{"K": "v"}))
		if err != nil {
			if _, ok := err.(*ConfigError); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		for name, s := range c.Servers {
			if NamePart(s.Name) != name || s.Pos.Line < 1 || (s.Type == TypeStdio) == (s.Command == "") {
				t.Fatalf("server %q: %+v", name, s)
			}
		}
	})
}

func FuzzMCPBlock(f *testing.F) {
	f.Add([]byte("mcp:\n  start_timeout: 5s\n  servers:\n    a: {command: x, args: [\"${A:-1}\"]}\n    b: &b {type: sse, url: u}\n    c: *b\n"))
	f.Add([]byte("mcp: [1]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c := &Config{Servers: map[string]*Server{}}
		err := c.addYAML("skillkit.yaml", data, env(nil))
		if _, ok := err.(*ConfigError); err != nil && !ok {
			t.Fatalf("error of type %T: %v", err, err)
		}
	})
}
