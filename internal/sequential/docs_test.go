package sequential_test

import (
	"context"
	"encoding/json"
	"github.com/skillkit/skillkit/internal/runstore/fsstore"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	lifecycle "github.com/skillkit/skillkit/internal/run"

	"github.com/skillkit/skillkit/internal/runstore"
	"github.com/skillkit/skillkit/internal/testfs"
	"github.com/skillkit/skillkit/parse"
)

// docFiles match the example files of docs/runtime.md: a fenced block
// whose info string names the file after the language; markdown files are
// in four-backtick fences since they hold fences themselves.
var docFiles = []*regexp.Regexp{
	regexp.MustCompile("(?s)\n````markdown ([^\\n]+)\\n(.*?)\\n````\\n"),
	regexp.MustCompile("(?s)\n```(?:json|yaml) ([^\\n]+)\\n(.*?)\\n```\\n"),
}

// docBlock returns the first fenced block after a heading of
// docs/runtime.md.
func docBlock(t *testing.T, doc, heading string) string {
	t.Helper()
	_, after, ok := strings.Cut(doc, "\n"+heading+"\n")
	if !ok {
		t.Fatalf("docs/runtime.md has no heading %q", heading)
	}
	m := regexp.MustCompile("(?s)```[a-z]*\n(.*?)\n```\n").FindStringSubmatch(after)
	if m == nil {
		t.Fatalf("no block under %q", heading)
	}
	return m[1]
}

// normalize replaces what changes from run to run with the values the page
// shows.
func normalize(s, skillDir string) string {
	for _, r := range []struct{ re, with string }{
		{`\d{4}-\d\d-\d\dT[0-9:.]+(Z|[+-]\d\d:\d\d)`, "2026-01-02T03:04:05Z"},
		{`\d{8}-\d{6}-[0-9a-f]{8}`, "20260102-030405-a1b2c3"},
		{`sha256:[0-9a-f]+`, "sha256:…"},
		{`[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}`, "0b5e7a52-4f0c-4a51-9d27-6f3f1e0c2b11"},
		{`"duration_ms":[0-9.e+-]+`, `"duration_ms":1.5`},
		{`"workDir":"[^"]*"`, `"workDir":"/home/me/project/.skillkit/runs/greet/20260102-030405-a1b2c3"`},
	} {
		s = regexp.MustCompile(r.re).ReplaceAllString(s, r.with)
	}
	return strings.ReplaceAll(s, skillDir, "/home/me/skills/greet")
}

// TestRuntimeDocExamples runs the example skill of docs/runtime.md and
// compares what it wrote with what the page shows.
func TestRuntimeDocExamples(t *testing.T) {
	data, err := os.ReadFile("../../docs/runtime.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	skillDir := filepath.Join(t.TempDir(), "greet")
	n := 0
	for _, re := range docFiles {
		for _, m := range re.FindAllStringSubmatch(doc, -1) {
			testfs.WriteFile(t, filepath.Join(skillDir, m[1]), m[2]+"\n")
			n++
		}
	}
	if n != 4 {
		t.Fatalf("found %d example files in docs/runtime.md, want 4", n)
	}
	s, err := parse.Dir(skillDir)
	if err != nil {
		t.Fatal(err)
	}
	o := opts(t, s)
	o.Inputs = map[string]string{"name": "Ada"}
	res, err := lifecycle.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	check := func(heading, got string) {
		t.Helper()
		got = strings.TrimRight(normalize(got, skillDir), "\n")
		if want := docBlock(t, doc, heading); got != want {
			t.Errorf("docs/runtime.md under %q shows:\n%s\nthe run wrote:\n%s", heading, want, got)
		}
	}
	check("### skill-state.yaml", testfs.ReadFile(t, filepath.Join(res.Dir, "skill-state.yaml")))
	check("### state.json", testfs.ReadFile(t, filepath.Join(res.Dir, "state.json")))
	check("### events.jsonl", testfs.ReadFile(t, filepath.Join(res.Dir, "events.jsonl")))
	metrics := testfs.ReadFile(t, filepath.Join(res.Dir, "metrics.jsonl"))
	check("### metrics.jsonl", strings.SplitAfter(metrics, "\n")[0])
	claimExample(t, doc)
	if got := testfs.ReadFile(t, filepath.Join(res.Dir, "hooks.log")); !strings.Contains(doc, "```\n"+got+"```\n") {
		t.Errorf("hooks.log holds %q, not shown on the page", got)
	}

	// The output error the page shows: a greeting that breaks the schema.
	phase := filepath.Join(skillDir, "phases", "01-greet.md")
	testfs.WriteFile(t, phase, strings.Replace(testfs.ReadFile(t, phase), "Hello, %s!", "Bye, %s!", 1))
	if s, err = parse.Dir(skillDir); err != nil {
		t.Fatal(err)
	}
	o = opts(t, s)
	_, err = lifecycle.Run(context.Background(), o)
	if err == nil {
		t.Fatal("a greeting that breaks the schema passed")
	}
	msg := err.(interface{ Unwrap() error }).Unwrap().Error()
	check("run and says which output and why:", msg)
}

// claimExample checks the claim.json and refusal the page shows against
// what store writes for the same holder.
func claimExample(t *testing.T, doc string) {
	started := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	info := fsstore.ClaimInfo{PID: 4242, Host: "build-7", Started: started, Heartbeat: started.Add(10 * time.Second),
		TimeoutMS: runstore.DefaultClaimTimeout.Milliseconds(), Token: "8d3f0c1a-5f1c0e2a9b7d3c48"}
	data, _ := json.MarshalIndent(info, "", "  ")
	if want := docBlock(t, doc, "refreshes every 2 seconds."); string(data) != want {
		t.Errorf("claim.json on the page:\n%s\nstore writes:\n%s", want, data)
	}
	info.Heartbeat = time.Now().Add(-time.Second)
	msg := (&runstore.ClaimedError{Where: ".skillkit/runs/greet/20260102-030405-a1b2c3", Holder: info.Holder(), Started: info.Started, Heartbeat: info.Heartbeat}).Error()
	if want := docBlock(t, doc, "A second `--resume` of a claimed run is refused and names the holder:"); msg != want {
		t.Errorf("refusal on the page:\n%s\nstore says:\n%s", want, msg)
	}
	// A holder elsewhere whose clock is ahead, and whose heartbeat moves.
	ahead := &runstore.ClaimedError{Where: ".skillkit/runs/greet/20260102-030405-a1b2c3", Holder: info.Holder(), Started: started.Add(time.Hour),
		Heartbeat: time.Now().Add(59*time.Minute + 58*time.Second + 400*time.Millisecond), Watch: runstore.DefaultClaimTimeout}
	if want := docBlock(t, doc, "is refused within a heartbeat, naming the holder:"); ahead.Error() != want {
		t.Errorf("refusal of a claim from the future on the page:\n%s\nstore says:\n%s", want, ahead.Error())
	}
}
