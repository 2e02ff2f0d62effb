package plan

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/skillkit/skillkit/internal/skillfs"
)

// Hook points a skill may attach commands to (DESIGN §3.2).
const (
	// HookPostPhase runs after a phase verified, before it counts as
	// completed; a failing command fails the phase.
	HookPostPhase = "post_phase"
	// HookPostAction is the same after an action.
	HookPostAction = "post_action"
	// HookOnError runs after a phase or action failed (each attempt).
	HookOnError = "on_error"
	// HookPostRun runs once the run reached a terminal state.
	HookPostRun = "post_run"
)

// HookPoints are the hook points, in the order a run reaches them.
var HookPoints = []string{HookPostPhase, HookPostAction, HookOnError, HookPostRun}

// ConfigFile is the skill's own configuration beside SKILL.md; its hooks
// key adds hook commands.
const ConfigFile = "skillkit.yaml"

// Hook is one command a skill attached to a hook point.
type Hook struct {
	Point   string
	Command string
	// Pos is where the command was declared.
	Pos Pos
}

// HookError is a hook declaration (or a worker.yaml setting) that cannot
// be read, at its position.
// The runtime refuses the run with it and lint reports it as a finding,
// with the same position and words.
type HookError struct {
	Pos Pos
	Msg string
}

func (e *HookError) Error() string { return e.Pos.String() + ": " + e.Msg }

// ReadHooks reads a skill's hook commands: a hooks map in the entry
// document's front matter metadata, then the hooks key of skillkit.yaml
// in the skill folder. Each value is a command or a list of commands:
//
//	metadata:
//	  hooks:
//	    post_phase: ./scripts/check.sh
//	    on_error: [notify-send "skill failed"]
//
// It is the one reader of hooks, so that what lint accepts is what runs.
func (s *Skill) ReadHooks() ([]Hook, error) {
	var out []Hook
	if f := s.FrontMatter.Get("metadata"); f != nil {
		if meta, ok := f.Value.(map[string]any); ok && meta["hooks"] != nil {
			nodes := frontMatterHooks(s.FrontMatter)
			at := func(point string) Pos {
				if n, ok := nodes[point]; ok {
					return n
				}
				return f.ValuePos
			}
			m, ok := meta["hooks"].(map[string]any)
			if !ok {
				return nil, &HookError{at(""), "metadata.hooks: want a map of hook point to command"}
			}
			for _, point := range sortedKeys(m) {
				hooks, err := hooksOf(point, m[point], at(point))
				if err != nil {
					return nil, &HookError{at(point), "metadata.hooks." + point + ": " + err.Error()}
				}
				out = append(out, hooks...)
			}
		}
	}
	more, err := configHooks(s.Dir)
	return append(out, more...), err
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// frontMatterHooks finds where metadata.hooks ("") and each of its hook
// points are written in the front matter, for errors that point at the
// line at fault; an empty map when the raw text is not at hand.
func frontMatterHooks(fm *FrontMatter) map[string]Pos {
	out := map[string]Pos{}
	var root yaml.Node
	if fm.Raw == "" || yaml.Unmarshal([]byte(fm.Raw), &root) != nil || len(root.Content) == 0 {
		return out
	}
	// The block's first line is the file's second.
	pos := func(n *yaml.Node) Pos { return Pos{File: fm.Pos.File, Line: fm.Pos.Line + n.Line, Col: n.Column} }
	meta := mapValue(root.Content[0], "metadata")
	if meta == nil {
		return out
	}
	hooks := mapValue(meta, "hooks")
	if hooks == nil {
		return out
	}
	out[""] = pos(hooks)
	if hooks.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(hooks.Content); i += 2 {
			out[hooks.Content[i].Value] = pos(hooks.Content[i+1])
		}
	}
	return out
}

// mapValue returns the value of key in a YAML mapping node, nil when the
// node is no mapping or lacks the key.
func mapValue(n *yaml.Node, key string) *yaml.Node {
	if n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// hooksOf reads the commands of a hook point: a command or a list of them.
func hooksOf(point string, v any, pos Pos) ([]Hook, error) {
	if !slices.Contains(HookPoints, point) {
		return nil, fmt.Errorf("unknown hook point %q (want one of %s)", point, strings.Join(HookPoints, ", "))
	}
	var cmds []string
	switch v := v.(type) {
	case string:
		cmds = []string{v}
	case []any:
		for _, c := range v {
			s, ok := c.(string)
			if !ok {
				return nil, fmt.Errorf("want a command string, got %v", c)
			}
			cmds = append(cmds, s)
		}
	default:
		return nil, fmt.Errorf("want a command or a list of commands, got %v", v)
	}
	out := make([]Hook, len(cmds))
	for i, c := range cmds {
		out[i] = Hook{Point: point, Command: c, Pos: pos}
	}
	return out, nil
}

// configValue returns the node of a top-level key of the skill's
// skillkit.yaml; nil without the file or the key.
func configValue(dir, key string) (*yaml.Node, error) {
	data, err := skillfs.ReadFile(dir, ConfigFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", ConfigFile, err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, &HookError{Pos{File: ConfigFile}, err.Error()}
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	return mapValue(doc.Content[0], key), nil
}

// configHooks reads the hooks key of skillkit.yaml, with positions.
func configHooks(dir string) ([]Hook, error) {
	m, err := configValue(dir, "hooks")
	if m == nil {
		return nil, err
	}
	pos := func(n *yaml.Node) Pos { return Pos{File: ConfigFile, Line: n.Line, Col: n.Column} }
	if m.Kind != yaml.MappingNode {
		return nil, &HookError{pos(m), "hooks: want a map of hook point to command"}
	}
	var out []Hook
	for j := 0; j+1 < len(m.Content); j += 2 {
		k, n := m.Content[j], m.Content[j+1]
		var v any
		if err := n.Decode(&v); err != nil {
			return nil, &HookError{pos(n), err.Error()}
		}
		hooks, err := hooksOf(k.Value, v, pos(n))
		if err != nil {
			return nil, &HookError{pos(k), "hooks." + k.Value + ": " + err.Error()}
		}
		out = append(out, hooks...)
	}
	return out, nil
}
