package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The secret of TestSecretsNeverRecorded: JSON escapes it (" \ < >), and
// its forms below are what to look for in the recordings.
const plantedSecret = `p"w\rd<ghp_0123456789abcdefABCDEF>`

// plantedForms are pieces of every form of plantedSecret: the raw, JSON-
// and URL-encoded forms all hold its middle; base64 is looked for at each
// of the three byte offsets it may start at in a longer encoded text.
var plantedForms = []string{"ghp_0123456789", "NDU2Nzg5YWJjZGVm", "Q1Njc4OWFiY2RlZk", "M0NTY3ODlhYmNkZW"}

// TestSecretsNeverRecorded plants a secret in every channel a recording
// keeps (the agent's reply raw, JSON-escaped and in base64, a binary file,
// a file's name, the state, the inputs) and greps the cassette and the
// test file --record-test writes for each of its forms (N5). The run's own
// files (.claim.groups, .claim.lock) are not recorded as the agent's (N6).
func TestSecretsNeverRecorded(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "leaky")
	files := map[string]string{
		"SKILL.md": "---\nname: leaky\ndescription: Handles a token.\n---\n# Leaky\n",
		"phases/01-go.md": "# Phase 1: Go\n## Execution Steps\n### Step 1: Keep\n```javascript\nstate.tok = inputs.tok;\n" +
			"Write('dir-' + inputs.tok + '/f.txt', 'plain');\n```\n### Step 2: Ask\nSay something about the token.\n",
		"agent.sh": `#!/bin/sh
cat > /dev/null
printf 'raw %s\n' "$GITHUB_TOKEN"
printf 'json "%s"\n' "$(printf '%s' "$GITHUB_TOKEN" | sed 's/\\/\\\\/g; s/"/\\"/g')"
printf 'url %s\n' 'p%22w%5Crd%3Cghp_0123456789abcdefABCDEF%3E'
printf 'b64 %s\n' "$(printf '%s' "$GITHUB_TOKEN" | base64 -w0)"
printf 'b64+1 %s\n' "$(printf 'x%s' "$GITHUB_TOKEN" | base64 -w0)"
printf '\000\001%s\000' "$GITHUB_TOKEN" > bin.dat
mkdir -p "agent-$GITHUB_TOKEN"
echo note > "agent-$GITHUB_TOKEN/n.txt"
`,
	}
	for name, text := range files {
		must(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755))
		must(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o755))
	}
	t.Chdir(t.TempDir())
	t.Setenv("GITHUB_TOKEN", plantedSecret)
	code, _, stderr := run("run", dir, "--agent", filepath.Join(dir, "agent.sh"), "--input", "tok="+plantedSecret, "--record-test", "leak")
	if code != ExitOK {
		t.Fatalf("run --record-test: exit %d: %s", code, stderr)
	}
	for _, name := range []string{"leak.cassette.jsonl", "leak.yaml"} {
		data, err := os.ReadFile(filepath.Join(dir, "tests", name))
		must(t, err)
		for _, form := range plantedForms {
			if strings.Contains(string(data), form) {
				t.Errorf("%s holds the secret (%s):\n%s", name, form, data)
			}
		}
		for _, own := range []string{".claim.groups", ".claim.lock"} {
			if strings.Contains(string(data), own) {
				t.Errorf("%s records the run's own %s", name, own)
			}
		}
	}
	// The replay runs with [scrubbed] where the inputs held the secret,
	// and passes.
	if code, out, stderr := run("test", dir); code != ExitOK {
		t.Errorf("the recorded test: exit %d\n%s%s", code, out, stderr)
	}
}
