package cassette

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillkit/skillkit/internal/agent"
)

func TestScrubber(t *testing.T) {
	s, err := NewScrubber([]string{"OPENAI_API_KEY=sk-abcdef", "GH_TOKEN=ghp_123456", "DB_PASSWORD=hunter22", "X_KEY=no", "HOME=/home/me"}, []string{`acct-\d+`})
	if err != nil {
		t.Fatal(err)
	}
	got := s.Scrub("key sk-abcdef token ghp_123456 pw hunter22 no /home/me acct-42")
	want := "key [scrubbed] token [scrubbed] pw [scrubbed] no /home/me [scrubbed]"
	if got != want {
		t.Errorf("Scrub = %q, want %q", got, want)
	}
	if _, err := NewScrubber(nil, []string{"("}); err == nil || !strings.Contains(err.Error(), "record.scrub") {
		t.Errorf("a bad pattern: %v, want an error naming record.scrub", err)
	}
}

// call makes one exchange through a tape, as agent.Pending does: the
// command's work (do) happens between Begin and the end.
func call(t *testing.T, tape agent.Tape, a *agent.Agent, x agent.Exchange, do func()) (agent.Exchange, error) {
	t.Helper()
	end, replayed, err := tape.Begin(a, &x)
	if replayed {
		return x, err
	}
	do()
	end(x)
	return x, nil
}

func runAgent(dir string) *agent.Agent {
	return &agent.Agent{Command: "x", Dir: dir, Env: []string{"SKILL_WORKDIR=" + dir, "SKILL_DIR=/skills/demo", "SKILL_RUN_ID=r1"},
		Session: &agent.Session{ID: "s-1"}}
}

func TestRecordThenReplay(t *testing.T) {
	t.Setenv("DEMO_TOKEN", "tok-secret")
	s, err := NewScrubber(os.Environ(), nil)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "c.jsonl")
	rec, err := Create(file, Header{Skill: "demo", Agent: agent.AdapterCommand}, s)
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	a := runAgent(work)
	prompt := func(dir string) string {
		return "[WORK_DIR]\n" + dir + "\n[STATE]\n{\"updated_at\": \"2026-01-02T03:04:05.123Z\"}\n[STEP]\nuse tok-secret\n"
	}
	x := agent.Exchange{Request: agent.RequestStep, ID: "01-a#2", Prompt: prompt(work), Reply: "wrote " + work + "/out.md", Thread: "th"}
	call(t, rec, a, x, func() {
		if err := os.WriteFile(filepath.Join(work, "out.md"), []byte("in "+work+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	})
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(file)
	if strings.Contains(string(data), "tok-secret") || strings.Contains(string(data), work) {
		t.Fatalf("the cassette keeps a secret or the work dir:\n%s", data)
	}

	c, err := Load(file, "demo")
	if err != nil {
		t.Fatal(err)
	}
	e := c.Exchanges[0]
	if e.Unit != "01-a" || e.Attempt != 1 || len(e.Files) != 1 || e.Session != "th" {
		t.Errorf("recorded %+v", e)
	}
	// The replay runs elsewhere, later, under another session.
	other := t.TempDir()
	b := runAgent(other)
	b.Session.ID = "s-2"
	p := NewPlayer(c.Exchanges, s)
	y := agent.Exchange{Request: agent.RequestStep, ID: "01-a#2", Prompt: strings.Replace(prompt(other), "03:04:05.123", "09:09:09", 1)}
	got, err := call(t, p, b, y, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.Reply != "wrote "+other+"/out.md" || got.Thread != "th" {
		t.Errorf("replayed %+v", got)
	}
	if data, _ := os.ReadFile(filepath.Join(other, "out.md")); string(data) != "in "+other+"\n" {
		t.Errorf("replayed file holds %q", data)
	}

	// A changed prompt misses, with a diff naming what changed.
	y.Prompt = strings.Replace(y.Prompt, "use", "USE", 1)
	_, err = call(t, p, b, y, nil)
	var miss *MissError
	if !errors.As(err, &miss) || miss.ID != "01-a#2" || !strings.Contains(miss.Diff, "-use [scrubbed]") || !strings.Contains(miss.Diff, "+USE [scrubbed]") {
		t.Errorf("a changed prompt: %v", err)
	}
	if len(p.Misses()) != 1 || p.Calls() != 2 {
		t.Errorf("misses %d, calls %d", len(p.Misses()), p.Calls())
	}
}

func TestLoadRefuses(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return f
	}
	const header = `{"cassette":1,"skill":"demo","agent":"command"}` + "\n"
	ex := `{"request":"step","id":"01-a#1","attempt":1,"promptHash":"` + Hash("p") + `","prompt":"p","reply":"r","exitCode":0,"durationMs":1}` + "\n"
	for _, tc := range []struct{ name, text, want string }{
		{"old.jsonl", `{"cassette":0.5}` + "\n", "old.jsonl:1: not a skillkit cassette"},
		{"v2.jsonl", `{"cassette":2,"skill":"demo"}` + "\n", "v2.jsonl:1: cassette format 2; this skillkit reads format 1"},
		{"other.jsonl", `{"cassette":1,"skill":"other"}` + "\n", `other.jsonl:1: a cassette of the skill "other", not "demo"`},
		{"bad.jsonl", header + ex + "{oops\n" + ex, "bad.jsonl:3: reading an exchange"},
		{"empty.jsonl", "", "empty.jsonl:1: empty cassette"},
	} {
		_, err := Load(write(tc.name, tc.text), "demo")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	c, err := Load(write("cut.jsonl", header+ex+ex[:40]), "demo")
	if err != nil || c.Cut != 3 || len(c.Exchanges) != 1 {
		t.Errorf("a truncated cassette: %v, %+v", err, c)
	}
}

// TestContinue: a resumed run's recording keeps the exchanges before it
// and counts attempts on from them.
func TestContinue(t *testing.T) {
	file := filepath.Join(t.TempDir(), "c.jsonl")
	a := runAgent(t.TempDir())
	x := agent.Exchange{Request: agent.RequestAction, ID: "triage", Prompt: "p", Reply: "r"}
	for i, h := range []Header{{Skill: "demo", Agent: NoAgent}, {Skill: "demo", Agent: agent.AdapterClaude}} {
		start := Create
		if i > 0 {
			start = Continue
		}
		rec, err := start(file, h, nil)
		if err != nil {
			t.Fatal(err)
		}
		call(t, rec, a, x, func() {})
		if err := rec.Close(); err != nil {
			t.Fatal(err)
		}
	}
	c, err := Load(file, "demo")
	if err != nil {
		t.Fatal(err)
	}
	if c.Agent != agent.AdapterClaude || len(c.Exchanges) != 2 || c.Exchanges[1].Attempt != 2 {
		t.Errorf("continued cassette: agent %s, %+v", c.Agent, c.Exchanges)
	}
}

// TestOneRecordingAtATime: two runs recording into the same cassette at
// once (two --record-test of one name) interleaved their lines into a
// cassette that does not parse; the second is refused while the first
// records, naming the file, and the first's cassette stays whole.
func TestOneRecordingAtATime(t *testing.T) {
	file := filepath.Join(t.TempDir(), "same.cassette.jsonl")
	a := runAgent(t.TempDir())
	first, err := Create(file, Header{Skill: "demo", Agent: NoAgent}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, start := range []func(string, Header, *Scrubber) (*Recorder, error){Create, Continue} {
		if second, err := start(file, Header{Skill: "demo", Agent: NoAgent}, nil); err == nil || !strings.Contains(err.Error(), file) || !strings.Contains(err.Error(), "another run") {
			if second != nil {
				second.Close()
			}
			t.Errorf("a second recording into the same cassette: %v, want a refusal naming it", err)
		}
	}
	call(t, first, a, agent.Exchange{Request: agent.RequestAction, ID: "triage", Prompt: "p", Reply: "r"}, func() {})
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	if c, err := Load(file, "demo"); err != nil || len(c.Exchanges) != 1 {
		t.Fatalf("the first recording: %v, %+v", err, c)
	}
	// Once it is closed, the cassette may be recorded again.
	again, err := Create(file, Header{Skill: "demo", Agent: NoAgent}, nil)
	if err != nil {
		t.Fatal(err)
	}
	again.Close()
}

// TestLoadChecksExchanges: a line that is no exchange (null, {}) was
// read as one with no id, and a prompt edited by hand without its hash
// replayed the old prompt's reply; both are refused at their line. A
// header behind a byte order mark (an editor's) reads, and a cassette cut
// short says at which line.
func TestLoadChecksExchanges(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return f
	}
	const header = `{"cassette":1,"skill":"demo","agent":"command"}` + "\n"
	ex := `{"request":"step","id":"01-a#1","attempt":1,"promptHash":"` + Hash("p") + `","prompt":"p","reply":"r","exitCode":0,"durationMs":1}` + "\n"
	for _, tc := range []struct{ name, text, want string }{
		{"null.jsonl", header + "null\n" + ex, "null.jsonl:2: an exchange needs its request and id"},
		{"empty.jsonl", header + ex + "{}\n", "empty.jsonl:3: an exchange needs its request and id"},
		{"edited.jsonl", header + strings.Replace(ex, `"prompt":"p"`, `"prompt":"q"`, 1), "edited.jsonl:2: the promptHash is not the SHA-256 of the prompt"},
	} {
		_, err := Load(write(tc.name, tc.text), "demo")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	if c, err := Load(write("bom.jsonl", "\ufeff"+header+ex), "demo"); err != nil || len(c.Exchanges) != 1 {
		t.Errorf("a header behind a byte order mark: %v", err)
	}
	if c, err := Load(write("cut.jsonl", header+ex+"\n"+ex[:30]), "demo"); err != nil || c.Cut != 4 {
		t.Errorf("a cassette cut short at line 4: %v, %+v", err, c)
	}
}
