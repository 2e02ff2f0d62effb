package mcpserve

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillkit/skillkit/internal/runstore/fsstore"
	"github.com/skillkit/skillkit/internal/testfs"
)

// connect serves o in-process and returns a client session of the SDK's
// own client, closed with the test.
func connect(t testing.TB, o Options) *mcp.ClientSession {
	t.Helper()
	return connectWith(t, o, nil)
}

// connectWith is connect with the client's options.
func connectWith(t testing.TB, o Options, co *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, st) }()
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, co)
	cs, err := c.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		cancel()
		<-done
	})
	return cs
}

// project copies the examples into a fresh project folder and returns
// the server's options on it.
func project(t testing.TB) Options {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(filepath.Join(dir, "examples"), os.DirFS(filepath.Join("..", "..", "examples"))); err != nil {
		t.Fatal(err)
	}
	return Options{Version: "test", Base: dir, Dirs: []string{"examples"}, Store: fsstore.New(fsstore.Options{Base: dir}), ProjectDir: dir,
		ExitCode: func(err error) int {
			if err != nil {
				return 1
			}
			return 0
		}}
}

// call calls a tool and decodes its structured result into out; it
// returns the result's text when the tool failed.
func call(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any, out any) (failed string) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	if res.IsError {
		var b strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		return b.String()
	}
	data, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, out); err != nil {
		t.Fatalf("%s: %v in %s", tool, err, data)
	}
	return ""
}

func TestTools(t *testing.T) {
	o := project(t)
	cs := connect(t, o)
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
		if tl.InputSchema == nil || tl.OutputSchema == nil {
			t.Errorf("%s: no input or output schema", tl.Name)
		}
	}
	if want := []string{"lint", "plan", "run", "status", "test"}; !slices.Equal(names, want) {
		t.Errorf("tools %v, want %v", names, want)
	}

	t.Run("lint", func(t *testing.T) {
		var clean lintOut
		if msg := call(t, cs, "lint", map[string]any{"path": "examples/sequential"}, &clean); msg != "" || clean.Errors+clean.Warnings != 0 {
			t.Errorf("examples/sequential: %q %+v", msg, clean)
		}
		testfs.WriteTree(t, o.Base, map[string]string{
			"broken/SKILL.md":       "---\nname: broken\ndescription: Has a JS syntax error.\n---\n# Broken\n",
			"broken/phases/01-x.md": "# Phase 1: X\n\n## Execution Steps\n\n```js\nconst = 3;\n```\n",
		})
		var bad lintOut
		call(t, cs, "lint", map[string]any{"path": "broken"}, &bad)
		i := slices.IndexFunc(bad.Findings, func(f finding) bool { return f.Rule == "js-syntax" })
		if bad.Errors == 0 || i < 0 || bad.Findings[i].File != "broken/phases/01-x.md" || bad.Findings[i].Line != 6 {
			t.Errorf("broken: %+v", bad)
		}
		if !strings.Contains(bad.Text, "broken/phases/01-x.md:6:7: error: JavaScript does not parse") {
			t.Errorf("broken: text %q", bad.Text)
		}
		if msg := call(t, cs, "lint", map[string]any{"path": "nowhere"}, &bad); !strings.Contains(msg, "nowhere") {
			t.Errorf("a missing path: %q", msg)
		}
	})

	t.Run("plan", func(t *testing.T) {
		var p planOut
		if msg := call(t, cs, "plan", map[string]any{"skill": "examples/real-skill"}, &p); msg != "" {
			t.Fatal(msg)
		}
		if p.Name != "real-skill" || p.Mode != "sequential" || len(p.AgentWork) != 2 || !p.AgentWork[0].Sure ||
			p.AgentWork[0].Pos != "phases/01-collect.md:26:17" || !strings.Contains(p.Summary, "01-collect") {
			t.Errorf("plan: %+v", p)
		}
		if msg := call(t, cs, "plan", map[string]any{"skill": "nowhere"}, &p); !strings.Contains(msg, "no skill folder") {
			t.Errorf("a missing skill: %q", msg)
		}
	})

	var runID string
	t.Run("run", func(t *testing.T) {
		var r runOut
		if msg := call(t, cs, "run", map[string]any{"skill": "examples/sequential"}, &r); msg != "" {
			t.Fatal(msg)
		}
		if r.State != "completed" || r.RunID == "" || !strings.Contains(r.Output, "completed") || !strings.HasPrefix(r.Dir, o.Base) {
			t.Errorf("sequential: %+v", r)
		}
		// The same gate as the CLI's: without an agent, refused at once.
		msg := call(t, cs, "run", map[string]any{"skill": "examples/real-skill"}, &r)
		if !strings.Contains(msg, "step 01-collect#3 Judge the style needs the agent") || !strings.Contains(msg, "nothing ran") {
			t.Errorf("real-skill without an agent: %q", msg)
		}
		// partial runs up to the agent step and says how to go on.
		var p runOut
		if msg := call(t, cs, "run", map[string]any{"skill": "examples/real-skill", "partial": true}, &p); msg != "" {
			t.Fatal(msg)
		}
		if p.State != "interrupted" || p.Phase != "01-collect" || !strings.Contains(p.StoppedBy, "needs an agent") || !strings.Contains(p.Next, p.RunID) {
			t.Errorf("real-skill, partial: %+v", p)
		}
		runID = p.RunID
		// Resuming it without an agent stops at the same step.
		var again runOut
		if msg := call(t, cs, "run", map[string]any{"skill": "examples/real-skill", "resume": runID}, &again); msg != "" || again.RunID != runID || again.State != "interrupted" {
			t.Errorf("resume: %q %+v", msg, again)
		}
	})

	t.Run("status", func(t *testing.T) {
		var s statusOut
		if msg := call(t, cs, "status", map[string]any{"run": runID}, &s); msg != "" {
			t.Fatal(msg)
		}
		if s.RunID != runID || s.Skill != "real-skill" || s.State != "interrupted" || !strings.Contains(s.Text, runID) {
			t.Errorf("status: %+v", s)
		}
		if msg := call(t, cs, "status", map[string]any{"run": "20990101-000000-nope"}, &s); msg == "" {
			t.Error("status of no run: no error")
		}
	})

	t.Run("test", func(t *testing.T) {
		var r testOut
		if msg := call(t, cs, "test", map[string]any{"path": "examples/autonomous"}, &r); msg != "" {
			t.Fatal(msg)
		}
		if r.Passed == 0 || r.Failed+r.Bad != 0 {
			t.Errorf("test: %+v", r)
		}
	})
}

func TestResourcesAndPrompts(t *testing.T) {
	cs := connect(t, project(t))
	ctx := context.Background()
	res, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, r := range res.Resources {
		uris = append(uris, r.URI)
	}
	const seq = "skillkit://skill/examples/sequential/SKILL.md"
	// Every example with a SKILL.md is a resource.
	examples, _ := filepath.Glob(filepath.Join("..", "..", "examples", "*", "SKILL.md"))
	if len(uris) != len(examples) || !slices.Contains(uris, seq) {
		t.Fatalf("resources %v", uris)
	}
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: seq})
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join("..", "..", "examples", "sequential", "SKILL.md"))
	if err != nil {
		t.Fatal(err)
	}
	if got := rr.Contents[0].Text; strings.TrimSpace(got) != strings.TrimSpace(string(want)) {
		t.Errorf("read %s:\n%s\nwant\n%s", seq, got, want)
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "skillkit://skill/nope/SKILL.md"}); err == nil {
		t.Error("reading no skill: no error")
	}

	ps, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps.Prompts) != len(examples) {
		t.Errorf("%d prompts, want one per skill", len(ps.Prompts))
	}
	p, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "sequential", Arguments: map[string]string{"arguments": "a b"}})
	if err != nil {
		t.Fatal(err)
	}
	text := p.Messages[0].Content.(*mcp.TextContent).Text
	if !strings.HasPrefix(text, "# Word count report") || !strings.HasSuffix(text, "ARGUMENTS: a b") {
		t.Errorf("prompt:\n%s", text)
	}
}

// TestRunWithAgent: a server given an agent runs agent work, and resumes
// a run that a server without one stopped with partial: one record, read
// by both.
func TestRunWithAgent(t *testing.T) {
	o := project(t)
	var p runOut
	if msg := call(t, connect(t, o), "run", map[string]any{"skill": "examples/real-skill", "partial": true, "args": []string{"README.md"}}, &p); msg != "" || p.State != "interrupted" {
		t.Fatalf("partial: %q %+v", msg, p)
	}
	o.Agent = "'" + filepath.Join(o.Base, "examples", "real-skill", "stand-in-agent.sh") + "'"
	cs := connect(t, o)
	var r runOut
	if msg := call(t, cs, "run", map[string]any{"skill": "examples/real-skill", "resume": p.RunID}, &r); msg != "" {
		t.Fatal(msg)
	}
	if r.RunID != p.RunID || r.State != "completed" || r.StoppedBy != "" || r.Next != "" {
		t.Errorf("resumed with an agent: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(r.WorkDir, "review.md")); err != nil {
		t.Errorf("the agent's review.md: %v", err)
	}
	var s statusOut
	if msg := call(t, cs, "status", nil, &s); msg != "" || s.RunID != p.RunID || s.State != "completed" {
		t.Errorf("status of the newest run: %q %+v", msg, s)
	}
}

// TestRunProgress: a client that asks for progress gets each line of the
// run as it is printed; the result's output holds them all.
func TestRunProgress(t *testing.T) {
	var mu sync.Mutex
	var lines []string
	cs := connectWith(t, project(t), &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
		mu.Lock()
		defer mu.Unlock()
		lines = append(lines, req.Params.Message)
	}})
	params := &mcp.CallToolParams{Name: "run", Arguments: map[string]any{"skill": "examples/sequential"}}
	params.SetProgressToken("run-1")
	res, err := cs.CallTool(context.Background(), params)
	if err != nil || res.IsError {
		t.Fatal(err, res)
	}
	out := res.StructuredContent.(map[string]any)["output"].(string)
	if !strings.Contains(out, "  step 02-count#1 ") {
		t.Errorf("output has no step lines:\n%s", out)
	}
	// Notifications may still be on their way when the result is.
	deadline := time.Now().Add(5 * time.Second)
	for {
		mu.Lock()
		got := strings.Join(lines, "\n") + "\n"
		mu.Unlock()
		if got == out {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("progress lines\n%s\nwant the output\n%s", got, out)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestRunCancelled: a client that cancels its run call leaves the run
// interrupted and resumable, its step's commands killed, as Ctrl-C does.
func TestRunCancelled(t *testing.T) {
	o := project(t)
	testfs.WriteTree(t, o.Base, map[string]string{
		"slow/SKILL.md":          "---\nname: slow\ndescription: Waits.\n---\n# Slow\n",
		"slow/phases/01-wait.md": "# Phase 1: Wait\n\n## Execution Steps\n\n### Step 1: Wait\n```bash\ntouch started; sleep 600\n```\n",
	})
	cs := connect(t, o)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "run", Arguments: map[string]any{"skill": "slow"}})
		done <- err
	}()
	var s statusOut
	deadline := time.Now().Add(30 * time.Second)
	for call(t, cs, "status", nil, &s) != "" || s.Step == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the run never reached its step")
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	if err := <-done; err == nil {
		t.Error("the cancelled call returned no error")
	}
	for {
		if msg := call(t, cs, "status", map[string]any{"run": s.RunID}, &s); msg == "" && s.State == "interrupted" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the cancel: %+v", s)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestSkillFiles: every file of a served skill is a resource, and nothing
// outside the skill's folder is one: not by "..", not by a symbolic link.
func TestSkillFiles(t *testing.T) {
	o := project(t)
	secret := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(secret, []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(o.Base, "examples", "sequential", "link.txt")); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, o)
	ctx := context.Background()
	const phase = "skillkit://skill/examples/real-skill/phases/01-collect.md"
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: phase})
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join("..", "..", "examples", "real-skill", "phases", "01-collect.md"))
	if err != nil {
		t.Fatal(err)
	}
	if rr.Contents[0].Text != string(want) {
		t.Errorf("%s:\n%s", phase, rr.Contents[0].Text)
	}
	for _, uri := range []string{
		"skillkit://skill/examples/sequential/link.txt",
		"skillkit://skill/examples/sequential/../../../../../../etc/passwd",
		"skillkit://skill/examples/sequential/" + secret,
		"skillkit://skill/examples/sequential/phases/99-none.md",
		"skillkit://skill/examples/none/SKILL.md",
	} {
		if rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri}); err == nil {
			t.Errorf("%s: read %q", uri, rr.Contents[0].Text)
		}
	}
}

// TestDottedSkillFolderIsUnderBase: a skill folder whose name starts with
// two dots is inside Base, and its resource is named relative to Base
// like any other, not by its absolute path.
func TestDottedSkillFolderIsUnderBase(t *testing.T) {
	base := t.TempDir()
	testfs.WriteTree(t, filepath.Join(base, "..drafts"), map[string]string{
		"SKILL.md": "---\nname: drafts\ndescription: A skill in a folder whose name starts with two dots.\n---\n\n# Drafts\n\nSay hello.\n",
	})
	cs := connect(t, Options{Base: base, Dirs: []string{"."}, Store: fsstore.New(fsstore.Options{Base: base}), ProjectDir: base})
	res, err := cs.ListResources(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Resources) != 1 || res.Resources[0].URI != "skillkit://skill/..drafts/SKILL.md" {
		var uris []string
		for _, r := range res.Resources {
			uris = append(uris, r.URI)
		}
		t.Fatalf("resources %v, want skillkit://skill/..drafts/SKILL.md", uris)
	}
}
