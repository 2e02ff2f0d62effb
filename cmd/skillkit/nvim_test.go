package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// nvimSetup is docs/lsp.md's set-up for Neovim 0.7 to 0.10.
var nvimSetup = regexp.MustCompile("(?s)With Neovim 0.7 to 0.10.*?```lua\n(.*?)```")

// nvimProbe opens a phase whose JavaScript has an extra `}` on line 9 and
// writes the diagnostics Neovim received, as line:message.
const nvimProbe = `vim.cmd('edit demo/phases/01-a.md')
vim.wait(30000, function() return #vim.diagnostic.get(0) > 0 end, 100)
local out = {}
for _, d in ipairs(vim.diagnostic.get(0)) do
  table.insert(out, string.format('%d:%s', d.lnum + 1, d.message))
end
vim.fn.writefile(out, 'diagnostics.txt')
vim.cmd('qa!')
`

// TestNeovimSetup runs docs/lsp.md's Neovim 0.7–0.10 block in the Neovim
// on PATH (Debian 12's is 0.7.2), headless, with skillkit on PATH: the
// diagnostic of a JavaScript syntax error must reach the editor, on the
// line of the mistake.
func TestNeovimSetup(t *testing.T) {
	if _, err := exec.LookPath("nvim"); err != nil {
		t.Skip("Neovim not installed: skipping (apt-get install neovim)")
	}
	doc, err := os.ReadFile(filepath.Join(repoRoot(t), "docs", "lsp.md"))
	must(t, err)
	m := nvimSetup.FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/lsp.md has no Neovim 0.7 to 0.10 lua block")
	}
	dir := t.TempDir()
	script := `env HOME=$WORK
env XDG_CONFIG_HOME=$WORK/config
env XDG_DATA_HOME=$WORK/data
env XDG_STATE_HOME=$WORK/state
exec nvim --headless -n -i NONE -u init.lua -c 'luafile probe.lua'
grep '^9:JavaScript does not parse: unmatched ' diagnostics.txt
-- init.lua --
` + string(m[1]) + `
-- probe.lua --
` + nvimProbe + `
-- demo/SKILL.md --
---
name: demo
description: Logs a number.
---
# Demo

Runs [phase 1](phases/01-a.md).
-- demo/phases/01-a.md --
# Phase 1: A

## Execution Steps

### Step 1: Log

` + "```javascript" + `
const a = 1;
}
console.log(a);
` + "```" + `
`
	must(t, os.WriteFile(filepath.Join(dir, "nvim.txtar"), []byte(script), 0o644))
	testscript.Run(t, testscript.Params{Dir: dir})
}
