package cassette

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzLoad reads arbitrary bytes as a cassette: an error, never a panic.
func FuzzLoad(f *testing.F) {
	f.Add([]byte("{\"cassette\": 1, \"skill\": \"demo\"}\n{\"request\": \"step\", \"id\": \"01-a#1\", \"prompt\": \"x\", \"reply\": \"done\"}\n"))
	f.Add([]byte("{\"cassette\": 1, \"skill\": \"demo\"}\n{\"request\":"))
	f.Add([]byte("{\"cassette\": 99}\n"))
	f.Add([]byte("not json\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "c.jsonl")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, _ = Load(path, "demo")
	})
}

// FuzzScrub scrubs arbitrary text: never a panic, and a secret that the
// text holds whole, or cut by line breaks, does not survive.
func FuzzScrub(f *testing.F) {
	const secret = "tok-0123456789"
	s, err := NewScrubber([]string{"X_TOKEN=" + secret, "DB_URL=pg://u:pw-4567@h/d"}, []string{`acct-\d+`})
	if err != nil {
		f.Fatal(err)
	}
	f.Add("a tok-01234\n  56789 b", 3)
	f.Add("tok-0123456789tok-0123456789\r\n\\n", 0)
	f.Add("Authorization: Bearer x https://a:b@c", 5)
	f.Fuzz(func(t *testing.T, text string, at int) {
		if at < 0 || at > len(text) {
			at = len(text)
		}
		out := s.Scrub(text[:at] + secret + text[at:])
		if strings.Contains(out, secret) {
			t.Errorf("Scrub kept the secret: %q", out)
		}
		cut := text[:at] + secret[:5] + "\n" + secret[5:] + text[at:]
		if out := s.Scrub(cut); strings.Contains(strings.ReplaceAll(out, "\n", ""), secret) {
			t.Errorf("Scrub kept a cut secret: %q", out)
		}
	})
}
