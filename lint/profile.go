package lint

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/skillkit/skillkit/plan"
)

// The front matter profiles: which host reads the skill, and so which
// keys and tool names are known.
const (
	// ProfileAuto picks the profile from the folder the skill is installed
	// in (ProfileFor); it is the default.
	ProfileAuto = "auto"
	// ProfileAgentSkills allows the Agent Skills specification's keys only.
	ProfileAgentSkills = "agentskills"
	// ProfileClaudeCode adds Claude Code's own keys.
	ProfileClaudeCode = "claude-code"
	// ProfileCodex adds the keys Codex skills carry.
	ProfileCodex = "codex"
	// ProfilePi adds the keys pi skills carry.
	ProfilePi = "pi"
)

// profile is what one host reads of a skill. The tables follow the host's
// documentation and the skills written for it as of Version; a host that
// adds a key or a tool needs a new version here, not a guess.
type profile struct {
	name, version string
	// title names the host in messages.
	title string
	keys  []string
	// tools are the names allowed-tools may hold (mcp__… aside); nil
	// when the host's tools are open (extensions add their own), so
	// entries are not checked.
	tools []string
}

// agentSkillsKeys are the keys of the Agent Skills specification
// (agentskills.io/specification).
var agentSkillsKeys = []string{"name", "description", "license", "compatibility", "metadata", "allowed-tools"}

// claudeCodeKeys are the keys Claude Code reads beyond the specification
// (code.claude.com/docs/en/skills, frontmatter reference), plus version,
// which Claude Code's own skill examples carry.
var claudeCodeKeys = []string{
	"when_to_use", "argument-hint", "arguments", "disable-model-invocation", "user-invocable",
	"model", "effort", "context", "agent", "hooks", "paths", "shell", "version",
}

// claudeCodeTools are Claude Code's built-in tool names.
var claudeCodeTools = []string{
	"Agent", "AskUserQuestion", "Bash", "BashOutput", "Edit", "EnterPlanMode", "ExitPlanMode",
	"Glob", "Grep", "KillShell", "LS", "LSP", "ListMcpResourcesTool", "MultiEdit", "NotebookEdit",
	"NotebookRead", "Read", "ReadMcpResourceTool", "Skill", "SlashCommand", "Task", "TaskCreate",
	"TaskGet", "TaskList", "TaskOutput", "TaskStop", "TaskUpdate", "TodoRead", "TodoWrite",
	"ToolSearch", "WebFetch", "WebSearch", "Write",
}

// codexTools are Codex's tool names; Codex skills are often ported from
// Claude Code and keep its names, which Codex maps, so those count too.
var codexTools = slices.Concat(claudeCodeTools, []string{
	"apply_patch", "shell", "exec_command", "update_plan", "view_image", "web_search",
	"spawn_agent", "send_input", "wait", "wait_agent", "close_agent", "send_message",
	"request_user_input", "followup_task", "report_agent_job_result",
	"list_mcp_resources", "list_mcp_resource_templates", "read_mcp_resource",
})

// skillkitKeys are skillkit's own keys: execution says how the skill's
// code runs (DESIGN §1.5), inputs what a run must be given, review
// whether a task's end waits for the conductor.
var skillkitKeys = []string{plan.ExecutionKey, plan.InputsKey, plan.ReviewKey}

// profiles are the known profiles by name.
var profiles = map[string]*profile{
	ProfileAgentSkills: {name: ProfileAgentSkills, version: "2025-12", title: "the Agent Skills specification", keys: slices.Concat(agentSkillsKeys, skillkitKeys)},
	ProfileClaudeCode: {name: ProfileClaudeCode, version: "2026-01", title: "Claude Code",
		keys: slices.Concat(agentSkillsKeys, claudeCodeKeys, skillkitKeys), tools: claudeCodeTools},
	ProfileCodex: {name: ProfileCodex, version: "2026-01", title: "Codex",
		keys: slices.Concat(agentSkillsKeys, []string{"agents", "phases", "argument-hint"}, skillkitKeys), tools: codexTools},
	ProfilePi: {name: ProfilePi, version: "2026-01", title: "pi",
		keys: slices.Concat(agentSkillsKeys, []string{"session-mode", "contract", "auto-continue", "disable-model-invocation"}, skillkitKeys)},
}

// ProfileNames are the values --profile and skillkit.yaml accept.
var ProfileNames = []string{ProfileAuto, ProfileAgentSkills, ProfileClaudeCode, ProfileCodex, ProfilePi}

// validProfile reports whether name is a profile or auto.
func validProfile(name string) bool { return slices.Contains(ProfileNames, name) }

// hostFolders map the folder a host installs skills in to its profile.
var hostFolders = []struct{ folder, profile string }{
	{".claude/skills", ProfileClaudeCode},
	{".codex/skills", ProfileCodex},
	{".pi/skills", ProfilePi},
}

// ProfileFor returns the profile auto picks for a skill folder: the host
// whose skills folder holds it (the innermost, for a copy of one host's
// skills inside another's); else the host of the plugin whose skills/
// folder holds it (a .claude-plugin/plugin.json or .codex-plugin/plugin.json
// beside that skills/, as Claude Code and Codex plugins lay themselves out);
// else agentskills, the portable one.
func ProfileFor(dir string) string {
	d := "/" + filepath.ToSlash(dir) + "/"
	best, at := ProfileAgentSkills, -1
	for _, h := range hostFolders {
		if i := strings.LastIndex(d, "/"+h.folder+"/"); i > at {
			best, at = h.profile, i
		}
	}
	root, ok := pluginRoot(dir)
	if at >= 0 || !ok {
		return best
	}
	for _, p := range hostPlugins {
		if _, err := os.Stat(filepath.Join(root, p.dir, pluginFile)); err == nil {
			return p.profile
		}
	}
	return best
}

// hostPlugins are the folders of the hosts' plugin manifests, Claude
// Code's first: a plugin made for both (UiPath's) is read by its keys.
var hostPlugins = []struct{ dir, profile string }{
	{pluginDir, ProfileClaudeCode},
	{".codex-plugin", ProfileCodex},
}

// profile returns the profile of the pass.
func (p *Pass) profile() *profile { return profiles[p.Profile] }

// otherProfiles names the profiles other than the pass's that know key.
func (p *Pass) otherProfiles(key string) []string {
	var out []string
	for _, name := range ProfileNames[1:] {
		if name != p.Profile && slices.Contains(profiles[name].keys, key) {
			out = append(out, profiles[name].title)
		}
	}
	return out
}
