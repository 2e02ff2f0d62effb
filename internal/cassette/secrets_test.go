package cassette

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillkit/skillkit/internal/mcp"
)

// TestMCPFilesAreScrubbed: a file an MCP server wrote is scrubbed as an
// agent's is, in its name and in its bytes, not only in its text (a
// binary file kept its token, and a file named after it its name).
func TestMCPFilesAreScrubbed(t *testing.T) {
	const secret = "tok-9f8e7d6c5b"
	work := t.TempDir()
	env := []string{"SKILL_WORKDIR=" + work}
	scrub, err := NewScrubber([]string{"API_TOKEN=" + secret}, nil)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "c.jsonl")
	rec, err := Create(path, Header{Skill: "demo", Agent: NoAgent}, scrub)
	if err != nil {
		t.Fatal(err)
	}
	call := mcp.Call{Server: "fs", Tool: "write_file", Args: map[string]any{"path": "x"}, Result: map[string]any{}}
	rec.ReplayMCP(env, call)
	os.WriteFile(filepath.Join(work, "bin.dat"), append([]byte{0xff, 0xfe, 0}, secret...), 0o644)
	os.WriteFile(filepath.Join(work, "key-"+secret+".txt"), []byte("x\n"), 0o644)
	rec.RecordMCP(env, call)
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if leaks(data, secret) {
		t.Errorf("the cassette keeps the secret of a file an MCP server wrote:\n%s", data)
	}
}

// leaks reports whether data holds secret as it is or in base64 (the
// form a binary file takes in a cassette).
func leaks(data []byte, secret string) bool {
	text := string(data)
	if strings.Contains(text, secret) {
		return true
	}
	for off := range 3 {
		enc := base64.StdEncoding.EncodeToString(append(make([]byte, off), secret...))
		if strings.Contains(text, enc[4:len(enc)-4]) {
			return true
		}
	}
	return false
}

// TestURLAndHeaderCredentialsAreScrubbed: a URL's password and an
// Authorization header's credentials that the environment does not hold
// (an agent printed a git remote, a curl command) are scrubbed. A URL's
// password in the environment is not scrubbed where it appears alone: a
// weak one is a word (CI's database URL has the password skillkit).
func TestURLAndHeaderCredentialsAreScrubbed(t *testing.T) {
	s, err := NewScrubber([]string{"DATABASE_URL=postgres://skillkit:skillkit@localhost:5432/postgres"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ in, want string }{
		{"git remote: https://x-access-token:ghs_AbCdEf0123456789@github.com/o/r.git",
			"git remote: https://x-access-token:[scrubbed]@github.com/o/r.git"},
		{"--db postgres://skillkit:skillkit@localhost:5432/postgres", "--db postgres://skillkit:[scrubbed]@localhost:5432/postgres"},
		{`curl -H "Authorization: Bearer eyJhbGciOi.eyJzdWIi.sig-_x" https://api`, `curl -H "Authorization: Bearer [scrubbed]" https://api`},
		{`{"headers":{"authorization":"Basic dXNlcjpwYXNz"}}`, `{"headers":{"authorization":"Basic [scrubbed]"}}`},
		{"see https://example.com/a@b and user@example.com", "see https://example.com/a@b and user@example.com"},
		{"skillkit run examples/x", "skillkit run examples/x"},
	} {
		if got := s.Scrub(tc.in); got != tc.want {
			t.Errorf("Scrub(%q)\n = %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

// TestSplitSecretIsScrubbed: a secret that a line break cuts (a reply
// wrapped at its width, base64 wrapped at 76 columns, JSON's escaped
// newline) is scrubbed too.
func TestSplitSecretIsScrubbed(t *testing.T) {
	const secret = "sk-live-0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJ"
	s, err := NewScrubber([]string{"OPENAI_API_KEY=" + secret}, nil)
	if err != nil {
		t.Fatal(err)
	}
	wrapped := base64.StdEncoding.EncodeToString([]byte("key=" + secret + "\n"))
	wrapped = wrapped[:40] + "\n" + wrapped[40:]
	for _, in := range []string{
		"the key is sk-live-0123456789abcdef\nghijklmnopqrstuvwxyzABCDEFGHIJ, keep it",
		"the key is sk-live-0123456789abcdef\r\n    ghijklmnopqrstuvwxyzABCDEFGHIJ",
		`{"text":"sk-live-0123456789abcdef\nghijklmnopqrstuvwxyzABCDEFGHIJ"}`,
		wrapped,
	} {
		got := s.Scrub(in)
		if leaks([]byte(strings.NewReplacer("\n", "", "\r", "", " ", "", `\n`, "").Replace(got)), secret) || !strings.Contains(got, Scrubbed) {
			t.Errorf("Scrub(%q) = %q", in, got)
		}
		if b := s.ScrubBytes([]byte(in)); string(b) != got {
			t.Errorf("ScrubBytes(%q) = %q, Scrub %q", in, b, got)
		}
	}
	// Text that merely has line breaks is left as it is.
	if in := "line one\nline two\r\n  three"; s.Scrub(in) != in {
		t.Errorf("Scrub(%q) = %q", in, s.Scrub(in))
	}
}
