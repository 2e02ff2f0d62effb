package cassette

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/skillkit/skillkit/internal/agent"
)

// Scrubbed replaces a secret in a recording.
const Scrubbed = "[scrubbed]"

// Scrubber removes secrets from what a cassette keeps: the values of
// environment variables whose names say they are secret, the credentials
// of URLs and Authorization headers in any text, and what the skill's own
// patterns match. The password of a URL in the environment is not
// scrubbed wherever it appears alone: CI's
// postgres://skillkit:skillkit@… scrubbed the word skillkit from every
// prompt.
type Scrubber struct {
	values   []string
	patterns []*regexp.Regexp
}

// credentials match a secret that says what it is whoever wrote it, the
// secret being the match's last group: a URL's password (a git remote
// with a token, a database URL an agent printed) and an Authorization
// header's credentials, plain or in JSON. Each runs only on a text that
// holds its hint: a regular expression that cannot start from a literal
// tries every position, and made a recording's scrub ten times slower.
var credentials = []struct {
	hints []string
	re    *regexp.Regexp
}{
	{[]string{"://"}, regexp.MustCompile(`://[^/\s:@"'<>]*:([^/\s@"'<>]+)@`)},
	{[]string{"uthorization", "UTHORIZATION"}, regexp.MustCompile(`(?i)\bauthorization["']?\s*[:=]\s*["']?(?:bearer|basic|token|bot)\s+([^\s"'\\,;]+)`)},
}

// minSecret is the shortest value scrubbed: shorter ones ("1", "no")
// would scrub words, and are no secret anyway.
const minSecret = 4

// secretName reports whether an environment variable's name says it
// holds a secret: *_KEY, *_TOKEN, *SECRET*, *PASSWORD*.
func secretName(name string) bool {
	n := strings.ToUpper(name)
	return strings.HasSuffix(n, "_KEY") || strings.HasSuffix(n, "_TOKEN") ||
		strings.Contains(n, "SECRET") || strings.Contains(n, "PASSWORD")
}

// NewScrubber scrubs the secret values of env (NAME=value) and what
// patterns (regular expressions) match.
func NewScrubber(env []string, patterns []string) (*Scrubber, error) {
	s := &Scrubber{}
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		if secretName(name) && len(value) >= minSecret {
			s.values = append(s.values, value)
		}
	}
	// Each secret is scrubbed in the forms it travels in, too: escaped in
	// JSON, encoded in a URL, in base64.
	var forms []string
	for _, v := range s.values {
		forms = append(forms, encodings(v)...)
	}
	s.values = append(s.values, forms...)
	slices.Sort(s.values)
	s.values = slices.Compact(s.values)
	// A secret that holds another is scrubbed first, whole.
	slices.SortFunc(s.values, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	for _, p := range patterns {
		re, err := regexp.Compile(p)
		if err != nil {
			return nil, fmt.Errorf("record.scrub pattern %q: %w", p, err)
		}
		s.patterns = append(s.patterns, re)
	}
	return s, nil
}

// encodings are the forms of secret v besides itself that a recording
// may hold: JSON-escaped (with and without HTML escaping), URL-encoded
// (query and path), and base64 in each of the four alphabets and paddings
// at each of the three byte offsets it may start at inside a longer
// encoded text (the characters that depend on v alone).
func encodings(v string) []string {
	var out []string
	for _, html := range []bool{false, true} {
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(html)
		if enc.Encode(v) == nil {
			out = append(out, strings.TrimSuffix(strings.TrimPrefix(strings.TrimSuffix(b.String(), "\n"), `"`), `"`))
		}
	}
	out = append(out, url.QueryEscape(v), url.PathEscape(v))
	for _, e := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		for off := range 3 {
			full := e.EncodeToString(append(make([]byte, off), v...))
			// Characters of 6 bits; those wholly inside v's bytes.
			first := (8*off + 5) / 6
			last := 8 * (off + len(v)) / 6
			if last-first >= minEncoded {
				out = append(out, full[first:last])
			}
		}
	}
	var forms []string
	for _, f := range out {
		if f != v && len(f) >= minSecret {
			forms = append(forms, f)
		}
	}
	return forms
}

// minEncoded is the shortest base64 form scrubbed: a shorter run of
// characters would match ordinary text by chance.
const minEncoded = 8

// ScrubBytes replaces the secrets in binary data, as Scrub does in text:
// a file the agent wrote may hold a token in any form.
func (s *Scrubber) ScrubBytes(data []byte) []byte {
	if s == nil {
		return data
	}
	return []byte(s.Scrub(string(data)))
}

// ScrubValue scrubs every string of a JSON-like value (a state, inputs),
// keys included, returning a scrubbed copy.
func (s *Scrubber) ScrubValue(v any) any {
	if s == nil {
		return v
	}
	switch x := v.(type) {
	case string:
		return s.Scrub(x)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[s.Scrub(k)] = s.ScrubValue(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = s.ScrubValue(e)
		}
		return out
	}
	return v
}

// Scrub replaces the secrets in text.
func (s *Scrubber) Scrub(text string) string {
	if s == nil {
		return text
	}
	for _, v := range s.values {
		text = strings.ReplaceAll(text, v, Scrubbed)
	}
	text = s.scrubSplit(text)
	for _, c := range credentials {
		if slices.ContainsFunc(c.hints, func(h string) bool { return strings.Contains(text, h) }) {
			text = scrubGroup(c.re, text)
		}
	}
	for _, re := range s.patterns {
		text = re.ReplaceAllString(text, Scrubbed)
	}
	return text
}

// scrubGroup replaces the last group of each match of re in text.
func scrubGroup(re *regexp.Regexp, text string) string {
	var b strings.Builder
	last := 0
	for _, m := range re.FindAllStringSubmatchIndex(text, -1) {
		from, to := m[len(m)-2], m[len(m)-1]
		b.WriteString(text[last:from])
		b.WriteString(Scrubbed)
		last = to
	}
	if last == 0 {
		return text
	}
	b.WriteString(text[last:])
	return b.String()
}

// scrubSplit replaces the secrets that line breaks cut: a reply wrapped
// at its width, base64 wrapped at 76 columns, a JSON string's escaped
// newline. It finds them in the text with its breaks (and the indentation
// after them) left out, and replaces each from its first character to its
// last, the breaks between them included.
func (s *Scrubber) scrubSplit(text string) string {
	if len(s.values) == 0 || !strings.ContainsAny(text, "\r\n") && !strings.Contains(text, `\n`) {
		return text
	}
	// flat is text without its breaks; at[i] is where flat[i] is in text.
	flat := make([]byte, 0, len(text))
	at := make([]int, 0, len(text))
	afterBreak := false
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c == '\r' || c == '\n':
			afterBreak = true
			continue
		case c == '\\' && i+1 < len(text) && (text[i+1] == 'n' || text[i+1] == 'r'):
			afterBreak = true
			i++
			continue
		case afterBreak && (c == ' ' || c == '\t'):
			continue
		}
		afterBreak = false
		flat = append(flat, c)
		at = append(at, i)
	}
	// cut marks the text's bytes that are scrubbed, at each secret's
	// first byte the secret's end.
	var cut map[int]int
	for _, v := range s.values {
		for off := 0; ; {
			j := bytes.Index(flat[off:], []byte(v))
			if j < 0 {
				break
			}
			j += off
			if cut == nil {
				cut = map[int]int{}
			}
			from, to := at[j], at[j+len(v)-1]+1
			cut[from] = max(cut[from], to)
			off = j + len(v)
		}
	}
	if cut == nil {
		return text
	}
	var b strings.Builder
	for i := 0; i < len(text); {
		to, ok := cut[i]
		if !ok {
			b.WriteByte(text[i])
			i++
			continue
		}
		// Secrets that overlap are scrubbed as one.
		for j := i + 1; j < to; j++ {
			to = max(to, cut[j])
		}
		b.WriteString(Scrubbed)
		i = to
	}
	return b.String()
}

// ConfigScrub reads the record.scrub patterns of the skillkit.yaml in a
// skill's folder; a skill without one has none. Other keys of the file
// are other parts' (docs/config.md).
func ConfigScrub(skillDir string) ([]string, error) {
	file := filepath.Join(skillDir, "skillkit.yaml")
	data, err := os.ReadFile(file)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var cfg struct {
		Record struct {
			Scrub []string `yaml:"scrub"`
		} `yaml:"record"`
	}
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		return nil, fmt.Errorf("%s: record.scrub: %w", file, err)
	}
	return cfg.Record.Scrub, nil
}

// timeRE matches the RFC 3339 times a prompt's [STATE] holds
// (started_at, updated_at): they differ in every run.
var timeRE = regexp.MustCompile(`\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})`)

// timePlaceholder stands for a time in a recorded prompt.
const timePlaceholder = "<time>"

// placeholders are the run's own values, which differ between a run and
// its replay: its folders and ids, each as the ${NAME} it stands for.
type placeholders struct{ pairs []string }

// placeholdersOf reads the run's values from the agent's environment (see
// script.Env) and session.
func placeholdersOf(a *agent.Agent) placeholders {
	session := ""
	if a.Session != nil {
		session = a.Session.ID
	}
	return placeholdersOfEnv(a.Env, session)
}

// placeholdersOfEnv reads the run's values from its environment (see
// script.Env) and its agent session id, longest first so that a folder
// inside another is replaced whole.
func placeholdersOfEnv(env []string, session string) placeholders {
	type pair struct{ value, name string }
	var ps []pair
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		if value == "" {
			continue
		}
		switch name {
		case "SKILL_WORKDIR", "SKILL_DIR":
			// The variable may hold the folder as the user named it,
			// relative, which prose may say too ("run examples/x"):
			// prompts say it absolute, and only that is replaced.
			if abs, err := filepath.Abs(value); err == nil {
				ps = append(ps, pair{abs, "${" + name + "}"})
			}
		case "SKILL_RUN_ID":
			ps = append(ps, pair{value, "${" + name + "}"})
		}
	}
	if session != "" {
		ps = append(ps, pair{session, "${SKILLKIT_SESSION_ID}"})
	}
	slices.SortFunc(ps, func(a, b pair) int { return cmp.Compare(len(b.value), len(a.value)) })
	var p placeholders
	for _, x := range ps {
		p.pairs = append(p.pairs, x.value, x.name)
	}
	return p
}

// hide puts the placeholders in text.
func (p placeholders) hide(text string) string {
	if len(p.pairs) == 0 {
		return text
	}
	return strings.NewReplacer(p.pairs...).Replace(text)
}

// show puts the run's values back in text.
func (p placeholders) show(text string) string {
	back := make([]string, len(p.pairs))
	for i := 0; i < len(p.pairs); i += 2 {
		back[i], back[i+1] = p.pairs[i+1], p.pairs[i]
	}
	if len(back) == 0 {
		return text
	}
	return strings.NewReplacer(back...).Replace(text)
}

// prompt is a prompt as a cassette keeps and matches it: placeholders for
// the run's values and times, secrets scrubbed.
func (p placeholders) prompt(s *Scrubber, text string) string {
	return s.Scrub(timeRE.ReplaceAllString(p.hide(text), timePlaceholder))
}
